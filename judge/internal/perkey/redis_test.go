package perkey

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/judgeworks/shared/redistest"
	"github.com/redis/go-redis/v9"
)

func redisStore(t *testing.T, rs *redistest.Server, perKey Limits) *Redis {
	t.Helper()
	opts, err := redis.ParseURL(rs.URL())
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	return NewRedis(context.Background(), RedisSettings{Client: c, Prefix: "t:", PerKey: perKey,
		Timeout: 5 * time.Second, What: "test entries", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// held counts what Redis really holds under an owner's index, and the
// bytes those entries count: the accounts must match it.
func held(t *testing.T, r *Redis, owner string) (n int, size int64) {
	t.Helper()
	ctx := context.Background()
	for _, key := range r.Client().ZRange(ctx, r.ownerKey(owner, "idx"), 0, -1).Val() {
		v, err := r.Client().Get(ctx, key).Bytes()
		if err != nil {
			continue // expired, not yet swept
		}
		n++
		size += int64(len(key)+len(v)) + entryOverhead
	}
	return n, size
}

// TestRedisBoundsPerKey: in Redis as in process, an owner storing far past
// its bound evicts only its own oldest entries, and the accounts say what
// Redis really holds.
func TestRedisBoundsPerKey(t *testing.T) {
	ctx := context.Background()
	rs := redistest.New(t)
	r := redisStore(t, rs, Limits{Entries: 5, Bytes: 64 << 10})
	if ok, err := r.Put(ctx, "small", "s0", []byte("kept"), time.Hour, nil); !ok || err != nil {
		t.Fatalf("Put: %v %v", ok, err)
	}
	val := bytes.Repeat([]byte("v"), 10<<10)
	for i := range 50 {
		if ok, err := r.Put(ctx, "flood", fmt.Sprint("f", i), val, time.Hour, nil); !ok || err != nil {
			t.Fatalf("Put %d: %v %v", i, ok, err)
		}
	}
	if v, found, err := r.Get(ctx, "s0"); !found || err != nil || string(v) != "kept" {
		t.Errorf("the small owner's entry after a flood: %q %v %v", v, found, err)
	}
	n, size, err := r.Usage(ctx, "flood")
	if err != nil {
		t.Fatal(err)
	}
	realN, realSize := held(t, r, "flood")
	if n != realN || size != realSize {
		t.Errorf("accounts say %d entries, %d bytes; Redis holds %d, %d", n, size, realN, realSize)
	}
	// 10 KiB entries under 64 KiB: 5 by count, and 5 fit in bytes too.
	if n != 5 || size > 64<<10 {
		t.Errorf("the flooding owner holds %d entries, %d bytes; want 5 within 64 KiB", n, size)
	}
	keys := r.Client().Keys(ctx, "t:f*").Val()
	if len(keys) != 5 {
		t.Errorf("Redis holds %d of the flooding owner's entries, want 5", len(keys))
	}
	for i := 45; i < 50; i++ {
		if _, found, _ := r.Get(ctx, fmt.Sprint("f", i)); !found {
			t.Errorf("newest entry f%d was evicted", i)
		}
	}
	// A value over a quarter of the bound is refused.
	if ok, _ := r.Put(ctx, "flood", "big", make([]byte, 17<<10), time.Hour, nil); ok {
		t.Error("an entry over a quarter of the bound was stored")
	}
	// The accounts expire with the last entry.
	if ttl := r.Client().PTTL(ctx, r.ownerKey("flood", "idx")).Val(); ttl <= 0 || ttl > time.Hour {
		t.Errorf("index TTL %v, want up to an hour", ttl)
	}
}

// TestRedisPutIfHolds: a conditional Put replaces only what it expects.
func TestRedisPutIfHolds(t *testing.T) {
	ctx := context.Background()
	rs := redistest.New(t)
	r := redisStore(t, rs, Limits{})
	claim := "claim-1"
	r.Client().Set(ctx, r.Key("s"), "claim-2", time.Minute)
	if ok, err := r.Put(ctx, "o", "s", []byte("answer"), time.Hour, &claim); ok || err != nil {
		t.Errorf("Put over another claim: %v %v, want refused", ok, err)
	}
	r.Client().Set(ctx, r.Key("s"), claim, time.Minute)
	if ok, err := r.Put(ctx, "o", "s", []byte("answer"), time.Hour, &claim); !ok || err != nil {
		t.Errorf("Put over its own claim: %v %v", ok, err)
	}
	if v, _, _ := r.Get(ctx, "s"); string(v) != "answer" {
		t.Errorf("slot holds %q", v)
	}
}

// TestRedisExpiredLeaveTheAccounts: entries past their TTL stop counting
// at the next Put.
func TestRedisExpiredLeaveTheAccounts(t *testing.T) {
	ctx := context.Background()
	rs := redistest.New(t)
	r := redisStore(t, rs, Limits{Entries: 3})
	for i := range 3 {
		r.Put(ctx, "o", fmt.Sprint(i), []byte("x"), 50*time.Millisecond, nil)
	}
	time.Sleep(200 * time.Millisecond)
	r.Put(ctx, "o", "fresh", []byte("x"), time.Hour, nil)
	if n, size, _ := r.Usage(ctx, "o"); n != 1 || size != Size(r.Key("fresh"), []byte("x")) {
		t.Errorf("after expiry: %d entries, %d bytes, want the fresh one only", n, size)
	}
}
