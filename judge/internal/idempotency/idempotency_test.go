package idempotency

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/perkey"
	"github.com/judgeworks/judge/internal/store/memory"
)

func TestValidKey(t *testing.T) {
	for _, tt := range []struct {
		key  string
		want bool
	}{
		{"", false},
		{"a", true},
		{"order-42 retry:1 {ok}", true},
		{strings.Repeat("k", MaxKeyLength), true},
		{strings.Repeat("k", MaxKeyLength+1), false},
		{"tab\there", false},
		{"new\nline", false},
		{"del\x7f", false},
		{"ünïcode", false},
	} {
		if got := ValidKey(tt.key); got != tt.want {
			t.Errorf("ValidKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestStoreKeySeparatesCallers(t *testing.T) {
	a, b := StoreKey("1", "k"), StoreKey("2", "k")
	if a == b || a != StoreKey("1", "k") || len(a) != 64 {
		t.Errorf("StoreKey: %s, %s", a, b)
	}
	// The separator keeps (1, "2x") and (12, "x") apart.
	if StoreKey("1", "2x") == StoreKey("12", "x") {
		t.Error("caller and key run together")
	}
	if Fingerprint("/v1/systemone", []byte("{}")) == Fingerprint("/v1/decisions", []byte("{}")) {
		t.Error("the route is not part of the fingerprint")
	}
}

var ok = Answer{Status: 200, ContentType: "application/json", Body: []byte(`{"answers":{}}`)}

// TestLifecycle walks one key through every outcome on the in-process store.
func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	s := New(ctx, Settings{})
	key, fp := StoreKey("1", "k"), Fingerprint("/r", []byte("body"))

	out, _, c := s.Begin(ctx, "1", key, fp)
	if out != Started || c == nil {
		t.Fatalf("first Begin: %v", out)
	}
	if out, _, c2 := s.Begin(ctx, "1", key, fp); out != InUse || c2 != nil {
		t.Errorf("same request while running: %v, want InUse", out)
	}
	if out, _, _ := s.Begin(ctx, "1", key, Fingerprint("/r", []byte("other"))); out != Reused {
		t.Errorf("another body while running: %v, want Reused", out)
	}
	if out, _, _ := s.Begin(ctx, "1", StoreKey("2", "k"), fp); out != Started {
		t.Errorf("another caller's same key: %v, want Started", out)
	}
	c.Finish(ctx, ok)
	out, a, c3 := s.Begin(ctx, "1", key, fp)
	if out != Replay || c3 != nil || a.Status != 200 || !bytes.Equal(a.Body, ok.Body) || a.ContentType != ok.ContentType {
		t.Errorf("after Finish: %v %+v, want the stored answer", out, a)
	}
	if out, _, _ := s.Begin(ctx, "1", key, Fingerprint("/r", []byte("other"))); out != Reused {
		t.Errorf("another body after Finish: %v, want Reused", out)
	}

	// A released key runs again.
	k2 := StoreKey("1", "released")
	_, _, c = s.Begin(ctx, "1", k2, fp)
	c.Release(ctx)
	if out, _, c := s.Begin(ctx, "1", k2, fp); out != Started || c == nil {
		t.Errorf("after Release: %v, want Started", out)
	}
	// Nil claims are harmless.
	var none *Claim
	none.Finish(ctx, ok)
	none.Release(ctx)
}

func TestConcurrentBeginsStartOnce(t *testing.T) {
	ctx := context.Background()
	s := New(ctx, Settings{})
	var mu sync.Mutex
	counts := map[Outcome]int{}
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			out, _, _ := s.Begin(ctx, "1", "k", "fp")
			mu.Lock()
			counts[out]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if counts[Started] != 1 || counts[InUse] != 31 {
		t.Errorf("outcomes %v, want one Started and 31 InUse", counts)
	}
}

// TestOneKeyCannotEvictAnother: an API key storing more answers than the
// whole process once kept (10,000) evicts only its own; another key's
// answer is still replayed, and the flooding key holds at most its bound.
func TestOneKeyCannotEvictAnother(t *testing.T) {
	ctx := context.Background()
	s := New(ctx, Settings{})
	_, _, c := s.Begin(ctx, "victim", "v", "fp")
	c.Finish(ctx, ok)
	for i := range perkey.DefaultTotal.Entries + 1 {
		_, _, c := s.Begin(ctx, "flood", fmt.Sprint(i), "fp")
		c.Finish(ctx, ok)
	}
	if out, a, _ := s.Begin(ctx, "victim", "v", "fp"); out != Replay || !bytes.Equal(a.Body, ok.Body) {
		t.Errorf("another key's answer after a flood: %v, want Replay", out)
	}
	if n, _, _ := s.Usage(ctx, "flood"); n > perkey.DefaultPerKey.Entries {
		t.Errorf("the flooding key keeps %d answers, more than its bound of %d", n, perkey.DefaultPerKey.Entries)
	}
	// Its newest are the ones kept.
	if out, _, _ := s.Begin(ctx, "flood", fmt.Sprint(perkey.DefaultTotal.Entries), "fp"); out != Replay {
		t.Errorf("the flooding key's newest answer: %v, want Replay", out)
	}
}

// TestRecordsKeepBodiesAsSent: an answer is kept as its bytes, not
// escaped or base64-encoded, so what is counted is what was sent.
func TestRecordsKeepBodiesAsSent(t *testing.T) {
	body := []byte(strings.Repeat("<&>", 1000))
	v := encodeAnswer("fp", Answer{Model: "m-1", Status: 200, ContentType: "application/json", Body: body})
	if len(v) > len(body)+100 {
		t.Errorf("a %d-byte body is kept in %d bytes", len(body), len(v))
	}
	fp, a, isAnswer, err := decode(v)
	if err != nil || fp != "fp" || !isAnswer || a.Model != "m-1" || a.Status != 200 || !bytes.Equal(a.Body, body) {
		t.Errorf("decode: %q %+v %v %v", fp, a, isAnswer, err)
	}
	if fp, _, isAnswer, err := decode([]byte(encodeClaim("fp", "t"))); err != nil || fp != "fp" || isAnswer {
		t.Errorf("decode a claim: %q %v %v", fp, isAnswer, err)
	}
	for _, bad := range []string{"", "x{}", "a{}", "c{"} {
		if _, _, _, err := decode([]byte(bad)); err == nil {
			t.Errorf("decode(%q) accepted", bad)
		}
	}
}

func TestOversizeAnswerReleasesTheKey(t *testing.T) {
	ctx := context.Background()
	s := New(ctx, Settings{PerKey: perkey.Limits{Bytes: 8 << 10}}) // answers up to 2 KiB
	_, _, c := s.Begin(ctx, "1", "k", "fp")
	c.Finish(ctx, Answer{Status: 200, Body: bytes.Repeat([]byte("x"), 3<<10)})
	if out, _, _ := s.Begin(ctx, "1", "k", "fp"); out != Started {
		t.Errorf("after an answer too large to keep: %v, want Started (the request runs again)", out)
	}
}

// TestAnswersAndClaimsExpire: an answer is replayed for TTL and no longer,
// and a claim never ended (its request lost) frees its key after RunTTL.
func TestAnswersAndClaimsExpire(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	now := start
	s := New(ctx, Settings{Store: memory.NewAt(func() time.Time { return now })})
	_, _, c := s.Begin(ctx, "1", "answered", "fp")
	c.Finish(ctx, ok)
	s.Begin(ctx, "1", "lost", "fp")
	for _, tt := range []struct {
		at   time.Duration
		key  string
		want Outcome
	}{
		{DefaultRunTTL - time.Second, "lost", InUse},
		{DefaultRunTTL + time.Second, "lost", Started},
		{TTL - time.Second, "answered", Replay},
		{TTL + time.Second, "answered", Started},
	} {
		now = start.Add(tt.at)
		if out, _, _ := s.Begin(ctx, "1", tt.key, "fp"); out != tt.want {
			t.Errorf("%s after %v: %v, want %v", tt.key, tt.at, out, tt.want)
		}
	}
}
