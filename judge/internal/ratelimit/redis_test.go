package ratelimit

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/memory"
	"github.com/judgeworks/judge/internal/store/redis"
	"github.com/judgeworks/shared/proctest"
	"github.com/judgeworks/shared/redistest"
)

// onRedis is a limiter on shared with the process's own buckets standing
// in, as the judge builds it.
func onRedis(t *testing.T, shared *redis.Store, rpm, tpm int, logs io.Writer) *Limiter {
	t.Helper()
	if logs == nil {
		logs = io.Discard
	}
	st := store.NewFallback(bg, shared, memory.New(), slog.New(slog.NewTextHandler(logs, nil)))
	t.Cleanup(func() { st.Close() })
	return New(bg, Settings{RPM: rpm, TPM: tpm, Burst: testBurst, IDs: []string{"1", "2", "3", "4"}, Store: st})
}

// sharedLimiter is a limiter on the Redis at url, which answers. Its Redis
// timeout is generous: these tests check sharing, and a loaded machine
// must not turn a slow answer into a per-replica decision.
func sharedLimiter(t *testing.T, url string, rpm, tpm int, logs io.Writer) *Limiter {
	t.Helper()
	shared, err := redis.Open(url, redis.Options{Prefix: "test:", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	l := onRedis(t, shared, rpm, tpm, logs)
	if !l.Shared() || !l.RedisUp() {
		t.Fatalf("limiter on %s: shared %v, up %v", url, l.Shared(), l.RedisUp())
	}
	return l
}

func TestRedisFlood(t *testing.T) {
	srv := redistest.New(t)
	l := sharedLimiter(t, srv.URL(), 600, 60_000, nil)
	checkFlood(t, []*Limiter{l}, "1", 600, testBurst, 60_000, 60_000)
	if n := l.Fallbacks(); n != 0 {
		t.Errorf("%d decisions fell back with Redis up", n)
	}
}

// TestRedisSharedByTwoLimiters: two limiters (two replicas) on one Redis
// together admit no more than one bucket's burst + rate × elapsed.
func TestRedisSharedByTwoLimiters(t *testing.T) {
	srv := redistest.New(t)
	a := sharedLimiter(t, srv.URL(), 600, 60_000, nil)
	b := sharedLimiter(t, srv.URL(), 600, 60_000, nil)
	checkFlood(t, []*Limiter{a, b}, "1", 600, testBurst, 60_000, 60_000)
	if n := a.Fallbacks() + b.Fallbacks(); n != 0 {
		t.Errorf("%d decisions fell back with Redis up", n)
	}
}

func TestRedisCompliantCallerIsNeverRefused(t *testing.T) {
	srv := redistest.New(t)
	l := sharedLimiter(t, srv.URL(), 1200, 1_200_000, nil)
	checkCompliant(t, l, 1200, 1_200_000)
}

// TestRedisResults: the figures Redis reports match the in-process bucket's
// meaning.
func TestRedisResults(t *testing.T) {
	srv := redistest.New(t)
	l := sharedLimiter(t, srv.URL(), 60, 6000, nil)
	// The token bucket refills 100 tokens a second: what is left may exceed
	// the figures below by what refilled while a busy machine ran the test,
	// and a refusal's wait may be shorter by as much.
	start := time.Now()
	refilled := func() int { return 1 + int(100*time.Since(start).Seconds()) }
	r := l.TakeRequest(bg, "1")
	if !r.Allowed || r.Limit != 60 || r.Remaining != testBurst-1 || r.ResetAfter <= 0 || r.ResetAfter > time.Second {
		t.Errorf("first request: %+v", r)
	}
	if r := l.PeekTokens(bg, "1"); !r.Allowed || r.Limit != 6000 || r.Remaining != 6000 {
		t.Errorf("peek of a full token bucket: %+v", r)
	}
	if r := l.TakeTokens(bg, "1", 5000); !r.Allowed || r.Remaining > 1000+refilled() || r.Remaining < 999 {
		t.Errorf("take 5000 of 6000: %+v", r)
	}
	r = l.TakeTokens(bg, "1", 1500)
	if r.Allowed || r.RetryAfter < 5*time.Second-time.Duration(refilled()+10)*10*time.Millisecond || r.RetryAfter > 5*time.Second || r.ResetAfter > 50*time.Second {
		t.Errorf("take 1500 with 1000 left: %+v, want a refusal with about 5s", r)
	}
	if r := l.PeekTokens(bg, "1"); r.Remaining > 1000+refilled() || r.Remaining < 999 {
		t.Errorf("after a refusal: %+v, want the 1000 left", r)
	}
	if r := l.TakeTokens(bg, "1", 6001); r.Allowed {
		t.Errorf("more than the burst allowed: %+v", r)
	}
}

// TestRedisLostAndBack: with Redis stopped, decisions go on per replica,
// are counted as fallbacks and logged once; with Redis back, the limiters
// share again.
func TestRedisLostAndBack(t *testing.T) {
	srv := redistest.New(t)
	var logs proctest.Buffer
	a := sharedLimiter(t, srv.URL(), 6, 60_000, &logs)
	b := sharedLimiter(t, srv.URL(), 6, 60_000, io.Discard)

	// Shared: a empties key 1's request bucket (burst 6), so b is refused.
	for range 6 {
		a.TakeRequest(bg, "1")
	}
	if r := b.TakeRequest(bg, "1"); r.Allowed {
		t.Fatal("b was allowed a request a had emptied the bucket of: not shared")
	}

	srv.Stop()
	// Per replica: each limiter's own bucket for key 1 is full.
	for name, l := range map[string]*Limiter{"a": a, "b": b} {
		admitted := 0
		for range 20 {
			if l.TakeRequest(bg, "1").Allowed {
				admitted++
			}
		}
		// 20 calls to a 6-request bucket refilling at 0.1/s: the burst, and at
		// most a few more on a very slow machine.
		if admitted < 6 || admitted > 9 {
			t.Errorf("%s with Redis down admitted %d of 20, want its own burst of 6", name, admitted)
		}
		if l.RedisUp() || l.Fallbacks() < 20 {
			t.Errorf("%s with Redis down: up %v, %d fallbacks", name, l.RedisUp(), l.Fallbacks())
		}
	}
	if n := strings.Count(logs.String(), "Redis unreachable"); n != 1 {
		t.Errorf("%d log lines about the lost Redis, want 1:\n%s", n, logs.String())
	}

	if err := srv.Start(bg); err != nil {
		t.Fatal(err)
	}
	// Back within a probe interval or two; poll, bounded.
	for _, l := range []*Limiter{a, b} {
		for i := 0; !l.RedisUp() && i < 100; i++ {
			l.PeekTokens(bg, "2")
			time.Sleep(50 * time.Millisecond)
		}
		if !l.RedisUp() {
			t.Fatal("Redis restarted but a limiter did not return to it")
		}
	}
	if n := strings.Count(logs.String(), "Redis reachable again"); n != 1 {
		t.Errorf("%d log lines about Redis being back, want 1", n)
	}
	before := a.Fallbacks() + b.Fallbacks()
	checkFlood(t, []*Limiter{a, b}, "3", 6, 6, 60_000, 60_000)
	if after := a.Fallbacks() + b.Fallbacks(); after != before {
		t.Errorf("%d decisions fell back after Redis came back", after-before)
	}
}

// blackhole accepts connections and reads from them without ever
// answering: a hung Redis.
type blackhole struct {
	ln   net.Listener
	read atomic.Int64
}

func newBlackhole(t *testing.T) *blackhole {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &blackhole{ln: ln}
	var conns sync.WaitGroup
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Go(func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					h.read.Add(int64(n))
					if err != nil {
						return
					}
				}
			})
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return h
}

