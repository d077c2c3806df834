package redis

import (
	"context"
	"math"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/judgeworks/judge/internal/store"
)

// Take decides with redis_rate: GCRA in one Lua script, so a decision
// reads and updates a bucket atomically across replicas, by Redis's clock
// (TIME), so replicas' clocks need not agree.
func (r *Store) Take(ctx context.Context, name string, rt store.Rate, n int) (store.Taken, error) {
	ctx, cancel := call(ctx, r.bucketTimeout)
	defer cancel()
	res, err := r.rate.AllowN(ctx, r.prefix+name, redis_rate.Limit{Rate: rt.PerMinute, Burst: rt.Burst, Period: time.Minute}, n)
	if err != nil {
		return store.Taken{}, err
	}
	t := store.Taken{Allowed: n == 0 || res.Allowed > 0, Remaining: max(res.Remaining, 0), ResetAfter: max(res.ResetAfter, 0)}
	if !t.Allowed {
		t.RetryAfter = max(res.RetryAfter, time.Nanosecond)
		// The script answers nothing left on a refusal; the bucket holds
		// its burst less what it lacks of being full.
		interval := float64(time.Minute) / float64(rt.PerMinute)
		t.Remaining = int(max(math.Floor(float64(rt.Burst)-float64(t.ResetAfter)/interval+1e-9), 0))
	}
	return t, nil
}
