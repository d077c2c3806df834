package idempotency

import (
	"sync"
	"time"

	"github.com/judgeworks/judge/internal/perkey"
)

// memory is the in-process store: running claims in a map, answers in a
// perkey.Memory, bounded per API key. Claims are never evicted (a request
// in flight must keep its key) and cannot pile up: each one ends when its
// request does, so there are at most as many as requests in flight.
type memory struct {
	mu      sync.Mutex
	running map[string]runClaim
	answers *perkey.Memory
}

type runClaim struct{ fp, token string }

func newMemory(answers *perkey.Memory) *memory {
	return &memory{running: map[string]runClaim{}, answers: answers}
}

// lookup reports what is held under the owner's key without claiming it;
// found is false when nothing is.
func (m *memory) lookup(owner, key, fp string) (out Outcome, a Answer, found bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lookupLocked(owner, key, fp)
}

func (m *memory) lookupLocked(owner, key, fp string) (Outcome, Answer, bool) {
	if v, ok := m.answers.Get(owner, key); ok {
		storedFP, a, _, err := decode(v)
		switch {
		case err != nil:
			m.answers.Delete(owner, key)
		case storedFP != fp:
			return Reused, Answer{}, true
		default:
			return Replay, a, true
		}
	}
	if r, ok := m.running[key]; ok {
		if r.fp != fp {
			return Reused, Answer{}, true
		}
		return InUse, Answer{}, true
	}
	return Started, Answer{}, false
}

func (m *memory) begin(c *Claim) (Outcome, Answer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if out, a, found := m.lookupLocked(c.owner, c.key, c.fp); found {
		return out, a
	}
	m.running[c.key] = runClaim{fp: c.fp, token: c.token}
	return Started, Answer{}
}

// finish stores the answer val of claim c, if c still holds its key. An
// answer too large to keep frees the key.
func (m *memory) finish(c *Claim, val []byte, ttl time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.running[c.key]; !ok || r.token != c.token {
		return
	}
	delete(m.running, c.key)
	m.answers.Put(c.owner, c.key, val, ttl)
}

func (m *memory) release(key, token string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.running[key]; ok && r.token == token {
		delete(m.running, key)
	}
}
