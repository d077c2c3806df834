package throttle

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/interview/internal/problem"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

var wrongPassword = problem.New(problem.Unauthenticated, "email or password is incorrect")

func TestLimiterBurstRefillAndWait(t *testing.T) {
	clk := newClock()
	l := NewLimiter(Rule{Burst: 3, Every: 10 * time.Second}, 10, clk.now)
	for i := range 3 {
		if ok, _ := l.Allow("k"); !ok {
			t.Fatalf("attempt %d refused within the burst", i+1)
		}
	}
	ok, wait := l.Allow("k")
	if ok || wait != 10*time.Second {
		t.Fatalf("after the burst: ok %v wait %v", ok, wait)
	}
	clk.advance(4 * time.Second)
	if ok, wait := l.Allow("k"); ok || wait != 6*time.Second {
		t.Fatalf("4 s later: ok %v wait %v", ok, wait)
	}
	clk.advance(6 * time.Second)
	if ok, _ := l.Allow("k"); !ok {
		t.Fatal("refused after a full interval")
	}
	if ok, _ := l.Allow("other"); !ok {
		t.Fatal("keys share a bucket")
	}
	// Refunds never exceed the burst.
	clk.advance(time.Hour)
	for range 10 {
		l.Refund("k")
	}
	for i := range 4 {
		ok, _ := l.Allow("k")
		if ok != (i < 3) {
			t.Fatalf("attempt %d after refunds: %v", i+1, ok)
		}
	}
}

func TestLimiterIsBounded(t *testing.T) {
	clk := newClock()
	l := NewLimiter(Rule{Burst: 1, Every: time.Minute}, 100, clk.now)
	l.Allow("victim")
	for i := range 1000 {
		l.Allow(fmt.Sprintf("key-%d", i))
		if i%10 == 0 {
			l.Allow("victim") // recently used: kept
		}
	}
	if n := l.Len(); n != 100 {
		t.Fatalf("%d keys held, want the bound 100", n)
	}
	if ok, _ := l.Allow("victim"); ok {
		t.Fatal("a recently used bucket was evicted")
	}
	// Long keys cost a hash, and still limit.
	long := strings.Repeat("x", 100000)
	l.Allow(long)
	if ok, _ := l.Allow(long); ok {
		t.Fatal("a long key is not limited")
	}
}

