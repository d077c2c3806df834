// Package perkey holds answers stored for API keys, bounded per key: the
// answers of Idempotency-Key requests (judge/internal/idempotency) and of
// the answer cache (judge/internal/cache). One rule for both, in process
// (Memory) and in Redis (Redis):
//
//   - every entry belongs to an owner (an API key's id, or one shared owner)
//     and an owner's entries are bounded by Limits; storing past them
//     evicts that owner's own least recently stored entries, never anyone
//     else's;
//   - the size counted is the size of what is stored: the value's bytes as
//     they are kept, plus its name and a fixed overhead per entry;
//   - an entry larger than a quarter of an owner's bytes is not stored.
//
// The whole is bounded by the per-key bound times the keys, a set the
// configuration bounds. In process a total bound backs this up for a key
// set that grows while the process runs (keys added, revoked ones'
// answers not yet expired): past it the owner holding the most yields.
package perkey

import "time"

// Limits bound the entries of one owner, or of a whole store.
type Limits struct {
	Entries int
	Bytes   int64
}

// Defaults: what one API key may keep in one store, and what one process
// keeps at most in one store.
var (
	DefaultPerKey = Limits{Entries: 1_000, Bytes: 8 << 20}
	DefaultTotal  = Limits{Entries: 10_000, Bytes: 64 << 20}
)

// entryOverhead is what an entry costs beyond its name and value: the
// bookkeeping of the map, the list or Redis's own key.
const entryOverhead = 96

// Size is what an entry named slot holding val counts against its owner.
func Size(slot string, val []byte) int64 {
	return int64(len(slot)+len(val)) + entryOverhead
}

// Fits reports whether an entry of size may be stored under l at all.
func (l Limits) Fits(size int64) bool { return size <= l.Bytes/4 }

// orDefault fills zero fields of l from def.
func (l Limits) orDefault(def Limits) Limits {
	if l.Entries <= 0 {
		l.Entries = def.Entries
	}
	if l.Bytes <= 0 {
		l.Bytes = def.Bytes
	}
	return l
}

// clock is time.Now, replaced in tests.
type clock func() time.Time
