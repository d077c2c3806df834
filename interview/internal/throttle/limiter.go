// Package throttle slows down password guessing and mass registration:
// token buckets per client address and per account, kept in memory.
//
// The state is a throttle, not data: a restart forgets it (an attacker
// gains one fresh burst per restart), and each table is bounded, dropping
// the least recently used entries when full.
package throttle

import (
	"container/list"
	"crypto/sha256"
	"sync"
	"time"
)

// Rule is a token bucket: Burst attempts at once, then one per Every.
type Rule struct {
	Burst int
	Every time.Duration
}

// Limiter holds one token bucket per key, at most max of them. A bucket
// that has refilled is the same as no bucket, so dropping the least
// recently used one when full loses the least.
type Limiter struct {
	rule Rule
	max  int
	now  func() time.Time

	mu      sync.Mutex
	order   *list.List // front = most recently used
	buckets map[string]*list.Element
}

type bucket struct {
	key    string
	tokens float64
	at     time.Time
}

// NewLimiter returns a Limiter for rule holding at most max keys; now is
// the clock (nil: time.Now).
func NewLimiter(rule Rule, max int, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{rule: rule, max: max, now: now, order: list.New(), buckets: map[string]*list.Element{}}
}

// Allow takes a token from key's bucket if it has one. Otherwise it takes
// nothing and returns how long until a token will be there.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	key = shorten(key)
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(key)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) * float64(l.rule.Every))
	return false, wait
}

// Refund gives back a token taken by Allow, up to the burst.
func (l *Limiter) Refund(key string) {
	key = shorten(key)
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(key)
	b.tokens = min(b.tokens+1, float64(l.rule.Burst))
}

// Len is the number of keys held.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// get returns key's bucket refilled up to now, creating it full, and marks
// it most recently used. l.mu is held.
func (l *Limiter) get(key string) *bucket {
	now := l.now()
	if el, ok := l.buckets[key]; ok {
		l.order.MoveToFront(el)
		b := el.Value.(*bucket)
		if d := now.Sub(b.at); d > 0 {
			b.tokens = min(float64(l.rule.Burst), b.tokens+float64(d)/float64(l.rule.Every))
			b.at = now
		}
		return b
	}
	if len(l.buckets) >= l.max {
		oldest := l.order.Back()
		l.order.Remove(oldest)
		delete(l.buckets, oldest.Value.(*bucket).key)
	}
	b := &bucket{key: key, tokens: float64(l.rule.Burst), at: now}
	l.buckets[key] = l.order.PushFront(b)
	return b
}

// Seen remembers keys for a while, at most max of them.
type Seen struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu    sync.Mutex
	order *list.List
	at    map[string]*list.Element
}

type seenEntry struct {
	key string
	at  time.Time
}

// NewSeen returns a Seen keeping keys for ttl; now is the clock (nil:
// time.Now).
func NewSeen(ttl time.Duration, max int, now func() time.Time) *Seen {
	if now == nil {
		now = time.Now
	}
	return &Seen{ttl: ttl, max: max, now: now, order: list.New(), at: map[string]*list.Element{}}
}

// Add remembers key from now on.
func (s *Seen) Add(key string) {
	key = shorten(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.at[key]; ok {
		el.Value.(*seenEntry).at = s.now()
		s.order.MoveToFront(el)
		return
	}
	if len(s.at) >= s.max {
		oldest := s.order.Back()
		s.order.Remove(oldest)
		delete(s.at, oldest.Value.(*seenEntry).key)
	}
	s.at[key] = s.order.PushFront(&seenEntry{key: key, at: s.now()})
}

// Has reports whether key was added within the ttl.
func (s *Seen) Has(key string) bool {
	key = shorten(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.at[key]
	return ok && s.now().Sub(el.Value.(*seenEntry).at) < s.ttl
}

// shorten bounds the memory a key costs: keys come from request bodies
// (emails) and may be long, so long ones are kept as their hash.
func shorten(key string) string {
	if len(key) <= 64 {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return string(sum[:])
}
