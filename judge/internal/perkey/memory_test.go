package perkey

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

func TestMemoryBoundsPerKey(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	m := NewMemory(Limits{Entries: 3, Bytes: 1 << 20}, Limits{})
	m.now = func() time.Time { return now }
	for i := range 5 {
		m.Put("a", fmt.Sprint(i), []byte("x"), time.Hour)
	}
	if n, _ := m.Usage("a"); n != 3 {
		t.Fatalf("%d entries kept, want the bound 3", n)
	}
	// In a fixed order, since each Get counts as a use: afterwards "3" is
	// the least recently used and "4" newer.
	for i, want := range []bool{false, false, true, true, true} {
		if _, found := m.Get("a", fmt.Sprint(i)); found != want {
			t.Errorf("entry %d kept = %v, want %v (oldest evicted first)", i, found, want)
		}
	}
	m.Get("a", "2")
	m.Put("a", "5", []byte("x"), time.Hour)
	if _, found := m.Get("a", "3"); found {
		t.Error("the least recently used entry survived")
	}
	if _, found := m.Get("a", "2"); !found {
		t.Error("a recently used entry was evicted")
	}

	// The byte bound counts the slot, the value and the overhead.
	m = NewMemory(Limits{Entries: 100, Bytes: 2000}, Limits{})
	val := bytes.Repeat([]byte("b"), 200)
	for i := range 20 {
		if !m.Put("a", fmt.Sprint(i), val, time.Hour) {
			t.Fatalf("a %d-byte entry refused under a 2000-byte bound", Size("x", val))
		}
	}
	n, size := m.Usage("a")
	if size > 2000 || n != int(2000/Size("10", val)) {
		t.Errorf("%d entries of %d bytes kept, want as many as fit in 2000", n, size)
	}
	if m.Put("a", "big", make([]byte, 501), time.Hour) {
		t.Error("an entry over a quarter of the bound was stored")
	}

	// Expiry.
	m.now = func() time.Time { return now }
	m.Put("a", "short", []byte("x"), time.Minute)
	now = now.Add(time.Minute + time.Second)
	if _, found := m.Get("a", "short"); found {
		t.Error("an expired entry was returned")
	}
	m.Delete("a", "19")
	if _, found := m.Get("a", "19"); found {
		t.Error("a deleted entry was returned")
	}
}

// TestMemoryOwnersApart: however much one owner stores, another's entries
// stay; past the total, the largest holder yields, never one within its
// fair share.
func TestMemoryOwnersApart(t *testing.T) {
	m := NewMemory(Limits{Entries: 10, Bytes: 1 << 20}, Limits{Entries: 25, Bytes: 1 << 20})
	for i := range 5 {
		m.Put("small", fmt.Sprint(i), []byte("x"), time.Hour)
	}
	for i := range 1000 {
		m.Put("flood", fmt.Sprint(i), []byte("x"), time.Hour)
	}
	if n, _ := m.Usage("small"); n != 5 {
		t.Errorf("the small owner keeps %d of its 5 entries", n)
	}
	if n, _ := m.Usage("flood"); n != 10 {
		t.Errorf("the flooding owner keeps %d entries, want its bound 10", n)
	}
	// Three owners at their bound of 10 overflow the total of 25: the
	// largest holders yield, the small one keeps everything.
	for i := range 10 {
		m.Put("third", fmt.Sprint(i), []byte("x"), time.Hour)
	}
	if n, _ := m.Totals(); n > 25 {
		t.Errorf("%d entries in all, over the total of 25", n)
	}
	if n, _ := m.Usage("small"); n != 5 {
		t.Errorf("the small owner keeps %d of its 5 entries after the total was reached", n)
	}
	// Owners' counts add up to the total.
	a, _ := m.Usage("flood")
	b, _ := m.Usage("third")
	if all, _ := m.Totals(); a+b+5 != all {
		t.Errorf("owners hold %d+%d+5, the store says %d", a, b, all)
	}
}

// TestMemoryReplaceCountsOnce: storing a slot again replaces it.
func TestMemoryReplaceCountsOnce(t *testing.T) {
	m := NewMemory(Limits{}, Limits{})
	m.Put("a", "s", []byte("one"), time.Hour)
	m.Put("a", "s", []byte("three"), time.Hour)
	n, size := m.Usage("a")
	if v, _ := m.Get("a", "s"); n != 1 || size != Size("s", []byte("three")) || string(v) != "three" {
		t.Errorf("after a replace: %d entries, %d bytes, %q", n, size, v)
	}
}
