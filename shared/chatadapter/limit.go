package chatadapter

import (
	"context"
	"errors"
	"sync"
)

// errQueueFull refuses a call because the upstream queue is at capacity.
var errQueueFull = errors.New("upstream queue full")

// limiter bounds the chat calls in flight to the provider across every
// request of an Adapter. The bound adapts the way TCP does: a provider 429
// halves it, every success raises it by one, up to the configured maximum.
// Calls beyond the bound wait in a FIFO queue of bounded length; a call
// that finds the queue full is refused at once, so overload shows up as a
// fast OverloadedError rather than as memory and latency growing without
// limit.
type limiter struct {
	mu       sync.Mutex
	max      int
	limit    int
	inflight int
	queueCap int
	queue    []chan struct{}
}

func newLimiter(max, queueCap int) *limiter {
	return &limiter{max: max, limit: max, queueCap: queueCap}
}

// acquire takes a slot, waiting in the queue when none is free. It fails
// with errQueueFull when the queue is full and with ctx's error when ctx
// ends first.
func (l *limiter) acquire(ctx context.Context) error {
	l.mu.Lock()
	if l.inflight < l.limit && len(l.queue) == 0 {
		l.inflight++
		l.mu.Unlock()
		return nil
	}
	if len(l.queue) >= l.queueCap {
		l.mu.Unlock()
		return errQueueFull
	}
	ready := make(chan struct{})
	l.queue = append(l.queue, ready)
	l.mu.Unlock()

	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		for i, c := range l.queue {
			if c == ready {
				l.queue = append(l.queue[:i], l.queue[i+1:]...)
				return ctx.Err()
			}
		}
		// Granted while giving up: hand the slot on.
		l.inflight--
		l.grantLocked()
		return ctx.Err()
	}
}

// release returns a slot. throttled says the provider answered 429, which
// halves the limit; any other outcome that reached the provider and came
// back fine raises it by one.
func (l *limiter) release(outcome callOutcome) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight--
	switch outcome {
	case outcomeThrottled:
		l.limit = max(1, l.limit/2)
	case outcomeOK:
		l.limit = min(l.max, l.limit+1)
	}
	l.grantLocked()
}

func (l *limiter) grantLocked() {
	for l.inflight < l.limit && len(l.queue) > 0 {
		c := l.queue[0]
		l.queue = l.queue[1:]
		l.inflight++
		close(c)
	}
}

// state returns the current limit, calls in flight and queue length.
func (l *limiter) state() (limit, inflight, queued int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit, l.inflight, len(l.queue)
}

// callOutcome is what a call tells the limiter.
type callOutcome int

const (
	outcomeOK        callOutcome = iota // a reply arrived
	outcomeThrottled                    // the provider said 429
	outcomeFailed                       // anything else: no change
)
