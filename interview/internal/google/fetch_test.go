package google

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/interview"
)

// gate sits in front of a key server: it counts fetches, can hold them
// until released, and can make them fail.
type gate struct {
	*httptest.Server
	fetches atomic.Int32
	fail    atomic.Bool
	mu      sync.Mutex
	hold    chan struct{} // while not nil, fetches wait for it to close
	entered chan struct{} // receives once per fetch that arrives
}

func newGate(t *testing.T, ks *keyServer) *gate {
	g := &gate{entered: make(chan struct{}, 100)}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.fetches.Add(1)
		g.entered <- struct{}{}
		g.mu.Lock()
		hold := g.hold
		g.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		if g.fail.Load() {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		ks.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(g.Close)
	return g
}

func (g *gate) holdFetches() (release func()) {
	ch := make(chan struct{})
	g.mu.Lock()
	g.hold = ch
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.hold = nil
			g.mu.Unlock()
			close(ch)
		})
	}
}

func (g *gate) waitEntered(t *testing.T) {
	t.Helper()
	select {
	case <-g.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("no fetch arrived")
	}
}

// verifySoon verifies tok, again for a few seconds while it fails: go-oidc
// hands a fetch's outcome to a caller arriving just as that fetch ends, so
// the first call after a change may still see the fetch before it.
func verifySoon(v *Verifier, tok string) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := v.Verify(context.Background(), tok)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Now().UnixNano())
	return c
}
func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// Twenty sign-ins arriving while the keys are fetched share one fetch.
func TestOneFetchAtATime(t *testing.T) {
	ks := newKeyServer(t, "max-age=3600")
	g := newGate(t, ks)
	v := NewVerifier("client-1", g.URL, nil, nil)
	tok := ks.sign(t, "k1", validClaims(time.Now()))
	release := g.holdFetches()
	defer release()
	errs := make(chan error, 20)
	for range 20 {
		go func() {
			_, err := v.Verify(context.Background(), tok)
			errs <- err
		}()
	}
	g.waitEntered(t)
	time.Sleep(50 * time.Millisecond) // the others arrive and wait
	release()
	for range 20 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := g.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches for 20 concurrent sign-ins, want 1", n)
	}
}

// A fetch in progress (here for an unknown key id) holds no lock: tokens
// signed by cached keys verify meanwhile, and a caller that gives up
// returns at once without cancelling the fetch for the others.
func TestCachedKeysServeWhileAFetchRuns(t *testing.T) {
	ks := newKeyServer(t, "max-age=3600")
	g := newGate(t, ks)
	clk := newFakeClock()
	v := NewVerifier("client-1", g.URL, nil, clk.now)
	known := ks.sign(t, "k1", validClaims(clk.now()))
	if _, err := v.Verify(context.Background(), known); err != nil {
		t.Fatal(err)
	}
	g.waitEntered(t)
	clk.advance(2 * minRefetch)

	release := g.holdFetches()
	defer release()
	ks.keys["k3"] = ks.keys["k2"] // rotated in at Google, not yet fetched
	rotated := ks.sign(t, "k3", validClaims(clk.now()))
	slow := make(chan error, 1)
	go func() { slow <- verifySoon(v, rotated) }()
	g.waitEntered(t)

	done := make(chan error, 1)
	go func() {
		_, err := v.Verify(context.Background(), known)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("cached key refused during a fetch: %v", err)
		}
	case <-time.After(5 * time.Second):
		release()
		t.Fatal("a token signed by a cached key waited for another request's fetch")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := v.Verify(ctx, rotated)
	if !interview.Is(err, interview.Upstream) || time.Since(start) > 5*time.Second {
		t.Fatalf("caller that gave up: %v after %v", err, time.Since(start))
	}
	release()
	if err := <-slow; err != nil {
		t.Fatalf("the fetch was cancelled with the caller that gave up: %v", err)
	}
	if n := g.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches, want 2", n)
	}
}

// A failed fetch is remembered for failureTTL: sign-ins meanwhile fail at
// once, or use the keys they have, without asking Google again.
func TestFailedFetchIsRemembered(t *testing.T) {
	ks := newKeyServer(t, "max-age=60")
	g := newGate(t, ks)
	clk := newFakeClock()
	v := NewVerifier("client-1", g.URL, nil, clk.now)
	g.fail.Store(true)
	for i := range 10 {
		if _, err := v.Verify(context.Background(), ks.sign(t, "k1", validClaims(clk.now()))); !interview.Is(err, interview.Upstream) {
			t.Fatalf("sign-in %d while Google fails: %v", i+1, err)
		}
	}
	if n := g.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches within %v of a failure, want 1", n, failureTTL)
	}
	clk.advance(failureTTL + time.Second)
	g.fail.Store(false)
	if err := verifySoon(v, ks.sign(t, "k1", validClaims(clk.now()))); err != nil {
		t.Fatalf("after the failure's time: %v", err)
	}
	if n := g.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches, want 2", n)
	}

	// Google fails again: a token whose key is cached verifies, one naming
	// a key rotated in since is 502, and the failure is remembered for
	// both.
	clk.advance(2 * minRefetch)
	g.fail.Store(true)
	ks.keys["k3"] = ks.keys["k2"]
	for i := range 5 {
		if _, err := v.Verify(context.Background(), ks.sign(t, "k1", validClaims(clk.now()))); err != nil {
			t.Fatalf("cached key refused (sign-in %d): %v", i+1, err)
		}
		if _, err := v.Verify(context.Background(), ks.sign(t, "k3", validClaims(clk.now()))); !interview.Is(err, interview.Upstream) {
			t.Fatalf("a key not yet fetched while Google fails (sign-in %d): %v", i+1, err)
		}
	}
	if n := g.fetches.Load(); n != 3 {
		t.Fatalf("%d fetches, want 3", n)
	}
}
