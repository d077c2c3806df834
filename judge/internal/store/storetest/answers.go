package storetest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/perkey"
	"github.com/judgeworks/judge/internal/store"
)

// Spaces the answer laws store in: three answers an owner, and 2,000 bytes.
var (
	few   = store.Space{Name: "few:", PerOwner: perkey.Limits{Entries: 3, Bytes: 1 << 20}}
	small = store.Space{Name: "small:", PerOwner: perkey.Limits{Entries: 100, Bytes: 2000}}
)

const hour = time.Hour

// answers are the laws of store.Answers.
var answers = []law{
	{"an answer is found in its slot until its time is up", func(t *testing.T, s store.Store) {
		put(t, s, few, "o", "long", "kept", hour, nil)
		put(t, s, few, "o", "short", "gone", 50*time.Millisecond, nil)
		time.Sleep(100 * time.Millisecond)
		wantSlot(t, s, few, "long", "kept")
		wantSlot(t, s, few, "short", "")
	}},
	{"storing a slot again replaces it and counts it once", func(t *testing.T, s store.Store) {
		put(t, s, few, "o", "s", "one", hour, nil)
		put(t, s, few, "o", "s", "three", hour, nil)
		wantSlot(t, s, few, "s", "three")
		wantHeld(t, s, few, "o", 1, perkey.Size("s", []byte("three")))
	}},
	{"an owner past its count loses its own oldest answers, never another's", func(t *testing.T, s store.Store) {
		put(t, s, few, "other", "x", "theirs", hour, nil)
		for i := range 5 {
			put(t, s, few, "o", fmt.Sprint(i), "mine", hour, nil)
		}
		for i, want := range []string{"", "", "mine", "mine", "mine"} {
			wantSlot(t, s, few, fmt.Sprint(i), want)
		}
		wantSlot(t, s, few, "x", "theirs")
		wantHeld(t, s, few, "o", 3, 3*perkey.Size("0", []byte("mine")))
		wantHeld(t, s, few, "other", 1, perkey.Size("x", []byte("theirs")))
	}},
	{"an owner past its bytes loses its own oldest answers, counted as stored", func(t *testing.T, s store.Store) {
		val := string(bytes.Repeat([]byte("v"), 200))
		for i := range 20 {
			put(t, s, small, "o", fmt.Sprintf("%02d", i), val, hour, nil)
		}
		// Each counts its slot, its value and the overhead: six fit.
		size := perkey.Size("00", []byte(val))
		wantHeld(t, s, small, "o", 6, 6*size)
		wantSlot(t, s, small, "13", "")
		wantSlot(t, s, small, "14", val)
	}},
	{"an answer over a quarter of its owner's bytes is not stored", func(t *testing.T, s store.Store) {
		if stored := put(t, s, small, "o", "big", string(make([]byte, 500)), hour, nil); stored {
			t.Error("an answer over a quarter of 2,000 bytes was stored")
		}
		wantSlot(t, s, small, "big", "")
		wantHeld(t, s, small, "o", 0, 0)
	}},
	{"spaces are apart", func(t *testing.T, s store.Store) {
		put(t, s, few, "o", "s", "in few", hour, nil)
		put(t, s, small, "o", "s", "in small", hour, nil)
		wantSlot(t, s, few, "s", "in few")
		wantSlot(t, s, small, "s", "in small")
		wantHeld(t, s, few, "o", 1, perkey.Size("s", []byte("in few")))
	}},
	{"answers past their time stop counting once their owner stores again", func(t *testing.T, s store.Store) {
		for i := range 3 {
			put(t, s, few, "o", fmt.Sprint(i), "x", 50*time.Millisecond, nil)
		}
		time.Sleep(150 * time.Millisecond)
		put(t, s, few, "o", "fresh", "x", hour, nil)
		wantHeld(t, s, few, "o", 1, perkey.Size("fresh", []byte("x")))
	}},
	{"stores at once keep the accounts", func(t *testing.T, s store.Store) {
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				if _, err := s.Put(bg, few, "o", fmt.Sprintf("%02d", i), []byte("x"), hour, nil); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		wantHeld(t, s, few, "o", 3, 3*perkey.Size("00", []byte("x")))
		found := 0
		for i := range 30 {
			if _, ok, _ := s.Get(bg, few, fmt.Sprintf("%02d", i)); ok {
				found++
			}
		}
		if found != 3 {
			t.Errorf("%d answers found after 30 stores at once on a bound of 3", found)
		}
	}},
	{"a claim holds its slot against every other claim, and counts against no one", func(t *testing.T, s store.Store) {
		if held, ok := claim(t, s, "s", "c1", hour); !ok || held != "" {
			t.Fatalf("a claim of an empty slot: %q %v", held, ok)
		}
		if held, ok := claim(t, s, "s", "c2", hour); ok || held != "c1" {
			t.Errorf("a second claim: %q %v, want refused, told of c1", held, ok)
		}
		wantSlot(t, s, few, "s", "c1")
		wantHeld(t, s, few, "o", 0, 0)
	}},
	{"an answer replaces its own claim, or nothing, only", func(t *testing.T, s store.Store) {
		claim(t, s, "s", "c1", hour)
		if put(t, s, few, "o", "s", "stale", hour, []byte("c2")) {
			t.Error("an answer replaced another's claim")
		}
		wantSlot(t, s, few, "s", "c1")
		if !put(t, s, few, "o", "s", "answer", hour, []byte("c1")) {
			t.Error("an answer did not replace its own claim")
		}
		wantSlot(t, s, few, "s", "answer")
		wantHeld(t, s, few, "o", 1, perkey.Size("s", []byte("answer")))
		if put(t, s, few, "o", "s", "again", hour, []byte("c1")) {
			t.Error("an answer replaced an answer")
		}
		if !put(t, s, few, "o", "empty", "answer", hour, []byte("c3")) {
			t.Error("an answer for a claim gone was not stored in its empty slot")
		}
	}},
	{"a claim is released by its own request only", func(t *testing.T, s store.Store) {
		claim(t, s, "s", "c1", hour)
		release(t, s, "s", "c2")
		wantSlot(t, s, few, "s", "c1")
		release(t, s, "s", "c1")
		wantSlot(t, s, few, "s", "")
		if _, ok := claim(t, s, "s", "c3", hour); !ok {
			t.Error("a released slot could not be claimed")
		}
	}},
	{"a claim past its time frees its slot, and its late request cannot clobber the next", func(t *testing.T, s store.Store) {
		claim(t, s, "s", "late", 100*time.Millisecond)
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, ok := claim(t, s, "s", "next", hour); ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("a claim past its time still holds its slot")
			}
			time.Sleep(20 * time.Millisecond)
		}
		release(t, s, "s", "late")
		if put(t, s, few, "o", "s", "stale", hour, []byte("late")) {
			t.Error("the late request's answer replaced the next claim")
		}
		wantSlot(t, s, few, "s", "next")
	}},
}

