// Package fairqueue shares an upstream's call slots among tenants (the
// judge's bearer keys) and admits a request's calls only when they can
// start soon. It is the queue of the chat adapter (shared/chatadapter) and
// of any engine that fans one request out into many upstream calls.
//
// Three rules, each in one place:
//
//   - Slots. At most Limit calls are in flight. The limit adapts the way TCP
//     does: a provider 429 halves it, every answered call raises it by one,
//     up to Config.Slots.
//   - Fairness. Each tenant has its own FIFO of calls waiting for a slot;
//     a freed slot goes to the tenants in turn (round-robin), so a tenant
//     that floods waits behind its own calls, not the others' behind it.
//   - Admission. A request declares its calls up front and is admitted or
//     refused whole, at once: admitted only if its calls are estimated to
//     get slots within Config.MaxWait, judged from the calls ahead of them
//     under round-robin and when each slot frees (the calls in flight by
//     their start times and the measured call latency, so calls started
//     together are expected to finish together), and only if the calls
//     waiting stay within Config.Queue. Once admitted, its calls are never
//     refused by the queue; they wait their turn until their context ends.
package fairqueue

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// DefaultTenant is the tenant of a context that names none.
const DefaultTenant = "default"

type tenantKey struct{}

// WithTenant returns ctx naming the tenant whose calls it carries; the
// judge names the bearer key.
func WithTenant(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, tenantKey{}, id)
}

// Tenant is the tenant ctx names, or DefaultTenant.
func Tenant(ctx context.Context) string {
	if id, ok := ctx.Value(tenantKey{}).(string); ok && id != "" {
		return id
	}
	return DefaultTenant
}

// coldLatency is the call latency assumed before any call has been
// answered, for the RetryAfter of a refusal only: until the first
// measurement Admit admits no more than starts at once.
const coldLatency = time.Second

// minRetryAfter keeps a refusal's advice from telling a client to come
// back at once.
const minRetryAfter = 100 * time.Millisecond

// Config sizes a Queue.
type Config struct {
	// Slots is the most calls in flight; the adaptive limit starts here
	// and never goes above it. At least 1.
	Slots int
	// Queue is the most calls admitted and waiting for a slot, over all
	// tenants: the memory bound. 0 admits only what starts at once.
	Queue int
	// MaxWait is the longest estimated wait for slots a request is
	// admitted with. 0 admits only what starts at once.
	MaxWait time.Duration
}

// Queue is the shared state of the slots. It is safe for concurrent use.
type Queue struct {
	cfg Config

	mu       sync.Mutex
	limit    int
	inflight int
	// pending counts calls admitted and not yet started, over all tenants:
	// those waiting for a slot and those declared but not yet asked for.
	pending int
	tenants map[string]*tenant // tenants with pending calls
	ring    []*tenant          // tenants with calls waiting, in serving order
	next    int                // index in ring of the tenant served next
	// latency is the moving average of answered calls' durations; zero
	// until one has been answered.
	latency time.Duration
	// starts are the in-flight calls' start times, oldest first (calls
	// start under mu, in time order); startSum is their sum in
	// milliseconds, for their mean age.
	starts   []time.Duration
	startSum int64
	epoch    time.Time
	now      func() time.Duration // since epoch; tests replace it
}

type tenant struct {
	id      string
	pending int       // admitted calls of this tenant not yet started
	waiters []*waiter // calls waiting for a slot, oldest first
	inRing  bool
}

type waiter struct {
	ready   chan struct{}
	granted bool          // under Queue.mu
	start   time.Duration // set before ready is closed
}

// New returns an idle queue.
func New(cfg Config) *Queue {
	cfg.Slots = max(cfg.Slots, 1)
	cfg.Queue = max(cfg.Queue, 0)
	cfg.MaxWait = max(cfg.MaxWait, 0)
	q := &Queue{cfg: cfg, limit: cfg.Slots, tenants: map[string]*tenant{}, epoch: time.Now()}
	q.now = func() time.Duration { return time.Since(q.epoch) }
	return q
}

