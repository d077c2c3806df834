package memory

import (
	"bytes"
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/judgeworks/judge/internal/perkey"
	"github.com/judgeworks/judge/internal/store"
)

// answers are the slots of every space, each space on a shelf of its own.
type answers struct {
	mu     sync.Mutex
	spaces map[string]*shelf
}

// shelf is one space: its slots, and its answers by owner, each owner's in
// a list ordered by last use, evicted oldest first past the space's
// bounds. Claims are in slots only: they count against no one and are
// never evicted (a request in flight must keep its slot), and they cannot
// pile up, since each ends when its request does.
type shelf struct {
	slots   map[string]*entry
	owners  map[string]*owner
	entries int // answers, not claims
	bytes   int64
}

type owner struct {
	name  string
	order *list.List // of *entry; front = most recently used
	bytes int64
}

// entry is an answer or a claim. val is the caller's slice, kept and
// returned as it is: neither side changes it afterwards.
type entry struct {
	slot    string
	val     []byte
	size    int64
	expires time.Time
	owner   *owner // nil for a claim
	el      *list.Element
}

// shelf is sp's shelf, made when first asked for. The caller holds a.mu.
func (a *answers) shelf(sp store.Space) *shelf {
	sh := a.spaces[sp.Name]
	if sh == nil {
		sh = &shelf{slots: map[string]*entry{}, owners: map[string]*owner{}}
		a.spaces[sp.Name] = sh
	}
	return sh
}

// live is the entry in slot, nil when there is none or its time is up (an
// entry whose time is up is removed).
func (sh *shelf) live(slot string, now time.Time) *entry {
	e := sh.slots[slot]
	if e != nil && !now.Before(e.expires) {
		sh.remove(e)
		return nil
	}
	return e
}

func (sh *shelf) remove(e *entry) {
	delete(sh.slots, e.slot)
	o := e.owner
	if o == nil {
		return
	}
	o.order.Remove(e.el)
	o.bytes -= e.size
	sh.entries--
	sh.bytes -= e.size
	if o.order.Len() == 0 {
		delete(sh.owners, o.name)
	}
}

func (m *Store) Get(_ context.Context, sp store.Space, slot string) ([]byte, bool, error) {
	m.answers.mu.Lock()
	defer m.answers.mu.Unlock()
	sh := m.answers.shelf(sp)
	e := sh.live(slot, m.now())
	if e == nil {
		return nil, false, nil
	}
	if e.owner != nil {
		e.owner.order.MoveToFront(e.el)
	}
	return e.val, true, nil
}

func (m *Store) Put(_ context.Context, sp store.Space, ownerName, slot string, val []byte, ttl time.Duration, ifHolds []byte) (bool, error) {
	perOwner, total := sp.Bounds()
	size := perkey.Size(slot, val)
	if !perOwner.Fits(size) {
		return false, nil
	}
	m.answers.mu.Lock()
	defer m.answers.mu.Unlock()
	sh := m.answers.shelf(sp)
	now := m.now()
	if e := sh.live(slot, now); e != nil {
		if ifHolds != nil && !bytes.Equal(e.val, ifHolds) {
			return false, nil
		}
		sh.remove(e)
	}
	o := sh.owners[ownerName]
	if o == nil {
		o = &owner{name: ownerName, order: list.New()}
		sh.owners[ownerName] = o
	}
	e := &entry{slot: slot, val: val, size: size, expires: now.Add(ttl), owner: o}
	e.el = o.order.PushFront(e)
	sh.slots[slot] = e
	o.bytes += size
	sh.entries++
	sh.bytes += size
	// The owner's own bound first: its entries make room for its entry,
	// those whose time is up before any other.
	over := func() bool { return o.order.Len() > perOwner.Entries || o.bytes > perOwner.Bytes }
	if over() {
		sh.dropExpired(o, now)
	}
	for over() {
		sh.remove(o.order.Back().Value.(*entry))
	}
	// The total holds only while more owners hold entries than it has
	// room for at their own bound; then the largest holder yields, so an
	// owner at or under its fair share is never evicted by another.
	for sh.entries > total.Entries || sh.bytes > total.Bytes {
		big := o
		for _, other := range sh.owners {
			if other.bytes > big.bytes || (other.bytes == big.bytes && other.order.Len() > big.order.Len()) {
				big = other
			}
		}
		sh.remove(big.order.Back().Value.(*entry))
	}
	return true, nil
}

// dropExpired removes o's entries whose time is up.
func (sh *shelf) dropExpired(o *owner, now time.Time) {
	for el := o.order.Front(); el != nil; {
		e := el.Value.(*entry)
		el = el.Next()
		if !now.Before(e.expires) {
			sh.remove(e)
		}
	}
}

func (m *Store) Claim(_ context.Context, sp store.Space, slot string, claim []byte, ttl time.Duration) ([]byte, bool, error) {
	m.answers.mu.Lock()
	defer m.answers.mu.Unlock()
	sh := m.answers.shelf(sp)
	now := m.now()
	if e := sh.live(slot, now); e != nil {
		return e.val, false, nil
	}
	sh.slots[slot] = &entry{slot: slot, val: claim, expires: now.Add(ttl)}
	return nil, true, nil
}

func (m *Store) Release(_ context.Context, sp store.Space, slot string, claim []byte) error {
	m.answers.mu.Lock()
	defer m.answers.mu.Unlock()
	sh := m.answers.shelf(sp)
	if e := sh.live(slot, m.now()); e != nil && bytes.Equal(e.val, claim) {
		sh.remove(e)
	}
	return nil
}

func (m *Store) Held(_ context.Context, sp store.Space, ownerName string) (int, int64, error) {
	m.answers.mu.Lock()
	defer m.answers.mu.Unlock()
	sh := m.answers.shelf(sp)
	o := sh.owners[ownerName]
	if o == nil {
		return 0, 0, nil
	}
	sh.dropExpired(o, m.now())
	return o.order.Len(), o.bytes, nil
}

// Totals are what all owners' answers in sp count together: entries and
// bytes.
func (m *Store) Totals(sp store.Space) (entries int, bytes int64) {
	m.answers.mu.Lock()
	defer m.answers.mu.Unlock()
	sh := m.answers.shelf(sp)
	return sh.entries, sh.bytes
}
