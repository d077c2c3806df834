package keep

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// entry is one call of Get in a case: a key and the size its work gives.
type entry struct {
	key  string
	size int
}

func entries(n, keyBytes, size int) []entry {
	es := make([]entry, n)
	for i := range es {
		k := fmt.Sprintf("q%d-", i)
		es[i] = entry{k + strings.Repeat("x", max(0, keyBytes-len(k))), size}
	}
	return es
}

// Every bound holds after every call, and when one would be passed the
// map starts again and keeps the new entries.
func TestBounds(t *testing.T) {
	many, long := entries(10, 8, 300), entries(2, 8, 600)
	small := entries(5, 9, 1)
	short, at, over := entry{"short", 1}, entry{strings.Repeat("k", 16), 1}, entry{strings.Repeat("k", 17), 1}
	cases := []struct {
		name   string
		bounds Bounds
		gets   []entry
		// kept is every entry kept at the end.
		kept []entry
	}{
		{"entries", Bounds{Entries: 4, KeyBytes: 64}, many, many[8:]},
		{"entries exactly", Bounds{Entries: 4, KeyBytes: 64}, many[:4], many[:4]},
		{"key bytes", Bounds{Entries: 4, KeyBytes: 16}, []entry{short, over, at}, []entry{short, at}},
		{"bytes", Bounds{Entries: 100, KeyBytes: 64, Bytes: 1000}, many, many[9:]},
		{"bytes exactly", Bounds{Entries: 100, KeyBytes: 64, Bytes: 900}, many[:3], many[:3]},
		{"bytes then entries", Bounds{Entries: 3, KeyBytes: 64, Bytes: 1000}, append(long, small...), small[2:]},
		{"no byte bound", Bounds{Entries: 1000, KeyBytes: 64}, entries(10, 8, 1<<40), entries(10, 8, 1<<40)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := New[string](c.bounds)
			for i, e := range c.gets {
				got := k.Get([]byte(e.key), func() (string, int) { return "v" + e.key, e.size })
				if got != "v"+e.key {
					t.Fatalf("get %d: %q, want %q", i, got, "v"+e.key)
				}
				if len(k.m) > c.bounds.Entries || c.bounds.Bytes > 0 && k.bytes > c.bounds.Bytes {
					t.Fatalf("after get %d: %d entries, %d bytes kept; bounds %+v", i, len(k.m), k.bytes, c.bounds)
				}
				for key := range k.m {
					if len(key) > c.bounds.KeyBytes {
						t.Fatalf("after get %d: a key of %d bytes kept; bound %d", i, len(key), c.bounds.KeyBytes)
					}
				}
			}
			if len(k.m) != len(c.kept) {
				t.Errorf("%d entries kept at the end, want %d", len(k.m), len(c.kept))
			}
			bytes := 0
			for _, e := range c.kept {
				if v, ok := k.Lookup([]byte(e.key)); !ok || v != "v"+e.key {
					t.Errorf("%q: kept %q, %v; want it kept", e.key, v, ok)
				}
				bytes += e.size
			}
			if k.bytes != bytes {
				t.Errorf("%d bytes counted, want %d", k.bytes, bytes)
			}
		})
	}
}

// Get works a value out once while it is kept, and every time when its
// key is too long to keep.
func TestGetWorksOnce(t *testing.T) {
	k := New[int](Bounds{Entries: 8, KeyBytes: 8})
	works := 0
	work := func() (int, int) { works++; return works, 1 }
	for range 3 {
		if v := k.Get([]byte("refund"), work); v != 1 {
			t.Errorf("got %d, want the first value worked out, 1", v)
		}
	}
	for range 3 {
		k.Get([]byte("longer than eight"), work)
	}
	if works != 1+3 {
		t.Errorf("worked out %d times, want once for the kept key and 3 times for the long one", works)
	}
}

// A value larger than every byte bound alone is not kept and forgets
// nothing; a key kept twice keeps its first value and counts its bytes
// once.
func TestKeepOversizeAndTwice(t *testing.T) {
	k := New[string](Bounds{Entries: 8, KeyBytes: 8, Bytes: 100})
	k.Keep([]byte("a"), "first", 10)
	k.Keep([]byte("huge"), "huge", 101)
	if _, ok := k.Lookup([]byte("huge")); ok {
		t.Error("a value larger than the byte bound was kept")
	}
	k.Keep([]byte("a"), "second", 10)
	if v, _ := k.Lookup([]byte("a")); v != "first" || k.bytes != 10 || len(k.m) != 1 {
		t.Errorf("kept %q in %d entries of %d bytes; want the first value alone, 10 bytes", v, len(k.m), k.bytes)
	}
}

// The key is copied when kept: the caller may reuse its buffer.
func TestKeyCopied(t *testing.T) {
	k := New[int](Bounds{Entries: 8, KeyBytes: 8})
	buf := []byte("abc")
	k.Keep(buf, 1, 0)
	copy(buf, "xyz")
	if _, ok := k.Lookup([]byte("abc")); !ok {
		t.Error("the key changed with the caller's buffer")
	}
}

// Looking up, kept or not, and getting a kept value allocate nothing.
func TestLookupAllocatesNothing(t *testing.T) {
	k := New[*int](Bounds{Entries: 8, KeyBytes: 64, Bytes: 1 << 10})
	// Longer than the 32 bytes a copy of a short key could take on the
	// stack, so a copy would show.
	kept, other := []byte("Is the customer asking for a refund, kept?"), []byte("Is the customer asking for a refund, never kept?")
	n := 7
	k.Keep(kept, &n, 10)
	for name, f := range map[string]func(){
		"hit":  func() { k.Lookup(kept) },
		"miss": func() { k.Lookup(other) },
		"get": func() {
			k.Get(kept, func() (*int, int) { return &n, len(kept) })
		},
	} {
		if a := testing.AllocsPerRun(100, f); a != 0 {
			t.Errorf("%s: %v allocations, want none", name, a)
		}
	}
}

// Callers at once, filling the map past its bounds again and again, each
// get the value of their own key (run with -race).
func TestConcurrent(t *testing.T) {
	k := New[string](Bounds{Entries: 16, KeyBytes: 16, Bytes: 400})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			key := make([]byte, 0, 16)
			for n := range 500 {
				key = fmt.Appendf(key[:0], "q%d", (g*31+n)%40)
				want := "v" + string(key)
				if got := k.Get(key, func() (string, int) { return want, 20 }); got != want {
					t.Errorf("got %q, want %q", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	if len(k.m) > 16 || k.bytes > 400 {
		t.Errorf("%d entries, %d bytes kept; bounds 16 and 400", len(k.m), k.bytes)
	}
}