// TestHungRedisDoesNotHoldRequests: a Redis that accepts and never answers
// costs a decision its deadline and no more, even with the client's own
// read timeout switched off.
func TestHungRedisDoesNotHoldRequests(t *testing.T) {
	h := newBlackhole(t)
	opts, err := redis.ParseURL("redis://" + h.ln.Addr().String() + "/0")
	if err != nil {
		t.Fatal(err)
	}
	opts.ReadTimeout, opts.WriteTimeout, opts.DisableIdentity = -1, -1, true
	var logs proctest.Buffer
	l := onRedis(t, redis.New(opts, redis.Options{Prefix: "test:", Timeout: 50 * time.Millisecond}), 60, 6000, &logs)
	if l.RedisUp() {
		t.Fatal("a Redis that never answers PING counts as up")
	}
	// Past the probe interval, the next decision asks the hung Redis.
	time.Sleep(store.ProbeInterval + 100*time.Millisecond)
	sent := h.read.Load()
	done := make(chan Result, 1)
	go func() { done <- l.TakeRequest(bg, "1") }()
	select {
	case r := <-done:
		if !r.Allowed {
			t.Errorf("the first request of a full bucket was refused: %+v", r)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a hung Redis held the decision")
	}
	if h.read.Load() == sent {
		t.Error("the decision did not probe Redis after the probe interval")
	}
	if l.Fallbacks() == 0 || l.RedisUp() {
		t.Errorf("fallbacks %d, up %v", l.Fallbacks(), l.RedisUp())
	}
	if n := strings.Count(logs.String(), "Redis unreachable"); n != 1 {
		t.Errorf("%d log lines about the unreachable Redis, want 1", n)
	}
}

// TestCancelledRequestDoesNotMarkRedisDown: a client that has gone away is
// not a Redis failure.
func TestCancelledRequestDoesNotMarkRedisDown(t *testing.T) {
	srv := redistest.New(t)
	l := sharedLimiter(t, srv.URL(), 60, 6000, nil)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	l.TakeRequest(ctx, "1")
	if !l.RedisUp() || l.Fallbacks() != 0 {
		t.Errorf("after a cancelled request: up %v, %d fallbacks", l.RedisUp(), l.Fallbacks())
	}
}
