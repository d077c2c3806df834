package perkey

import (
	"container/list"
	"sync"
	"time"
)

// Memory is the in-process store: each owner's entries in a list ordered
// by last use, evicted oldest first past the owner's Limits. It is safe
// for concurrent use.
type Memory struct {
	mu      sync.Mutex
	perKey  Limits
	total   Limits
	owners  map[string]*owner
	entries int
	bytes   int64
	now     clock
}

type owner struct {
	name  string
	slots map[string]*list.Element // of *entry
	order *list.List               // front = most recently used
	bytes int64
}

type entry struct {
	slot    string
	val     []byte
	size    int64
	expires time.Time
}

// NewMemory returns a store bounding each owner by perKey and the whole by
// total (zero fields: the defaults). total is raised to perKey where it is
// smaller, so that one owner can always hold its own bound.
func NewMemory(perKey, total Limits) *Memory {
	perKey = perKey.orDefault(DefaultPerKey)
	total = total.orDefault(DefaultTotal)
	total.Entries = max(total.Entries, perKey.Entries)
	total.Bytes = max(total.Bytes, perKey.Bytes)
	return &Memory{perKey: perKey, total: total, owners: map[string]*owner{}, now: time.Now}
}

// PerKey is the bound of one owner.
func (m *Memory) PerKey() Limits { return m.perKey }

// Get returns the live value of the owner's slot and counts it as a use.
func (m *Memory) Get(ownerName, slot string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.owners[ownerName]
	if !ok {
		return nil, false
	}
	el, ok := o.slots[slot]
	if !ok {
		return nil, false
	}
	e := el.Value.(*entry)
	if !m.now().Before(e.expires) {
		m.remove(o, el)
		return nil, false
	}
	o.order.MoveToFront(el)
	return e.val, true
}

// Put stores val in the owner's slot for ttl, replacing what the slot
// held, and evicts past the bounds. It reports false, storing nothing, for
// a value too large to keep (Limits.Fits).
func (m *Memory) Put(ownerName, slot string, val []byte, ttl time.Duration) bool {
	size := Size(slot, val)
	if !m.perKey.Fits(size) {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.owners[ownerName]
	if ok {
		if el, ok := o.slots[slot]; ok {
			m.remove(o, el)
		}
	}
	// The removal may have dropped the owner.
	if o, ok = m.owners[ownerName]; !ok {
		o = &owner{name: ownerName, slots: map[string]*list.Element{}, order: list.New()}
		m.owners[ownerName] = o
	}
	o.slots[slot] = o.order.PushFront(&entry{slot: slot, val: val, size: size, expires: m.now().Add(ttl)})
	o.bytes += size
	m.entries++
	m.bytes += size
	// The owner's own bound first: its entries make room for its entry.
	for o.order.Len() > m.perKey.Entries || o.bytes > m.perKey.Bytes {
		m.remove(o, o.order.Back())
	}
	// The total holds only while more owners hold entries than it has
	// room for at their own bound; then the largest holder yields, so an
	// owner at or under its fair share is never evicted by another.
	for m.entries > m.total.Entries || m.bytes > m.total.Bytes {
		big := o
		for _, other := range m.owners {
			if other.bytes > big.bytes || (other.bytes == big.bytes && other.order.Len() > big.order.Len()) {
				big = other
			}
		}
		m.remove(big, big.order.Back())
	}
	return true
}

// Delete removes the owner's slot.
func (m *Memory) Delete(ownerName, slot string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o, ok := m.owners[ownerName]; ok {
		if el, ok := o.slots[slot]; ok {
			m.remove(o, el)
		}
	}
}

func (m *Memory) remove(o *owner, el *list.Element) {
	e := el.Value.(*entry)
	o.order.Remove(el)
	delete(o.slots, e.slot)
	o.bytes -= e.size
	m.entries--
	m.bytes -= e.size
	if o.order.Len() == 0 {
		delete(m.owners, o.name)
	}
}

// Usage reports what the owner holds: entries and counted bytes.
func (m *Memory) Usage(ownerName string) (entries int, bytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o, ok := m.owners[ownerName]; ok {
		return o.order.Len(), o.bytes
	}
	return 0, 0
}

// Totals reports what the whole store holds.
func (m *Memory) Totals() (entries int, bytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.entries, m.bytes
}
