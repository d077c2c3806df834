package idempotency

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/perkey"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/shared/proctest"
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
	var logs proctest.Buffer
	a := New(ctx, Settings{Redis: redisClient(t, rs.URL()), Prefix: "t:", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	b := New(ctx, Settings{Redis: redisClient(t, rs.URL()), Prefix: "t:", Logger: slog.New(slog.NewTextHandler(&logs, nil))})

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
	var logs proctest.Buffer
	s := New(ctx, Settings{Redis: redisClient(t, rs.URL()), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
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

// TestAnswersAndBucketsApartInRedis: on a Redis run as docs/operations.md
// requires (maxmemory-policy noeviction, maxmemory above the keys' bounds),
// one API key storing answers far past its bound neither evicts another
// key's answers nor the rate-limit buckets, and leaves Redis room to keep
// deciding limits and storing other keys' answers.
func TestAnswersAndBucketsApartInRedis(t *testing.T) {
	ctx := context.Background()
	rs := redistest.New(t)
	rdb := redisClient(t, rs.URL())
	info := rdb.Info(ctx, "memory").Val()
	base := infoInt(t, info, "used_memory")
	perKey := perkey.Limits{Entries: 1000, Bytes: 1 << 20}
	// Room for three keys' answers above what Redis uses empty.
	if err := rdb.ConfigSet(ctx, "maxmemory", strconv.FormatInt(base+4<<20, 10)).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := New(ctx, Settings{Redis: rdb, Prefix: "t:", PerKey: perKey, Logger: quiet})
	lim := ratelimit.New(ctx, ratelimit.Settings{RPM: 1000, TPM: 600, IDs: []string{"victim", "flood"},
		Redis: rdb, Prefix: "t:", Timeout: time.Second, Logger: quiet})
	lim.TakeRequest(ctx, "victim")
	lim.TakeTokens(ctx, "victim", 300)
	buckets := rdb.Keys(ctx, "rate:t:*").Val()
	if len(buckets) == 0 {
		t.Fatal("no request bucket in Redis")
	}

	_, _, c := s.Begin(ctx, "victim", "v", "fp")
	c.Finish(ctx, ok)
	big := Answer{Status: 200, ContentType: "application/json", Body: bytes.Repeat([]byte("<"), 100<<10)}
	for i := range 100 { // 10 MiB, more than Redis may hold
		_, _, c := s.Begin(ctx, "flood", fmt.Sprint(i), "fp")
		if c == nil || !c.inRedis {
			t.Fatalf("flood %d: the claim is not in Redis", i)
		}
		c.Finish(ctx, big)
	}
	if out, a, _ := s.Begin(ctx, "victim", "v", "fp"); out != Replay || !bytes.Equal(a.Body, ok.Body) {
		t.Errorf("the other key's answer after the flood: %v", out)
	}
	if n := rdb.Exists(ctx, buckets...).Val(); n != int64(len(buckets)) {
		t.Errorf("%d of %d rate-limit buckets left after the flood", n, len(buckets))
	}
	if _, b, err := s.remote.Usage(ctx, "flood"); err != nil || b > perKey.Bytes {
		t.Errorf("the flooding key holds %d bytes in Redis (%v), over its bound of %d", b, err, perKey.Bytes)
	}
	// Redis still has room: the buckets go on deciding there, and another
	// key's new answer is stored there.
	// A bucket evicted meanwhile would start full again and keep 400 after
	// this charge; kept, it holds about 100 (it refills 10 a second).
	if r := lim.TakeTokens(ctx, "victim", 200); !r.Allowed || r.Remaining >= 300 || !lim.RedisUp() || lim.Fallbacks() != 0 {
		t.Errorf("the token bucket after the flood: %+v, Redis up %v, %d fallbacks; want it kept and decided in Redis",
			r, lim.RedisUp(), lim.Fallbacks())
	}
	_, _, c = s.Begin(ctx, "victim", "v2", "fp")
	c.Finish(ctx, ok)
	if n := rdb.Exists(ctx, "t:idem:v2").Val(); n != 1 || !s.remote.Up() {
		t.Error("another key's new answer is not in Redis after the flood")
	}
}

func infoInt(t *testing.T, info, field string) int64 {
	t.Helper()
	for line := range strings.SplitSeq(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in INFO", field)
	return 0
}
