package memory

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/judgeworks/judge/internal/store"
)

// buckets hold, for every bucket not full, when it will be full again:
// nanoseconds since the store's epoch. A full bucket holds nothing.
type buckets struct {
	mu   sync.Mutex
	full map[string]float64
	// sweepAt is the size at which full buckets are next dropped.
	sweepAt int
}

// minSweep is the fewest buckets worth sweeping for.
const minSweep = 1024

// Take decides by the arithmetic of the redis driver's GCRA script, so
// a replica that falls back to its own buckets decides as Redis would:
// a bucket of r refills one unit every interval; taking n moves the time
// it is full again n intervals later, and is refused when that would be
// more than a whole burst from now.
func (m *Store) Take(_ context.Context, name string, r store.Rate, n int) (store.Taken, error) {
	now := float64(m.now().Sub(m.epoch))
	interval := float64(time.Minute) / float64(r.PerMinute)
	burst := interval * float64(r.Burst)
	b := &m.buckets
	b.mu.Lock()
	defer b.mu.Unlock()
	wait := max(b.full[name]-now, 0) // until full, before this take
	after := wait + interval*float64(n)
	ahead := burst - after
	if ahead < 0 {
		return store.Taken{Remaining: units(burst-wait, interval), RetryAfter: ceil(-ahead), ResetAfter: ceil(wait)}, nil
	}
	if n > 0 {
		b.full[name] = now + after
		b.sweep(now)
	}
	return store.Taken{Allowed: true, Remaining: units(ahead, interval), ResetAfter: ceil(after)}, nil
}

// sweep drops the buckets that are full again once there are twice as
// many as after the last sweep, so the map holds about the buckets in use
// and costs nothing per take. The caller holds b.mu.
func (b *buckets) sweep(now float64) {
	if len(b.full) < b.sweepAt {
		return
	}
	for name, full := range b.full {
		if full <= now {
			delete(b.full, name)
		}
	}
	b.sweepAt = max(2*len(b.full), minSweep)
}

// units are the whole units d nanoseconds of refill make. The small
// allowance keeps a figure of exactly k units from reading as k−1 through
// floating-point rounding.
func units(d, interval float64) int {
	return int(max(math.Floor(d/interval+1e-9), 0))
}

// ceil is d nanoseconds rounded up, so a caller that waits it finds what it
// waited for.
func ceil(d float64) time.Duration {
	return time.Duration(math.Ceil(d))
}
