// Package keep holds the judge's one rule for keeping what is worked out
// of a question alone (its token count, what an engine makes of it):
// clients ask the same questions of many states, so a question worked out
// once is looked up after. What is kept is bounded, whatever callers
// send: by entries, by the bytes of one key, and by the bytes of all
// entries as their users size them. When a new entry would pass a bound,
// everything kept is forgotten at once and kept again from the next
// request: a question asked often comes back within a request, and
// nothing has to track which entries are old.
package keep

import "sync"

// Bounds of a Map.
type Bounds struct {
	// Entries is the most entries kept at once; at least 1.
	Entries int
	// KeyBytes is the longest key kept: a longer one is worked out on
	// every call, never looked up.
	KeyBytes int
	// Bytes bounds the sizes of all entries kept at once, each as given
	// to Get or Keep; zero means entries and KeyBytes alone bound them.
	Bytes int
}

// Map keeps values by byte keys, within its Bounds. It is safe for
// concurrent use; a value, once kept, is shared by every caller and must
// not be changed.
type Map[V any] struct {
	bounds Bounds
	mu     sync.RWMutex
	m      map[string]V
	bytes  int
}

// New returns an empty Map within b.
func New[V any](b Bounds) *Map[V] {
	if b.Entries < 1 || b.KeyBytes < 0 || b.Bytes < 0 {
		panic("keep: bounds must be positive")
	}
	return &Map[V]{bounds: b, m: map[string]V{}}
}

// Get returns the value kept by key, or else what work returns, kept by a
// copy of key when it fits. work also returns the value's size, counted
// against Bounds.Bytes. Neither key nor work is retained.
func (k *Map[V]) Get(key []byte, work func() (v V, size int)) V {
	if v, ok := k.Lookup(key); ok {
		return v
	}
	v, size := work()
	k.Keep(key, v, size)
	return v
}

// Lookup returns the value kept by key. It allocates nothing.
func (k *Map[V]) Lookup(key []byte) (V, bool) {
	if len(key) > k.bounds.KeyBytes {
		var zero V
		return zero, false
	}
	k.mu.RLock()
	// string(key) in a map index copies nothing.
	v, ok := k.m[string(key)]
	k.mu.RUnlock()
	return v, ok
}

// Keep keeps v by a copy of key, forgetting everything kept first when v
// would pass a bound. A key longer than Bounds.KeyBytes, or a value larger
// than Bounds.Bytes alone, is not kept and forgets nothing; a key kept
// meanwhile by another caller keeps its value.
func (k *Map[V]) Keep(key []byte, v V, size int) {
	b := k.bounds
	if len(key) > b.KeyBytes || b.Bytes > 0 && size > b.Bytes {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.m[string(key)]; ok {
		// Worked out twice at once: both are the same, and the bytes are
		// counted once.
		return
	}
	if len(k.m) >= b.Entries || b.Bytes > 0 && k.bytes+size > b.Bytes {
		clear(k.m)
		k.bytes = 0
	}
	k.m[string(key)] = v
	k.bytes += size
}
