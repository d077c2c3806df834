// Package perkey is the rule that bounds the answers the judge stores for
// API keys: the answers of Idempotency-Key requests
// (judge/internal/idempotency) and of the answer cache
// (judge/internal/cache). Every store driver applies it
// (judge/internal/store, store.Answers), in process and in Redis alike:
//
//   - every entry belongs to an owner (an API key's id, or one shared owner)
//     and an owner's entries are bounded by Limits; storing past them
//     evicts that owner's own oldest entries, never anyone else's;
//   - the size counted is the size of what is stored (Size): the value's
//     bytes as they are kept, plus its name and a fixed overhead per entry;
//   - an entry larger than a quarter of an owner's bytes is not stored
//     (Limits.Fits).
//
// The whole is bounded by the per-key bound times the keys, a set the
// configuration bounds. In process a total bound backs this up for a key
// set that grows while the process runs (keys added, revoked ones'
// answers not yet expired): past it the owner holding the most yields.
package perkey

// Limits bound the entries of one owner, or of a whole store.
type Limits struct {
	Entries int
	Bytes   int64
}

// Defaults: what one API key may keep in one use of the store, and what
// one process keeps at most for one use.
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

// Or is l with its zero fields taken from def.
func (l Limits) Or(def Limits) Limits {
	if l.Entries <= 0 {
		l.Entries = def.Entries
	}
	if l.Bytes <= 0 {
		l.Bytes = def.Bytes
	}
	return l
}
