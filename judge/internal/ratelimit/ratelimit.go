// Package ratelimit holds the per-key token buckets of the judge.
package ratelimit

import (
	"math"
	"time"

	"golang.org/x/time/rate"
)

// MaxBurst is the bucket size. A client with eight concurrent workers starts
// with eight requests at once and then settles to the refill rate; a bucket
// of ten lets that opening wave through with two to spare for a retry,
// while keeping the most a key can send above its rate to ten requests.
const MaxBurst = 10

// Limiter holds one token bucket per key. Buckets are created up front for
// the configured keys only, so memory is bounded by the configuration and
// never grows with traffic or with unknown keys.
type Limiter struct {
	buckets map[int]*rate.Limiter
	now     func() time.Time
}

// New returns a limiter allowing rpm requests per minute to each key id,
// with a burst of MaxBurst, or rpm itself when that is smaller so that a low
// limit is never exceeded within its first minute by more than the limit.
func New(rpm int, ids []int) *Limiter {
	burst := min(MaxBurst, max(rpm, 1))
	l := &Limiter{buckets: make(map[int]*rate.Limiter, len(ids)), now: time.Now}
	for _, id := range ids {
		l.buckets[id] = rate.NewLimiter(rate.Limit(float64(rpm)/60), burst)
	}
	return l
}

// Allow takes a token from id's bucket. When the bucket is empty it takes
// nothing and reports how long until a token will be there.
func (l *Limiter) Allow(id int) (ok bool, retryAfter time.Duration) {
	b, known := l.buckets[id]
	if !known {
		// Only configured keys reach here; refusing is the safe answer.
		return false, time.Minute
	}
	// AllowN takes a token only when one is there, atomically. (Reserving
	// and then cancelling a refused reservation loses capacity when other
	// requests reserve in between: rate.Reservation.Cancel restores only
	// what later reservations have not built on.)
	now := l.now()
	if b.AllowN(now, 1) {
		return true, 0
	}
	// The wait until the next whole token, read after the refusal; a
	// concurrent request may take that token first, which only means the
	// client is refused again and told a fresh wait.
	if b.Limit() <= 0 {
		return false, time.Minute
	}
	missing := min(max(1-b.TokensAt(now), 0), 1)
	if missing == 0 {
		missing = 1 // raced with a refill that another request took
	}
	return false, time.Duration(math.Ceil(missing / float64(b.Limit()) * float64(time.Second)))
}