// RefusedError is a request refused at admission: its calls would wait
// longer than MaxWait, or take the waiting calls past Queue. The same
// request may be admitted after RetryAfter.
type RefusedError struct {
	Calls int // the request's calls
	// Ahead is how many calls are estimated to start before the
	// request's under round-robin (its tenant's own waiting calls included).
	Ahead int
	// Wait is the estimated wait for slots: over MaxWait, or on a cold
	// queue (nothing measured yet) whatever the guess; zero when the
	// refusal is for room (Waiting).
	Wait time.Duration
	// Waiting is how many calls would wait for a slot with the request's,
	// over Queue; zero when the refusal is for the wait.
	Waiting int
	// RetryAfter is the estimated time until the request would be admitted.
	RetryAfter time.Duration
}

func (e *RefusedError) Error() string {
	if e.Waiting > 0 {
		return fmt.Sprintf("%d calls would wait for a slot with this request's %d, more than the queue holds",
			e.Waiting, e.Calls)
	}
	return fmt.Sprintf("this request's %d calls would wait about %s for a slot behind %d calls ahead of them",
		e.Calls, e.Wait.Round(10*time.Millisecond), e.Ahead)
}

// TooLargeError is a request with more calls than the slots and the queue
// hold together: it is never admitted, however long the caller waits.
type TooLargeError struct {
	Calls, Max int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("this request needs %d upstream calls; at most %d can be in flight or waiting at once", e.Calls, e.Max)
}

