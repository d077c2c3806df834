package idempotency

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/memory"
	"github.com/judgeworks/judge/internal/store/redis"
	"github.com/judgeworks/shared/proctest"
	"github.com/judgeworks/shared/redistest"
)

// onRedis is a store of claims and answers on the Redis at url, with the
// process's own standing in, as the judge builds it.
func onRedis(t *testing.T, url string, runTTL time.Duration, logs io.Writer) *Store {
	t.Helper()
	shared, err := redis.Open(url, redis.Options{Prefix: "t:"})
	if err != nil {
		t.Fatal(err)
	}
	if logs == nil {
		logs = io.Discard
	}
	st := store.NewFallback(context.Background(), shared, memory.New(), slog.New(slog.NewTextHandler(logs, nil)))
	t.Cleanup(func() { st.Close() })
	return New(context.Background(), Settings{Store: st, RunTTL: runTTL})
}

// TestReplicasShareThroughRedis: two stores on one Redis see each other's
// claims and answers, as two judge replicas do.
func TestReplicasShareThroughRedis(t *testing.T) {
	ctx := context.Background()
	rs := redistest.New(t)
	var logs proctest.Buffer
	a := onRedis(t, rs.URL(), 0, &logs)
	b := onRedis(t, rs.URL(), 0, &logs)

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
	// A released claim frees the key for any replica.
	_, _, c = b.Begin(ctx, "1", "r", "fp")
	c.Release(ctx)
	if out, _, c := a.Begin(ctx, "1", "r", "fp"); out != Started || c == nil {
		t.Errorf("after release: %v, want Started", out)
	}
	if !strings.Contains(logs.String(), "Idempotency-Key answers and cached answers shared through Redis") {
		t.Errorf("the stores do not say they share: %s", logs.String())
	}
}

// TestStaleClaimCannotClobber: a claim that outlived its RunTTL (a process
// that died, or stalled) neither removes nor overwrites the claim a later
// request made.
func TestStaleClaimCannotClobber(t *testing.T) {
	ctx := context.Background()
	rs := redistest.New(t)
	s := onRedis(t, rs.URL(), 100*time.Millisecond, nil)
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
	var logs proctest.Buffer
	s := onRedis(t, rs.URL(), 0, &logs)
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
	for i := 0; !strings.Contains(logs.String(), "Redis reachable again") && time.Now().Before(deadline); i++ {
		time.Sleep(100 * time.Millisecond)
		s.Begin(ctx, "1", fmt.Sprint("probe", i), "fp")
	}
	if !strings.Contains(logs.String(), "Redis reachable again") {
		t.Fatalf("the store did not return to Redis:\n%s", logs.String())
	}
	if out, _, _ := s.Begin(ctx, "1", "downa", "fp"); out != Replay {
		t.Errorf("an answer kept during the outage: %v, want Replay", out)
	}
	if out, _, _ := s.Begin(ctx, "1", "new", "fp"); out != Started {
		t.Errorf("new key with Redis back: %v", out)
	}
	other := onRedis(t, rs.URL(), 0, nil)
	if out, _, _ := other.Begin(ctx, "1", "new", "fp"); out != InUse {
		t.Errorf("another replica, for the claim made after recovery: %v, want InUse (the claim is in Redis)", out)
	}
}
