package idempotency

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
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

	out, _, c := s.Begin(ctx, key, fp)
	if out != Started || c == nil {
		t.Fatalf("first Begin: %v", out)
	}
	if out, _, c2 := s.Begin(ctx, key, fp); out != InUse || c2 != nil {
		t.Errorf("same request while running: %v, want InUse", out)
	}
	if out, _, _ := s.Begin(ctx, key, Fingerprint("/r", []byte("other"))); out != Reused {
		t.Errorf("another body while running: %v, want Reused", out)
	}
	if out, _, _ := s.Begin(ctx, StoreKey("2", "k"), fp); out != Started {
		t.Errorf("another caller's same key: %v, want Started", out)
	}
	c.Finish(ctx, ok)
	out, a, c3 := s.Begin(ctx, key, fp)
	if out != Replay || c3 != nil || a.Status != 200 || !bytes.Equal(a.Body, ok.Body) || a.ContentType != ok.ContentType {
		t.Errorf("after Finish: %v %+v, want the stored answer", out, a)
	}
	if out, _, _ := s.Begin(ctx, key, Fingerprint("/r", []byte("other"))); out != Reused {
		t.Errorf("another body after Finish: %v, want Reused", out)
	}

	// A released key runs again.
	k2 := StoreKey("1", "released")
	_, _, c = s.Begin(ctx, k2, fp)
	c.Release(ctx)
	if out, _, c := s.Begin(ctx, k2, fp); out != Started || c == nil {
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
			out, _, _ := s.Begin(ctx, "k", "fp")
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

func TestMemoryBounds(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	m := newMemory(3, 1<<20, func() time.Time { return now })
	put := func(key string, body []byte, ttl time.Duration) {
		if out, _ := m.begin(key, "fp", "t"); out != Started {
			t.Fatalf("begin %s: %v", key, out)
		}
		m.finish(key, "fp", "t", Answer{Status: 200, Body: body}, ttl)
	}
	for i := range 5 {
		put(fmt.Sprint(i), []byte("x"), time.Hour)
	}
	if _, n, _ := m.sizes(); n != 3 {
		t.Fatalf("%d answers kept, want the count bound 3", n)
	}
	// In a fixed order, since each lookup counts as a use: afterwards "3"
	// is the least recently used and "4" newer.
	for i, want := range []bool{false, false, true, true, true} {
		if _, _, found := m.lookup(fmt.Sprint(i), "fp"); found != want {
			t.Errorf("answer %d kept = %v, want %v (oldest evicted first)", i, found, want)
		}
	}
	// A lookup counts as a use: "2" is now newer than "3".
	m.lookup("2", "fp")
	put("5", []byte("x"), time.Hour)
	if _, _, found := m.lookup("3", "fp"); found {
		t.Error("the least recently used answer survived")
	}
	if _, _, found := m.lookup("2", "fp"); !found {
		t.Error("a recently replayed answer was evicted")
	}

	// The byte bound.
	m = newMemory(100, 1000, func() time.Time { return now })
	for i := range 10 {
		put(fmt.Sprint(i), bytes.Repeat([]byte("b"), 200), time.Hour)
	}
	if _, n, size := m.sizes(); size > 1000 || n > 1000/264 || n == 0 {
		t.Errorf("%d answers of %d bytes kept, want at most 1000 bytes", n, size)
	}

	// Expiry.
	put("short", []byte("x"), time.Minute)
	now = now.Add(time.Minute + time.Second)
	if _, _, found := m.lookup("short", "fp"); found {
		t.Error("an expired answer was replayed")
	}
	if running, _, _ := m.sizes(); running != 0 {
		t.Errorf("%d claims left running", running)
	}
}

func TestOversizeAnswerReleasesTheKey(t *testing.T) {
	ctx := context.Background()
	s := New(ctx, Settings{MaxBytes: 8 << 10}) // answers up to 1 KiB
	_, _, c := s.Begin(ctx, "k", "fp")
	c.Finish(ctx, Answer{Status: 200, Body: bytes.Repeat([]byte("x"), 2<<10)})
	if out, _, _ := s.Begin(ctx, "k", "fp"); out != Started {
		t.Errorf("after an answer too large to keep: %v, want Started (the request runs again)", out)
	}
}

// logBuffer collects log output for assertions.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }
