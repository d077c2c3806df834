package idempotency

import (
	"container/list"
	"sync"
	"time"
)

// memory is the in-process store: running claims in a map, answers in a
// list ordered by last use, evicted oldest first beyond a count or a byte
// total. Claims are never evicted (a request in flight must keep its key)
// and cannot pile up: each one ends when its request does, so there are at
// most as many as requests in flight.
type memory struct {
	mu         sync.Mutex
	running    map[string]runClaim
	answers    map[string]*list.Element // of *stored
	order      *list.List               // front = most recently used
	bytes      int64
	maxEntries int
	maxBytes   int64
	now        func() time.Time
}

type runClaim struct{ fp, token string }

type stored struct {
	key     string
	fp      string
	answer  Answer
	expires time.Time
}

func newMemory(maxEntries int, maxBytes int64, now func() time.Time) *memory {
	return &memory{
		running:    map[string]runClaim{},
		answers:    map[string]*list.Element{},
		order:      list.New(),
		maxEntries: maxEntries,
		maxBytes:   maxBytes,
		now:        now,
	}
}

// lookup reports what is held under key without claiming it; found is
// false when nothing is.
func (m *memory) lookup(key, fp string) (out Outcome, a Answer, found bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lookupLocked(key, fp)
}

func (m *memory) lookupLocked(key, fp string) (Outcome, Answer, bool) {
	if el, ok := m.answers[key]; ok {
		s := el.Value.(*stored)
		if m.now().Before(s.expires) {
			m.order.MoveToFront(el)
			if s.fp != fp {
				return Reused, Answer{}, true
			}
			return Replay, s.answer, true
		}
		m.remove(el)
	}
	if r, ok := m.running[key]; ok {
		if r.fp != fp {
			return Reused, Answer{}, true
		}
		return InUse, Answer{}, true
	}
	return Started, Answer{}, false
}

func (m *memory) begin(key, fp, token string) (Outcome, Answer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if out, a, found := m.lookupLocked(key, fp); found {
		return out, a
	}
	m.running[key] = runClaim{fp: fp, token: token}
	return Started, Answer{}
}

func (m *memory) finish(key, fp, token string, a Answer, ttl time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.running[key]; !ok || r.token != token {
		return
	}
	delete(m.running, key)
	if el, ok := m.answers[key]; ok {
		m.remove(el)
	}
	s := &stored{key: key, fp: fp, answer: a, expires: m.now().Add(ttl)}
	m.answers[key] = m.order.PushFront(s)
	m.bytes += a.size()
	for m.order.Len() > m.maxEntries || m.bytes > m.maxBytes {
		m.remove(m.order.Back())
	}
}

func (m *memory) release(key, token string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.running[key]; ok && r.token == token {
		delete(m.running, key)
	}
}

func (m *memory) remove(el *list.Element) {
	s := el.Value.(*stored)
	m.order.Remove(el)
	delete(m.answers, s.key)
	m.bytes -= s.answer.size()
}

// sizes reports what the store holds, for tests.
func (m *memory) sizes() (running, answers int, bytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.running), m.order.Len(), m.bytes
}
