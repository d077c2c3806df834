package throttle

import (
	"testing"
	"time"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/postgres"
)

func TestLookupsCountOnlyMisses(t *testing.T) {
	db, _ := newDB(t)
	l := NewLookups(postgres.NewBuckets(db), Rule{Burst: 3, Every: time.Minute})
	// Hits give their token back: any number of them pass.
	for range 10 {
		found, err := l.Begin(ctx, "203.0.113.7")
		if err != nil {
			t.Fatalf("a hit was refused: %v", err)
		}
		found(true)
	}
	for i := range 3 {
		found, err := l.Begin(ctx, "203.0.113.7")
		if err != nil {
			t.Fatalf("miss %d refused: %v", i+1, err)
		}
		found(false)
	}
	_, err := l.Begin(ctx, "203.0.113.7")
	if !interview.Is(err, interview.RateLimited) {
		t.Fatalf("the fourth miss: %v, want rate_limited", err)
	}
	if wait := interview.ErrorFrom(err).RetryAfter; wait <= 0 || wait > time.Minute {
		t.Fatalf("Retry-After %v", wait)
	}
	// Another network has its own bucket; an IPv6 /64 is one network.
	if _, err := l.Begin(ctx, "198.51.100.1"); err != nil {
		t.Fatalf("another address refused: %v", err)
	}
	for i := range 3 {
		found, err := l.Begin(ctx, "2001:db8::"+string(rune('1'+i)))
		if err != nil {
			t.Fatalf("IPv6 miss %d refused: %v", i+1, err)
		}
		found(false)
	}
	if _, err := l.Begin(ctx, "2001:db8::ffff"); !interview.Is(err, interview.RateLimited) {
		t.Fatalf("a fourth miss from the same /64: %v", err)
	}
	// A token refills after Every.
	age(t, db, time.Minute)
	if _, err := l.Begin(ctx, "203.0.113.7"); err != nil {
		t.Fatalf("after a minute: %v", err)
	}
}
