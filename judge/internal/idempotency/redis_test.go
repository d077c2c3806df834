package idempotency

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/shared/redistest"
	"github.com/redis/go-redis/v9"
)

func redisClient(t *testing.T, url string) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	// As the judge configures it: no retries, deadlines from the context.
	opts.MaxRetries, opts.ContextTimeoutEnabled, opts.DialerRetries = -1, true, 1
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestReplicasShareThroughRedis: two stores on one Redis see each other's
// claims and answers, as two judge replicas do.
func TestReplicasShareThroughRedis(t *testing.T) {
	ctx := context.Background()
	rs := redistest.New(t)
	var logs logBuffer
	a := New(ctx, Settings{Redis: redisClient(t, rs.URL()), Prefix: "t:", Logger: logs.logger()})
	b := New(ctx, Settings{Redis: redisClient(t, rs.URL()), Prefix: "t:", Logger: logs.logger()})

	out, _, c := a.Begin(ctx, "1", "k", "fp")
	if out != Started {
		t.Fatalf("a: %v", out)
	}
	if out, _, _ := b.Begin(ctx, "1", "k", "fp"); out != InUse {
		t.Errorf("b while a runs: %v, want InUse", out)
	}
	if out, _, _ := b.Begin(ctx, "1", "k", "other"); out != Reused {
		t.Errorf("b, another body, while a runs: %v, want Reused", out)
	}
	c.Finish(ctx, ok)
	out, got, _ := b.Begin(ctx, "1", "k", "fp")
	if out != Replay || got.Status != 200 || !bytes.Equal(got.Body, ok.Body) || got.ContentType != ok.ContentType {
		t.Errorf("b after a finished: %v %+v, want the stored answer", out, got)
	}
	if out, _, _ := a.Begin(ctx, "1", "k", "other"); out != Reused {
		t.Errorf("another body after the answer: %v, want Reused", out)
	}
	// The stored answer expires with the TTL: 24 h, give or take the test.
	ttl := a.remote.Client().PTTL(ctx, "t:idem:k").Val()
	if ttl < 23*time.Hour || ttl > TTL {
		t.Errorf("answer TTL %v, want about 24 h", ttl)
	}

	// A released claim frees the key for any replica.
	_, _, c = b.Begin(ctx, "1", "r", "fp")
	c.Release(ctx)
	if out, _, c := a.Begin(ctx, "1", "r", "fp"); out != Started || c == nil {
		t.Errorf("after release: %v, want Started", out)
	}
	if !strings.Contains(logs.String(), "idempotency keys shared through Redis") {
		t.Errorf("the stores do not say they share: %s", logs.String())
	}
}

// TestStaleClaimCannotClobber: a claim that outlived its RunTTL (a process
// that died, or stalled) neither removes nor overwrites the claim a later
// request made.
func TestStaleClaimCannotClobber(t *testing.T) {
	ctx := context.Background()
	rs := redistest.New(t)
	s := New(ctx, Settings{Redis: redisClient(t, rs.URL()), RunTTL: 100 * time.Millisecond})
	_, _, stale := s.Begin(ctx, "1", "k", "fp")
	var fresh *Claim
	deadline := time.Now().Add(10 * time.Second)
	for fresh == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		_, _, fresh = s.Begin(ctx, "1", "k", "fp")
	}
	if fresh == nil {
		t.Fatal("the expired claim was never freed")
	}
	stale.Release(ctx)
	stale.Finish(ctx, Answer{Status: 200, Body: []byte("stale")})
	if out, _, _ := s.Begin(ctx, "1", "k", "fp"); out != InUse {
		t.Errorf("after the stale claim ended: %v, want InUse (the fresh claim holds)", out)
	}
	fresh.Finish(ctx, ok)
	if out, a, _ := s.Begin(ctx, "1", "k", "fp"); out != Replay || !bytes.Equal(a.Body, ok.Body) {
		t.Errorf("after the fresh claim finished: %v %s", out, a.Body)
	}
}

// TestRedisLossFallsBackInProcess: with Redis stopped the store answers
// from its own memory, says so once, and goes back to Redis when it
// returns, still replaying what it kept meanwhile.
func TestRedisLossFallsBackInProcess(t *testing.T) {
	ctx := context.Background()
	rs := redistest.New(t)
	var logs logBuffer
	s := New(ctx, Settings{Redis: redisClient(t, rs.URL()), Logger: logs.logger()})
	rs.Stop()
	for i := range 20 {
		key := "down" + string(rune('a'+i))
		out, _, c := s.Begin(ctx, "1", key, "fp")
		if out != Started || c == nil {
			t.Fatalf("Begin with Redis down: %v", out)
		}
		c.Finish(ctx, ok)
		if out, _, _ := s.Begin(ctx, "1", key, "fp"); out != Replay {
			t.Fatalf("replay with Redis down: %v", out)
		}
	}
	if n := strings.Count(logs.String(), "Redis unreachable"); n != 1 {
		t.Errorf("%d warnings about Redis, want 1:\n%s", n, logs.String())
	}
	if err := rs.Start(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; !s.remote.Up() && time.Now().Before(deadline); i++ {
		time.Sleep(100 * time.Millisecond)
		s.Begin(ctx, "1", fmt.Sprint("probe", i), "fp")
	}
	if !s.remote.Up() || !strings.Contains(logs.String(), "Redis reachable again") {
		t.Fatalf("the store did not return to Redis:\n%s", logs.String())
	}
	if out, _, _ := s.Begin(ctx, "1", "downa", "fp"); out != Replay {
		t.Errorf("an answer kept during the outage: %v, want Replay", out)
	}
	if out, _, _ := s.Begin(ctx, "1", "new", "fp"); out != Started {
		t.Errorf("new key with Redis back: %v", out)
	}
	if n := s.remote.Client().Exists(ctx, "idem:new").Val(); n != 1 {
		t.Error("the claim made after recovery is not in Redis")
	}
}
