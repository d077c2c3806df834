package fairqueue

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/shared/proctest"
)

// clock is a fake time source for a Queue, safe for the queue's
// goroutines to read.
type clock struct{ t atomic.Int64 }

func (c *clock) now() time.Duration      { return time.Duration(c.t.Load()) }
func (c *clock) advance(d time.Duration) { c.t.Add(int64(d)) }

// wantIdle fails t unless q holds nothing: no call in flight, none
// pending and no tenant left behind.
func wantIdle(t *testing.T, q *Queue) {
	t.Helper()
	if s := q.Stats(); s.InFlight != 0 || s.Pending != 0 || s.Tenants != 0 {
		t.Fatalf("after the run: %+v", s)
	}
}

func newQueue(cfg Config) (*Queue, *clock) {
	q := New(cfg)
	c := &clock{}
	q.now = c.now
	return q, c
}

func admit(t *testing.T, q *Queue, tenant string, calls int) *Request {
	t.Helper()
	r, err := q.Admit(tenant, calls)
	if err != nil {
		t.Fatalf("Admit(%s, %d): %v", tenant, calls, err)
	}
	return r
}

func acquire(t *testing.T, r *Request) Slot {
	t.Helper()
	s, err := r.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitFor polls until cond holds; the queue's goroutines get there in
// microseconds, the bound is for a busy machine.
func TestTenantContext(t *testing.T) {
	if got := Tenant(context.Background()); got != DefaultTenant {
		t.Fatalf("no tenant: %q, want %q", got, DefaultTenant)
	}
	if got := Tenant(WithTenant(context.Background(), "key#2")); got != "key#2" {
		t.Fatalf("tenant %q", got)
	}
	if got := Tenant(WithTenant(context.Background(), "")); got != DefaultTenant {
		t.Fatalf("empty tenant: %q, want the default", got)
	}
}

// A tenant that queued three calls first gets one slot in two, not the
// next three: the other tenant's call goes second.
func TestRoundRobin(t *testing.T) {
	q, _ := newQueue(Config{Slots: 1, Queue: 100, MaxWait: time.Hour})
	acquire(t, admit(t, q, "w", 1)).Release(Answered) // a measured latency: the estimate admits
	held := acquire(t, admit(t, q, "x", 1))
	type grant struct {
		who  string
		slot Slot
	}
	granted := make(chan grant)
	enqueue := func(who string, r *Request) {
		before := q.Stats().Waiting
		go func() {
			s, err := r.Acquire(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			granted <- grant{who, s}
		}()
		// One at a time, so the order within a tenant is known.
		proctest.WaitFor(t, 20*time.Second, who+" queued", func() bool { return q.Stats().Waiting == before+1 })
	}
	a, b := admit(t, q, "a", 3), admit(t, q, "b", 1)
	for range 3 {
		enqueue("a", a)
	}
	enqueue("b", b)

	held.Release(Answered)
	var order []string
	for range 4 {
		g := <-granted
		order = append(order, g.who)
		g.slot.Release(Answered)
	}
	if got := fmt.Sprint(order); got != "[a b a a]" {
		t.Fatalf("served %s, want [a b a a]", got)
	}
	wantIdle(t, q)
}

func TestLimitAdapts(t *testing.T) {
	q, _ := newQueue(Config{Slots: 4, Queue: 100, MaxWait: time.Hour})
	r := admit(t, q, "a", 6)
	var slots []Slot
	for range 4 {
		slots = append(slots, acquire(t, r))
	}
	granted := make(chan Slot, 2)
	for range 2 {
		go func() {
			s, err := r.Acquire(context.Background())
			if err == nil {
				granted <- s
			}
		}()
	}
	proctest.WaitFor(t, 20*time.Second, "two waiting", func() bool { return q.Stats().Waiting == 2 })
	// A 429 halves the limit: 4 → 2, with 3 still in flight nobody is granted.
	slots[0].Release(Throttled)
	if s := q.Stats(); s.Limit != 2 || s.InFlight != 3 || s.Waiting != 2 {
		t.Fatalf("after 429: %+v", s)
	}
	slots[1].Release(Answered) // limit 3, in flight 2: one granted
	<-granted
	slots[2].Release(Answered) // limit 4, in flight 2: the other granted
	<-granted
	if s := q.Stats(); s.Limit != 4 || s.InFlight != 3 || s.Waiting != 0 {
		t.Fatalf("after recovery: %+v", s)
	}
	for range 10 {
		slots[3].Release(Answered)
		slots[3] = acquire(t, r) // beyond the 6 admitted: a retry, never refused
	}
	if s := q.Stats(); s.Limit != 4 {
		t.Fatalf("limit %d grew past its maximum", s.Limit)
	}
}

// Admission judges each tenant by what round-robin puts ahead of it: a
// tenant with a backlog is refused while a light one is admitted beside
// it; an upstream that stalls raises the estimate before any call returns.
func TestAdmissionIsFair(t *testing.T) {
	q, c := newQueue(Config{Slots: 2, Queue: 100, MaxWait: 2 * time.Second})
	// One answered call of 1 s.
	warm := acquire(t, admit(t, q, "warm", 1))
	c.advance(time.Second)
	warm.Release(Answered)
	if s := q.Stats(); s.Latency != time.Second || s.Tenants != 0 {
		t.Fatalf("after one answer: %+v", s)
	}

	flood := admit(t, q, "flood", 10) // idle: admitted, however many calls
	acquire(t, flood)
	acquire(t, flood) // both slots busy, 8 calls pending

	_, err := q.Admit("flood", 1)
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("flood's next request: %v, want a refusal", err)
	}
	// Its own 8 calls ahead: both slots free in 1 s, then serve two calls a
	// second; its call is the ninth, at 5 s.
	if refused.Ahead != 8 || refused.Wait != 5*time.Second || refused.RetryAfter != 3*time.Second {
		t.Fatalf("refusal %+v, want 8 ahead, 5 s, retry after 3 s", refused)
	}

	// The light tenant has only flood's next call ahead: a slot in 1 s.
	admit(t, q, "light", 1)
	// With one call pending, its next has its own and two of flood's
	// ahead: the second round, 2 s, exactly the wait allowed.
	admit(t, q, "light", 1)
	if s := q.Stats(); s.Pending != 10 || s.Tenants != 2 {
		t.Fatalf("pending %+v, want flood's 8 and light's 2", s)
	}

	// Nothing comes back for 10 s: the calls in flight are that old, so
	// a completion is now estimated at 5 s at least.
	c.advance(10 * time.Second)
	if _, err := q.Admit("other", 1); !errors.As(err, &refused) || refused.Wait < 5*time.Second {
		t.Fatalf("with the upstream stalled: %v, want a refusal estimating at least 5 s", err)
	}
}

// The calls waiting never exceed Queue: a request that would take them
// past it is refused whole, one that never fits says so, and an admitted
// request's calls (and its retries) all get slots.
func TestQueueBound(t *testing.T) {
	q, _ := newQueue(Config{Slots: 1, Queue: 2, MaxWait: time.Hour})
	r := admit(t, q, "a", 3) // 1 in flight + 2 waiting

	_, err := q.Admit("b", 1)
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Waiting != 3 || refused.RetryAfter <= 0 {
		t.Fatalf("a fourth call: %v, want a refusal for room with 3 waiting", err)
	}
	_, err = q.Admit("c", 4)
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Max != 3 {
		t.Fatalf("4 calls with 1 slot and a queue of 2: %v, want TooLargeError", err)
	}
	if s := q.Stats(); s.Pending != 3 || s.Tenants != 1 {
		t.Fatalf("refusals left traces: %+v", s)
	}

	// The 3 admitted calls and 2 retries, all at once: none refused.
	var wg sync.WaitGroup
	var done atomic.Int32
	for range 5 {
		wg.Go(func() {
			s, err := r.Acquire(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
			s.Release(Failed)
			done.Add(1)
		})
	}
	wg.Wait()
	r.Done()
	if n := done.Load(); n != 5 {
		t.Fatalf("%d of 5 calls ran", n)
	}
	wantIdle(t, q)
}

// A call that gives up leaves nothing behind, and Done returns the calls a
// request never asked for.
func TestGivingUpAndDone(t *testing.T) {
	q, _ := newQueue(Config{Slots: 1, Queue: 10, MaxWait: time.Hour})
	r := admit(t, q, "a", 5)
	held := acquire(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := r.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if s := q.Stats(); s.Waiting != 0 || s.Pending != 3 || s.InFlight != 1 {
		t.Fatalf("after giving up: %+v, want 3 reserved and nothing waiting", s)
	}
	r.Done()
	if s := q.Stats(); s.Pending != 0 || s.Tenants != 0 {
		t.Fatalf("after Done: %+v", s)
	}
	held.Release(Failed)
	if s := q.Stats(); s.InFlight != 0 || s.Limit != 1 {
		t.Fatalf("after release: %+v", s)
	}
}

// Many tenants and calls at once, with every outcome and callers giving
// up: the slots are never exceeded and everything is accounted for at the
// end (run with -race).
func TestConcurrentUse(t *testing.T) {
	const slots = 4
	q := New(Config{Slots: slots, Queue: 1000, MaxWait: time.Hour})
	acquire(t, admit(t, q, "w", 1)).Release(Answered) // a measured latency: the estimate admits
	var held, most atomic.Int32
	var wg sync.WaitGroup
	for tn := range 6 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(tn), 1))
			for range 20 {
				n := 1 + rng.IntN(8)
				r, err := q.Admit(fmt.Sprint("t", tn), n)
				if err != nil {
					t.Error(err)
					return
				}
				var calls sync.WaitGroup
				for i := range n + rng.IntN(2) { // sometimes a retry beyond the admitted calls
					patience := time.Duration(1+rng.IntN(3)) * time.Millisecond
					calls.Go(func() {
						ctx := context.Background()
						if i%3 == 0 { // some callers give up
							var cancel context.CancelFunc
							ctx, cancel = context.WithTimeout(ctx, patience)
							defer cancel()
						}
						s, err := r.Acquire(ctx)
						if err != nil {
							return
						}
						h := held.Add(1)
						for m := most.Load(); h > m && !most.CompareAndSwap(m, h); m = most.Load() {
						}
						time.Sleep(100 * time.Microsecond)
						held.Add(-1)
						s.Release(Outcome(i % 3))
					})
				}
				calls.Wait()
				r.Done()
			}
		})
	}
	wg.Wait()
	if m := most.Load(); m > slots {
		t.Fatalf("%d calls held slots at once, more than %d", m, slots)
	}
	if s := q.Stats(); s.InFlight != 0 || s.Pending != 0 || s.Waiting != 0 || s.Tenants != 0 {
		t.Fatalf("after the run: %+v", s)
	}
}

