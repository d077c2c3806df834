package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/store"
)

// Shapes the bucket laws use. perMinute refills one unit a minute, so a
// law that takes from it sees no refill unless the machine stalls for a
// minute; fast refills one every 125 ms. Their intervals and bursts are
// whole binary fractions of a second, which Redis's script (seconds as
// floating point) holds exactly, so figures are exact in every driver.
var (
	perMinute = func(burst int) store.Rate { return store.Rate{PerMinute: 1, Burst: burst} }
	fast      = store.Rate{PerMinute: 480, Burst: 2}
)

// slack is what Redis's script may add to a wait: it keeps a bucket's
// time to 14 digits, ten microseconds.
const slack = time.Millisecond

// buckets are the laws of store.Buckets.
var buckets = []law{
	{"a bucket never taken from is full, and a look takes nothing", func(t *testing.T, s store.Store) {
		r := store.Rate{PerMinute: 60, Burst: 10}
		for range 2 {
			if got := take(t, s, "b", r, 0); !got.Allowed || got.Remaining != 10 || got.ResetAfter != 0 || got.RetryAfter != 0 {
				t.Errorf("a look at a full bucket: %+v, want allowed, 10 left, full now", got)
			}
		}
	}},
	{"a burst is taken at once, then refused with the wait for one unit", func(t *testing.T, s store.Store) {
		r := perMinute(5)
		for i := range 5 {
			got := take(t, s, "b", r, 1)
			if !got.Allowed || got.Remaining != 4-i || got.ResetAfter <= time.Duration(i)*time.Minute || got.ResetAfter > time.Duration(i+1)*time.Minute+slack {
				t.Errorf("take %d of a burst of 5: %+v, want allowed, %d left, full within %d minutes", i+1, got, 4-i, i+1)
			}
		}
		got := take(t, s, "b", r, 1)
		if got.Allowed || got.Remaining != 0 || got.RetryAfter <= 59*time.Second || got.RetryAfter > time.Minute+slack ||
			got.ResetAfter <= 4*time.Minute || got.ResetAfter > 5*time.Minute+slack {
			t.Errorf("a sixth take: %+v, want refused, nothing left, a unit in about a minute, full in about five", got)
		}
	}},
	{"a take is all or nothing, and a refusal takes nothing", func(t *testing.T, s store.Store) {
		r := perMinute(100)
		if got := take(t, s, "b", r, 70); !got.Allowed || got.Remaining != 30 {
			t.Fatalf("70 of 100: %+v", got)
		}
		got := take(t, s, "b", r, 50)
		if got.Allowed || got.Remaining != 30 || got.RetryAfter <= 19*time.Minute || got.RetryAfter > 20*time.Minute+slack {
			t.Errorf("50 with 30 left: %+v, want refused, saying 30 are left and 20 more come in 20 minutes", got)
		}
		if got := take(t, s, "b", r, 0); got.Remaining != 30 {
			t.Errorf("after the refusal %d are left, want 30", got.Remaining)
		}
		if got := take(t, s, "b", r, 30); !got.Allowed || got.Remaining != 0 {
			t.Errorf("the 30 left: %+v", got)
		}
	}},
	{"refusals do not push the next unit away", func(t *testing.T, s store.Store) {
		take(t, s, "b", fast, 2)
		var last store.Taken
		for range 100 {
			if last = take(t, s, "b", fast, 1); last.Allowed {
				t.Fatalf("a take of an emptied bucket: %+v", last)
			}
		}
		// Had each refusal taken its unit, the next would be 12.5 s away.
		time.Sleep(last.RetryAfter + slack)
		if got := take(t, s, "b", fast, 1); !got.Allowed {
			t.Errorf("after the wait the last refusal named (%v): %+v, want allowed", last.RetryAfter, got)
		}
	}},
	{"a bucket refills at its rate, and never past its burst", func(t *testing.T, s store.Store) {
		take(t, s, "b", fast, 2)
		time.Sleep(260 * time.Millisecond) // two units at 8 a second
		for i := range 2 {
			if got := take(t, s, "b", fast, 1); !got.Allowed {
				t.Errorf("take %d after 260 ms: %+v, want allowed", i+1, got)
			}
		}
		time.Sleep(500 * time.Millisecond) // four units' worth
		if got := take(t, s, "b", fast, 0); got.Remaining != 2 || got.ResetAfter != 0 {
			t.Errorf("after 500 ms: %+v, want full at its burst of 2", got)
		}
	}},
	{"buckets are apart by name", func(t *testing.T, s store.Store) {
		take(t, s, "a", perMinute(3), 3)
		if got := take(t, s, "a", perMinute(3), 1); got.Allowed {
			t.Errorf("an emptied bucket: %+v", got)
		}
		if got := take(t, s, "b", perMinute(3), 3); !got.Allowed {
			t.Errorf("another bucket: %+v, want its whole burst", got)
		}
	}},
	{"a bucket reshaped keeps the share of its burst it has used", func(t *testing.T, s store.Store) {
		take(t, s, "b", perMinute(100), 50)
		if got := take(t, s, "b", store.Rate{PerMinute: 2, Burst: 200}, 0); got.Remaining != 100 {
			t.Errorf("half used at twice the size: %+v, want 100 left", got)
		}
		if got := take(t, s, "b", perMinute(50), 0); got.Remaining != 0 {
			t.Errorf("50 used at a burst of 50: %+v, want empty", got)
		}
	}},
	{"takes at once never pass the burst", func(t *testing.T, s store.Store) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		admitted := 0
		for range 40 {
			wg.Go(func() {
				got, err := s.Take(bg, "b", perMinute(15), 1)
				if err != nil {
					t.Error(err)
				}
				if got.Allowed {
					mu.Lock()
					admitted++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if admitted != 15 {
			t.Errorf("%d of 40 takes at once admitted from a burst of 15", admitted)
		}
	}},
}

func take(t *testing.T, s store.Store, name string, r store.Rate, n int) store.Taken {
	t.Helper()
	got, err := s.Take(bg, name, r, n)
	if err != nil {
		t.Fatalf("Take: %v", err)
	}
	return got
}