func put(t *testing.T, s store.Store, sp store.Space, owner, slot, val string, ttl time.Duration, ifHolds []byte) bool {
	t.Helper()
	stored, err := s.Put(bg, sp, owner, slot, []byte(val), ttl, ifHolds)
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	return stored
}

func claim(t *testing.T, s store.Store, slot, c string, ttl time.Duration) (held string, ok bool) {
	t.Helper()
	h, ok, err := s.Claim(bg, few, slot, []byte(c), ttl)
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	return string(h), ok
}

func release(t *testing.T, s store.Store, slot, c string) {
	t.Helper()
	if err := s.Release(bg, few, slot, []byte(c)); err != nil {
		t.Fatalf("Release: %v", err)
	}
}

// wantSlot checks what slot holds; "" is nothing.
func wantSlot(t *testing.T, s store.Store, sp store.Space, slot, want string) {
	t.Helper()
	got, found, err := s.Get(bg, sp, slot)
	if err != nil || found != (want != "") || string(got) != want {
		t.Errorf("slot %s%s holds %q (found %v, %v), want %q", sp.Name, slot, got, found, err, want)
	}
}

func wantHeld(t *testing.T, s store.Store, sp store.Space, owner string, entries int, size int64) {
	t.Helper()
	n, b, err := s.Held(bg, sp, owner)
	if err != nil || n != entries || b != size {
		t.Errorf("%s holds %d answers, %d bytes (%v) in %s; want %d, %d", owner, n, b, err, sp.Name, entries, size)
	}
}