// TestColdQueueAdmitsWhatStartsAtOnce: before any call has been answered,
// the queue admits no more calls than its free slots can start at once,
// whatever MaxWait allows; once a latency is measured, the estimate rules.
func TestColdQueueAdmitsWhatStartsAtOnce(t *testing.T) {
	q := New(Config{Slots: 4, Queue: 100, MaxWait: 10 * time.Second})
	first, err := q.Admit("a", 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Admit("b", 1); err != nil {
		t.Fatalf("the fourth call, which starts at once: %v", err)
	}
	var refused *RefusedError
	if _, err := q.Admit("c", 1); !errors.As(err, &refused) {
		t.Fatalf("a fifth call on a cold queue of 4 slots: %v, want a refusal", err)
	}
	// A call answered: the latency is known and the wait estimate admits.
	s, err := first.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.Release(Answered)
	if _, err := q.Admit("c", 1); err != nil {
		t.Fatalf("after a measured call: %v", err)
	}
}

// TestBurstFinishesTogether: on a warm queue, calls that started together
// free their slots together, a call time after they started, not one by
// one at the average rate: with four 5 s calls just started, a fifth waits
// 5 s and is refused, where the rate of completions (a slot every 1.25 s)
// would admit it. Calls started apart free their slots apart, and the next
// call is admitted once the oldest is within MaxWait of its end.
func TestBurstFinishesTogether(t *testing.T) {
	q, c := newQueue(Config{Slots: 4, Queue: 100, MaxWait: 2 * time.Second})
	first := admit(t, q, "a", 4)
	var slots []Slot
	for range 4 {
		slots = append(slots, acquire(t, first))
	}
	c.advance(5 * time.Second)
	for _, s := range slots {
		s.Release(Answered)
	}

	// A second burst: four requests start at once.
	slots = slots[:0]
	for i := range 4 {
		slots = append(slots, acquire(t, admit(t, q, fmt.Sprint("b", i), 1)))
	}
	_, err := q.Admit("late", 1)
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Wait != 5*time.Second || refused.RetryAfter != 3*time.Second {
		t.Fatalf("a fifth call beside four just started: %v, want a refusal estimating 5 s", err)
	}
	c.advance(3 * time.Second)
	late := admit(t, q, "late", 1) // the burst ends in 2 s: within MaxWait
	c.advance(2 * time.Second)
	for _, s := range slots {
		s.Release(Answered)
	}
	s := acquire(t, late)
	c.advance(5 * time.Second)
	s.Release(Answered)
	wantIdle(t, q)

	// Calls started 1.25 s apart: the oldest frees its slot first.
	slots = slots[:0]
	for i := range 4 {
		slots = append(slots, acquire(t, admit(t, q, fmt.Sprint("c", i), 1)))
		c.advance(1250 * time.Millisecond)
	}
	// Now 5 s after the first started: the next slot frees at once, the
	// one after in 1.25 s, the third in 2.5 s.
	admit(t, q, "d0", 1)
	admit(t, q, "d1", 1)
	if _, err := q.Admit("d2", 1); !errors.As(err, &refused) || refused.Ahead != 2 || refused.Wait != 2500*time.Millisecond {
		t.Fatalf("a call behind two, the third slot free in 2.5 s: %v, want a refusal estimating 2.5 s", err)
	}
}