// Admit admits a request of calls upstream calls for tenant, all of them
// or none: its calls are reserved and counted as waiting until they start
// or Done gives them back. It refuses with a *RefusedError when the
// estimated wait for slots is over MaxWait or the calls waiting would
// exceed Queue, and with a *TooLargeError when they never could fit.
//
// The wait is when the slot for the call after ahead others frees
// (startInLocked), where ahead is what round-robin serves before the
// request's calls: the tenant's own waiting calls, and for every other
// tenant its waiting calls up to as many as the tenant will have with this
// request. So a tenant's backlog delays only its own admission, and a
// light tenant beside a flood is admitted.
func (q *Queue) Admit(id string, calls int) (*Request, error) {
	calls = max(calls, 0)
	if most := q.cfg.Slots + q.cfg.Queue; calls > most {
		return nil, &TooLargeError{Calls: calls, Max: most}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.tenants[id]
	own := 0
	if t != nil {
		own = t.pending
	}
	ahead := own
	for _, o := range q.tenants {
		if o != t {
			ahead += min(o.pending, own+calls)
		}
	}
	free := max(0, q.limit-q.inflight)
	if waiting := q.pending + calls - free; waiting > q.cfg.Queue {
		// Room comes back as the calls beyond it start.
		return nil, &RefusedError{Calls: calls, Ahead: ahead, Waiting: waiting,
			RetryAfter: max(q.startInLocked(free+waiting-q.cfg.Queue-1), minRetryAfter)}
	}
	wait := q.startInLocked(ahead)
	// Until a call has been answered nothing says how long one takes, and
	// a guess admits a burst that then waits many call times: admit only
	// what starts at once (or, with nothing in flight or waiting, a
	// request too large to, whose first calls then measure the upstream).
	if cold := q.latency == 0; cold && calls > 0 && q.pending+calls > free && (q.inflight > 0 || q.pending > 0) {
		return nil, &RefusedError{Calls: calls, Ahead: ahead, Wait: wait,
			RetryAfter: max(wait, minRetryAfter)}
	}
	if calls > 0 && wait > q.cfg.MaxWait {
		return nil, &RefusedError{Calls: calls, Ahead: ahead, Wait: wait,
			RetryAfter: max(wait-q.cfg.MaxWait, minRetryAfter)}
	}
	if calls > 0 {
		t = q.tenantLocked(id)
		t.pending += calls
		q.pending += calls
	}
	return &Request{q: q, tenant: id, left: calls}, nil
}

// startInLocked is the estimated time until the call that starts after m
// others (0: the next) gets a slot. Each of the limit slots frees when its
// call in flight has run for the call latency (at once if free, or if the
// call is already that old), then serves a call each latency: the m-th
// call takes slot m mod limit in its (m / limit)-th round. Since every
// slot frees within one latency, the rounds never overtake each other.
// Calls that started together are so expected to finish together, not
// spread out, and a burst admitted on the rate of completions cannot wait
// a whole call time. With more calls in flight than the limit (it was
// just halved), the first slot frees when the excess has finished.
func (q *Queue) startInLocked(m int) time.Duration {
	l := q.latencyLocked()
	now := q.now()
	free := q.limit - q.inflight
	j := m % q.limit
	at := now
	if j >= free {
		at = max(now, q.starts[j-free]+l)
	}
	return at - now + time.Duration(m/q.limit)*l
}

// latencyLocked is how long a call is expected to take: the measured
// average (coldLatency before any), but at least the mean age of the calls
// in flight, so an upstream that stalls raises the estimate before any
// slow call has come back.
func (q *Queue) latencyLocked() time.Duration {
	l := q.latency
	if l == 0 {
		l = coldLatency
	}
	if q.inflight > 0 {
		age := q.now() - time.Duration(q.startSum/int64(q.inflight))*time.Millisecond
		l = max(l, age)
	}
	return l
}

func (q *Queue) tenantLocked(id string) *tenant {
	t := q.tenants[id]
	if t == nil {
		t = &tenant{id: id}
		q.tenants[id] = t
	}
	return t
}

// forgetLocked drops a tenant with nothing pending, so the map holds only
// tenants with work and admission walks only those.
func (q *Queue) forgetLocked(t *tenant) {
	if t.pending == 0 && len(t.waiters) == 0 && q.tenants[t.id] == t {
		delete(q.tenants, t.id)
	}
}

// Request is an admitted request: it holds its reserved calls until they
// start or Done returns them. Its methods are safe for concurrent use by
// the request's goroutines.
type Request struct {
	q      *Queue
	tenant string
	left   int // reserved calls not yet asked for; under q.mu
}

// Slot is one call's place in flight; Release gives it back.
type Slot struct {
	q     *Queue
	start time.Duration
}

// Acquire waits for a slot for one call of the request, in its tenant's
// turn, and fails only when ctx ends first. A call beyond those the
// request was admitted with (a retry) waits its turn in the same way and
// is not refused either.
func (r *Request) Acquire(ctx context.Context) (Slot, error) {
	q := r.q
	q.mu.Lock()
	t := q.tenantLocked(r.tenant)
	if r.left > 0 {
		r.left--
	} else {
		t.pending++
		q.pending++
	}
	if len(q.ring) == 0 && q.inflight < q.limit {
		t.pending--
		q.pending--
		start := q.startLocked()
		q.forgetLocked(t)
		q.mu.Unlock()
		return Slot{q: q, start: start}, nil
	}
	w := &waiter{ready: make(chan struct{})}
	t.waiters = append(t.waiters, w)
	if !t.inRing {
		t.inRing = true
		q.ring = append(q.ring, t)
	}
	q.mu.Unlock()

	select {
	case <-w.ready:
		return Slot{q: q, start: w.start}, nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.granted {
		// Granted while giving up: hand the slot on.
		q.stopLocked(w.start)
		q.grantLocked()
		return Slot{}, ctx.Err()
	}
	for i, x := range t.waiters {
		if x == w {
			t.waiters = append(t.waiters[:i], t.waiters[i+1:]...)
			break
		}
	}
	t.pending--
	q.pending--
	if len(t.waiters) == 0 {
		q.leaveRingLocked(t)
	}
	q.forgetLocked(t)
	return Slot{}, ctx.Err()
}

// Done gives back the calls the request was admitted for and never asked
// for (a request that failed early). Call it once the request is over.
func (r *Request) Done() {
	q := r.q
	q.mu.Lock()
	defer q.mu.Unlock()
	if r.left == 0 {
		return
	}
	t := q.tenants[r.tenant]
	t.pending -= r.left
	q.pending -= r.left
	r.left = 0
	q.forgetLocked(t)
}

// Outcome is what a call tells the queue when it gives its slot back.
type Outcome int

const (
	// Answered: a reply came back. Its latency is measured and the limit
	// rises by one.
	Answered Outcome = iota
	// Throttled: the upstream said 429. The limit halves.
	Throttled
	// Failed: anything else. Nothing changes.
	Failed
)

// Release gives the slot back with the call's outcome.
func (s Slot) Release(o Outcome) {
	q := s.q
	q.mu.Lock()
	defer q.mu.Unlock()
	q.stopLocked(s.start)
	switch o {
	case Answered:
		d := q.now() - s.start
		if q.latency == 0 {
			q.latency = d
		} else {
			// A moving average over about the last five answers: quick to
			// follow an upstream that slows down, steady enough for
			// ordinary jitter.
			q.latency += (d - q.latency) / 5
		}
		q.latency = max(q.latency, time.Microsecond)
		q.limit = min(q.cfg.Slots, q.limit+1)
	case Throttled:
		q.limit = max(1, q.limit/2)
	}
	q.grantLocked()
}

func (q *Queue) startLocked() time.Duration {
	start := q.now()
	q.inflight++
	q.starts = append(q.starts, start)
	q.startSum += start.Milliseconds()
	return start
}

// stopLocked takes the call that started at start out of flight.
func (q *Queue) stopLocked(start time.Duration) {
	q.inflight--
	q.startSum -= start.Milliseconds()
	if i := slices.Index(q.starts, start); i >= 0 {
		q.starts = slices.Delete(q.starts, i, i+1)
	}
}

// grantLocked fills free slots from the tenants in turn, one call each.
func (q *Queue) grantLocked() {
	for q.inflight < q.limit && len(q.ring) > 0 {
		if q.next >= len(q.ring) {
			q.next = 0
		}
		t := q.ring[q.next]
		w := t.waiters[0]
		t.waiters[0] = nil
		t.waiters = t.waiters[1:]
		t.pending--
		q.pending--
		w.start = q.startLocked()
		w.granted = true
		close(w.ready)
		if len(t.waiters) == 0 {
			t.waiters = nil
			q.leaveRingLocked(t)
			q.forgetLocked(t)
		} else {
			q.next++
		}
	}
}

// leaveRingLocked takes t out of the serving order, keeping the turn with
// the tenant that was due.
func (q *Queue) leaveRingLocked(t *tenant) {
	if !t.inRing {
		return
	}
	t.inRing = false
	for i, x := range q.ring {
		if x == t {
			q.ring = append(q.ring[:i], q.ring[i+1:]...)
			if i < q.next {
				q.next--
			}
			break
		}
	}
	if q.next >= len(q.ring) {
		q.next = 0
	}
}

// Stats is a snapshot of the queue.
type Stats struct {
	Limit    int // the adaptive limit now
	InFlight int
	// Pending counts calls admitted and not yet started, waiting or not
	// yet asked for.
	Pending int
	// Waiting counts calls waiting for a slot now.
	Waiting int
	Tenants int // tenants with pending calls
	// Latency is the measured average latency of answered calls, zero
	// before the first.
	Latency time.Duration
}

// Stats returns the queue's figures now.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	waiting := 0
	for _, t := range q.ring {
		waiting += len(t.waiters)
	}
	return Stats{Limit: q.limit, InFlight: q.inflight, Pending: q.pending, Waiting: waiting,
		Tenants: len(q.tenants), Latency: q.latency}
}