func TestLimiterConcurrentAttemptsNeverExceedBurst(t *testing.T) {
	l := NewLimiter(Rule{Burst: 5, Every: time.Hour}, 10, nil)
	var mu sync.Mutex
	allowed := 0
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if ok, _ := l.Allow("k"); ok {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if allowed != 5 {
		t.Fatalf("%d of 100 concurrent attempts allowed, want 5", allowed)
	}
}

// fail runs one failed sign-in and reports the throttle's error.
func fail(a *Auth, email, addr string) error {
	done, err := a.Login(email, addr)
	if err != nil {
		return err
	}
	done(wrongPassword)
	return nil
}

func succeed(a *Auth, email, addr string) error {
	done, err := a.Login(email, addr)
	if err != nil {
		return err
	}
	done(nil)
	return nil
}

func retryAfter(t *testing.T, err error) time.Duration {
	t.Helper()
	var p *problem.Error
	if !errors.As(err, &p) || p.Code != problem.RateLimited {
		t.Fatalf("error %v is not rate_limited", err)
	}
	return p.RetryAfter
}

func TestAccountLimit(t *testing.T) {
	clk := newClock()
	a := NewAuth(clk.now)
	for i := range 5 {
		if err := fail(a, "ada@example.com", "198.51.100.1"); err != nil {
			t.Fatalf("failure %d refused: %v", i+1, err)
		}
	}
	// The sixth guess is refused whatever the address and the letter case:
	// guessing from many addresses is as slow as from one.
	err := fail(a, " ADA@example.com", "203.0.113.9")
	if d := retryAfter(t, err); d != 30*time.Second {
		t.Fatalf("Retry-After %v, want 30 s", d)
	}
	clk.advance(10 * time.Second)
	if d := retryAfter(t, fail(a, "ada@example.com", "198.51.100.1")); d != 20*time.Second {
		t.Fatalf("Retry-After %v, want 20 s", d)
	}
	clk.advance(20 * time.Second)
	if err := fail(a, "ada@example.com", "198.51.100.1"); err != nil {
		t.Fatalf("one attempt per 30 s refused: %v", err)
	}
	retryAfter(t, fail(a, "ada@example.com", "198.51.100.1"))
	// Other accounts are not affected.
	if err := succeed(a, "grace@example.com", "198.51.100.1"); err != nil {
		t.Fatal(err)
	}
}

// The owner keeps signing in from an address where they signed in before,
// while someone guesses the password from elsewhere.
func TestKnownAddressIsNotLockedOut(t *testing.T) {
	clk := newClock()
	a := NewAuth(clk.now)
	home, attacker := "192.0.2.10", "203.0.113.66"
	if err := succeed(a, "ada@example.com", home); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		_ = fail(a, "ada@example.com", attacker)
	}
	retryAfter(t, fail(a, "ada@example.com", attacker))
	retryAfter(t, fail(a, "ada@example.com", "198.51.100.200")) // a new address is held to the account limit
	for i := range 3 {
		if err := succeed(a, "ada@example.com", home); err != nil {
			t.Fatalf("owner's sign-in %d from home refused: %v", i+1, err)
		}
	}
	// Known for KnownAddressTTL only.
	clk.advance(KnownAddressTTL + time.Second)
	for range 5 {
		_ = fail(a, "ada@example.com", attacker)
	}
	retryAfter(t, succeed(a, "ada@example.com", home))
}

func TestAddressLimit(t *testing.T) {
	clk := newClock()
	a := NewAuth(clk.now)
	addr := "203.0.113.7"
	for i := range 20 {
		if err := fail(a, fmt.Sprintf("user%d@example.com", i), addr); err != nil {
			t.Fatalf("failure %d refused: %v", i+1, err)
		}
	}
	if d := retryAfter(t, fail(a, "fresh@example.com", addr)); d != 6*time.Second {
		t.Fatalf("Retry-After %v, want 6 s", d)
	}
	// Another address is unaffected; the refused attempt spent nothing of
	// fresh@'s account budget.
	for i := range 5 {
		if err := fail(a, "fresh@example.com", "198.51.100.3"); err != nil {
			t.Fatalf("failure %d from another address refused: %v", i+1, err)
		}
	}
	clk.advance(6 * time.Second)
	if err := fail(a, "other@example.com", addr); err != nil {
		t.Fatalf("one attempt per 6 s refused: %v", err)
	}
}

func TestSuccessesAndOtherErrorsCostNothing(t *testing.T) {
	a := NewAuth(newClock().now)
	for i := range 100 {
		if err := succeed(a, "ada@example.com", "192.0.2.1"); err != nil {
			t.Fatalf("success %d refused: %v", i+1, err)
		}
	}
	for i := range 100 {
		done, err := a.Login("grace@example.com", "192.0.2.2")
		if err != nil {
			t.Fatalf("attempt %d refused after database errors: %v", i+1, err)
		}
		done(errors.New("database unreachable"))
	}
}

func TestRegisterLimit(t *testing.T) {
	clk := newClock()
	a := NewAuth(clk.now)
	for i := range 20 {
		if err := a.Register("203.0.113.8"); err != nil {
			t.Fatalf("registration %d refused: %v", i+1, err)
		}
	}
	if d := retryAfter(t, a.Register("203.0.113.8")); d != 6*time.Second {
		t.Fatalf("Retry-After %v", d)
	}
	if err := a.Register("203.0.113.9"); err != nil {
		t.Fatalf("another address refused: %v", err)
	}
	clk.advance(6 * time.Second)
	if err := a.Register("203.0.113.8"); err != nil {
		t.Fatalf("one per 6 s refused: %v", err)
	}
}
