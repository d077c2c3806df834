package chatadapter

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestLimiterAdaptsAndQueues(t *testing.T) {
	l := newLimiter(4, 2)
	ctx := context.Background()
	for range 4 {
		if err := l.acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	granted := make(chan int, 2)
	for i := range 2 {
		go func() {
			if err := l.acquire(ctx); err == nil {
				granted <- i
			}
		}()
		// Queue in a known order.
		for {
			if _, _, q := l.state(); q == i+1 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	if err := l.acquire(ctx); !errors.Is(err, errQueueFull) {
		t.Fatalf("acquire with a full queue = %v, want errQueueFull", err)
	}
	// A 429 halves the limit: 4 → 2, with 3 still in flight, nobody is granted.
	l.release(outcomeThrottled)
	if limit, inflight, queued := l.state(); limit != 2 || inflight != 3 || queued != 2 {
		t.Fatalf("after 429: limit %d inflight %d queued %d", limit, inflight, queued)
	}
	// Successes creep back by one each and admit the waiters in order.
	l.release(outcomeOK) // limit 3, inflight 2 → grants waiter 0
	if first := <-granted; first != 0 {
		t.Fatalf("waiter %d granted first, want 0 (FIFO)", first)
	}
	l.release(outcomeOK) // limit 4, inflight 2 → grants waiter 1 → 3
	<-granted
	if limit, inflight, queued := l.state(); limit != 4 || inflight != 3 || queued != 0 {
		t.Fatalf("after recovery: limit %d inflight %d queued %d", limit, inflight, queued)
	}
	for range 10 {
		l.release(outcomeOK)
		_ = l.acquire(ctx)
	}
	if limit, _, _ := l.state(); limit != 4 {
		t.Fatalf("limit %d grew past its maximum", limit)
	}
}

func TestLimiterWaiterGivesUp(t *testing.T) {
	l := newLimiter(1, 5)
	if err := l.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := l.acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if _, _, queued := l.state(); queued != 0 {
		t.Fatalf("%d left in the queue", queued)
	}
	l.release(outcomeFailed)
	if _, inflight, _ := l.state(); inflight != 0 {
		t.Fatalf("inflight %d", inflight)
	}
}
