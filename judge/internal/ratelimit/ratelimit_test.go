package ratelimit

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/memory"
)

// clock is a manual time source so bucket arithmetic is exact.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newAt(rpm, tpm int, ids ...string) (*Limiter, *clock) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := New(context.Background(), Settings{RPM: rpm, TPM: tpm, Burst: testBurst, IDs: ids, Store: memory.NewAt(c.now)})
	return l, c
}

var bg = context.Background()

// testBurst is the request bucket of most tests here: smaller than their
// per-minute limits, so a burst and its refill can be told apart.
const testBurst = 10

func TestBurstDefaultsToTheMinute(t *testing.T) {
	l := New(bg, Settings{RPM: 50, TPM: 1000, IDs: []string{"1"}})
	for i := range 50 {
		if r := l.TakeRequest(bg, "1"); !r.Allowed {
			t.Fatalf("request %d of a sequential loop refused: the default burst is the whole minute's 50", i+1)
		}
	}
	if r := l.TakeRequest(bg, "1"); r.Allowed || r.RetryAfter <= 0 {
		t.Fatalf("request 51 within the minute: %+v, want refused with a wait", r)
	}
}

func TestBurstThenRefusal(t *testing.T) {
	tests := []struct {
		rpm       int
		burst     int
		wantDelay time.Duration
	}{
		{rpm: 1200, burst: testBurst, wantDelay: 50 * time.Millisecond},
		{rpm: 60, burst: testBurst, wantDelay: time.Second},
		{rpm: 3, burst: 3, wantDelay: 20 * time.Second},
		{rpm: 1, burst: 1, wantDelay: time.Minute},
	}
	for _, tt := range tests {
		l, _ := newAt(tt.rpm, 1000, "1")
		for i := range tt.burst {
			r := l.TakeRequest(bg, "1")
			if !r.Allowed {
				t.Fatalf("rpm %d: request %d refused inside the burst of %d", tt.rpm, i+1, tt.burst)
			}
			if r.Limit != tt.rpm || r.Remaining != tt.burst-i-1 {
				t.Errorf("rpm %d request %d: limit %d remaining %d, want %d and %d", tt.rpm, i+1, r.Limit, r.Remaining, tt.rpm, tt.burst-i-1)
			}
		}
		r := l.TakeRequest(bg, "1")
		if r.Allowed {
			t.Fatalf("rpm %d: request %d allowed past the burst", tt.rpm, tt.burst+1)
		}
		if r.RetryAfter != tt.wantDelay {
			t.Errorf("rpm %d: retry after %v, want %v", tt.rpm, r.RetryAfter, tt.wantDelay)
		}
		if want := time.Duration(tt.burst) * tt.wantDelay; r.ResetAfter != want {
			t.Errorf("rpm %d: reset after %v, want %v for %d requests to refill", tt.rpm, r.ResetAfter, want, tt.burst)
		}
	}
}

func TestRefusalDoesNotConsume(t *testing.T) {
	l, c := newAt(60, 1000, "1")
	for range testBurst {
		l.TakeRequest(bg, "1")
	}
	// Many refused attempts must not push the next token further away.
	for range 50 {
		if r := l.TakeRequest(bg, "1"); r.Allowed || r.RetryAfter != time.Second {
			t.Fatalf("TakeRequest = %+v, want refusal with 1s", r)
		}
	}
	c.t = c.t.Add(time.Second)
	if r := l.TakeRequest(bg, "1"); !r.Allowed {
		t.Fatal("refused one second later, when one token has refilled")
	}
	if r := l.TakeRequest(bg, "1"); r.Allowed {
		t.Fatal("allowed a second request with one token refilled")
	}
}

func TestKeysHaveSeparateBuckets(t *testing.T) {
	l, _ := newAt(60, 1000, "1", "2")
	for range testBurst {
		l.TakeRequest(bg, "1")
	}
	if r := l.TakeRequest(bg, "1"); r.Allowed {
		t.Fatal("key 1 not limited")
	}
	if r := l.TakeRequest(bg, "2"); !r.Allowed {
		t.Fatal("key 2 refused because key 1 emptied its bucket")
	}
	if r := l.TakeRequest(bg, "99"); r.Allowed {
		t.Fatal("unconfigured key id allowed")
	}
	if r := l.TakeTokens(bg, "99", 1); r.Allowed {
		t.Fatal("unconfigured key id given tokens")
	}
}

func TestEightWorkersAtDefaultRate(t *testing.T) {
	// Eight workers each send one request every 400ms (20 requests/s, the
	// default 1,200/min) and start together: none may be refused.
	l, c := newAt(1200, 1000, "1")
	for round := range 50 {
		for w := range 8 {
			if r := l.TakeRequest(bg, "1"); !r.Allowed {
				t.Fatalf("round %d worker %d refused (retry %v)", round, w, r.RetryAfter)
			}
		}
		c.t = c.t.Add(400 * time.Millisecond)
	}
}

// TestTokenBucket: the burst is a minute's budget, taken all or nothing; a
// refusal says how long until the amount fits and takes nothing; a peek
// takes nothing either.
func TestTokenBucket(t *testing.T) {
	l, c := newAt(1000, 6000, "1") // 100 tokens per second
	if l.TokensPerMinute("1") != 6000 {
		t.Fatalf("TokensPerMinute = %d", l.TokensPerMinute("1"))
	}
	if r := l.PeekTokens(bg, "1"); !r.Allowed || r.Remaining != 6000 || r.ResetAfter != 0 || r.Limit != 6000 {
		t.Fatalf("peek of a full bucket: %+v", r)
	}
	if r := l.TakeTokens(bg, "1", 5000); !r.Allowed || r.Remaining != 1000 || r.ResetAfter != 50*time.Second {
		t.Fatalf("take 5000: %+v", r)
	}
	r := l.TakeTokens(bg, "1", 1500)
	if r.Allowed || r.RetryAfter != 5*time.Second || r.Remaining != 1000 {
		t.Fatalf("take 1500 with 1000 left: %+v, want refusal with 5s", r)
	}
	if r := l.PeekTokens(bg, "1"); r.Remaining != 1000 {
		t.Fatalf("a refusal took tokens: %+v", r)
	}
	if r := l.TakeTokens(bg, "1", 6001); r.Allowed || r.RetryAfter != 0 {
		t.Fatalf("more than the burst: %+v, want a refusal that never fits", r)
	}
	if r := l.TakeTokens(bg, "1", -5000); r.Remaining != 1000 {
		t.Fatalf("a negative amount changed the bucket: %+v", r)
	}
	c.t = c.t.Add(5 * time.Second)
	if r := l.TakeTokens(bg, "1", 1500); !r.Allowed || r.Remaining != 0 {
		t.Fatalf("take 1500 five seconds later: %+v", r)
	}
	// The request bucket is separate.
	if r := l.TakeRequest(bg, "1"); !r.Allowed {
		t.Fatal("the token bucket emptied the request bucket")
	}
}

// TestConcurrentRefusalsKeepCapacity: many workers hammering one bucket get
// exactly burst + rate × elapsed, however their refusals interleave.
// Refusals must not eat tokens the bucket would otherwise have granted.
func TestConcurrentRefusalsKeepCapacity(t *testing.T) {
	l, c := newAt(1200, 1000, "1")
	admitted := 0
	var mu sync.Mutex
	phase := func() {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 500 {
					if r := l.TakeRequest(bg, "1"); r.Allowed {
						mu.Lock()
						admitted++
						mu.Unlock()
					} else if r.RetryAfter <= 0 || r.RetryAfter > 50*time.Millisecond {
						t.Errorf("refusal with retry after %v, want (0, 50ms]", r.RetryAfter)
					}
				}
			})
		}
		wg.Wait()
	}
	phase()
	if admitted != testBurst {
		t.Fatalf("first phase admitted %d, want the burst of %d", admitted, testBurst)
	}
	for i := 1; i <= 5; i++ {
		c.t = c.t.Add(250 * time.Millisecond) // 5 tokens at 20/s
		phase()
		if want := testBurst + 5*i; admitted != want {
			t.Fatalf("after %d steps admitted %d, want %d", i, admitted, want)
		}
	}
}

// TestLocalFloodOnRealClock: the in-process buckets on the real clock never
// admit more than burst + rate × elapsed, for requests and for tokens.
func TestLocalFloodOnRealClock(t *testing.T) {
	l := New(bg, Settings{RPM: 600, TPM: 60_000, Burst: testBurst, IDs: []string{"1"}})
	checkFlood(t, []*Limiter{l}, "1", 600, testBurst, 60_000, 60_000)
}

// flood runs 8 workers per limiter for about 600 ms (at most 3,000 calls
// each) taking one request and then 700 tokens, and returns what was
// admitted and the time from before the first call to after the last.
func flood(ls []*Limiter, id string) (requests, tokens int, elapsed time.Duration) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	stop := start.Add(600 * time.Millisecond)
	for _, l := range ls {
		for range 8 {
			wg.Go(func() {
				for i := 0; i < 3000 && time.Now().Before(stop); i++ {
					r := l.TakeRequest(bg, id)
					tk := l.TakeTokens(bg, id, 700)
					mu.Lock()
					if r.Allowed {
						requests++
					}
					if tk.Allowed {
						tokens += 700
					}
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	return requests, tokens, time.Since(start)
}

// checkFlood floods ls (limiters sharing, or one) and checks the bounds.
func checkFlood(t *testing.T, ls []*Limiter, id string, rpm, burst, tpm, tokenBurst int) {
	t.Helper()
	requests, tokens, elapsed := flood(ls, id)
	maxRequests := float64(burst) + float64(rpm)/60*elapsed.Seconds()
	maxTokens := float64(tokenBurst) + float64(tpm)/60*elapsed.Seconds()
	t.Logf("%d limiter(s), %v: %d requests (bound %.1f), %d tokens (bound %.0f)",
		len(ls), elapsed, requests, maxRequests, tokens, maxTokens)
	if float64(requests) > maxRequests {
		t.Errorf("admitted %d requests in %v, more than burst %d + rate × elapsed = %.1f", requests, elapsed, burst, maxRequests)
	}
	if float64(tokens) > maxTokens {
		t.Errorf("admitted %d tokens in %v, more than burst %d + rate × elapsed = %.0f", tokens, elapsed, tokenBurst, maxTokens)
	}
	// A full bucket grants its burst to the first callers, whoever they are.
	if requests < burst {
		t.Errorf("admitted %d requests, fewer than the burst of %d", requests, burst)
	}
	if tokens < tokenBurst-700 {
		t.Errorf("admitted %d tokens, fewer than the burst of %d less one request", tokens, tokenBurst)
	}
}

// TestCompliantCallerIsNeverRefused: a caller at 95% of both rates, pacing
// itself by sleeping after each call (so a slow machine only slows it),
// is never refused.
func TestCompliantCallerIsNeverRefused(t *testing.T) {
	l := New(bg, Settings{RPM: 1200, TPM: 1_200_000, Burst: testBurst, IDs: []string{"1"}})
	checkCompliant(t, l, 1200, 1_200_000)
}

// checkCompliant sends 40 requests at 95% of rpm, each with tokens at 95%
// of tpm, first emptying the token bucket's burst so the rate is what
// counts.
func checkCompliant(t *testing.T, l *Limiter, rpm, tpm int) {
	t.Helper()
	interval := time.Duration(float64(time.Minute) / (0.95 * float64(rpm)))
	perCall := int(float64(tpm) / 60 * interval.Seconds())
	if r := l.TakeTokens(bg, "1", tpm-perCall); !r.Allowed {
		t.Fatalf("emptying the token burst was refused: %+v", r)
	}
	for i := range 40 {
		if r := l.TakeRequest(bg, "1"); !r.Allowed {
			t.Fatalf("call %d: request refused (retry after %v)", i, r.RetryAfter)
		}
		if r := l.TakeTokens(bg, "1", perCall*95/100); !r.Allowed {
			t.Fatalf("call %d: %d tokens refused (remaining %d, retry after %v)", i, perCall*95/100, r.Remaining, r.RetryAfter)
		}
		time.Sleep(interval)
	}
}

// Keys may have limits of their own; SetKeys reshapes a kept key's buckets,
// each keeping the share of its burst it has used (an empty one stays
// empty, a half-used one is half used at its new size), refuses a key
// removed, and gives a key added full buckets.
func TestSetKeys(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := New(bg, Settings{RPM: 60, TPM: 6000, Keys: []Key{{ID: "own", RPM: 2, TPM: 100}}, IDs: []string{"plain"},
		Store: memory.NewAt(c.now)})
	if l.TokensPerMinute("own") != 100 || l.TokensPerMinute("plain") != 6000 || l.TokensPerMinute("gone") != 0 {
		t.Fatalf("tokens per minute: %d %d %d", l.TokensPerMinute("own"), l.TokensPerMinute("plain"), l.TokensPerMinute("gone"))
	}
	for i := range 2 {
		if r := l.TakeRequest(bg, "own"); !r.Allowed || r.Limit != 2 {
			t.Fatalf("request %d of own's 2: %+v", i+1, r)
		}
	}
	if r := l.TakeRequest(bg, "own"); r.Allowed {
		t.Fatal("own's third request of the minute passed")
	}
	if r := l.TakeTokens(bg, "own", 50); !r.Allowed || r.Remaining != 50 {
		t.Fatalf("half of own's 100 tokens: %+v", r)
	}
	l.SetKeys([]Key{{ID: "own", RPM: 600}, {ID: "new"}})
	// Reshaped, not refilled: empty still, refilling at 10 a second.
	if r := l.TakeRequest(bg, "own"); r.Allowed || r.Limit != 600 || r.RetryAfter > 100*time.Millisecond {
		t.Errorf("own after raising its rate: %+v, want refused with a wait of at most 100 ms", r)
	}
	c.t = c.t.Add(100 * time.Millisecond)
	if r := l.TakeRequest(bg, "own"); !r.Allowed {
		t.Errorf("own 100 ms later at 600 a minute: %+v", r)
	}
	// Back at the default 6000 tokens a minute, half used still: 3000,
	// and 10 refilled in the 100 ms since.
	if r := l.TakeTokens(bg, "own", 6000); r.Allowed || r.Limit != 6000 || r.Remaining != 3010 {
		t.Errorf("own's tokens at the default rate: %+v, want 3010 left", r)
	}
	if r := l.TakeRequest(bg, "plain"); r.Allowed {
		t.Error("a removed key's request passed")
	}
	if r := l.TakeRequest(bg, "new"); !r.Allowed || r.Remaining != 59 {
		t.Errorf("an added key: %+v, want a full bucket of 60", r)
	}
}

// names records the bucket names a limiter asks its store for.
type names struct {
	store.Buckets
	mu   sync.Mutex
	seen map[string]bool
}

func (n *names) Take(ctx context.Context, name string, r store.Rate, k int) (store.Taken, error) {
	n.mu.Lock()
	n.seen[name] = true
	n.mu.Unlock()
	return n.Buckets.Take(ctx, name, r, k)
}

// TestBucketsNamedByAHashOfTheKey: a key's buckets are named in the store
// (in Redis, a key every replica shares) by a hash of its identity, never
// the identity itself, one name per bucket and key.
func TestBucketsNamedByAHashOfTheKey(t *testing.T) {
	ids := []string{"key#1-2f0c9a", "billing-bot"}
	spy := &names{Buckets: memory.New(), seen: map[string]bool{}}
	l := New(bg, Settings{RPM: 60, TPM: 6000, IDs: ids, Store: spy})
	for _, id := range ids {
		l.TakeRequest(bg, id)
		l.TakeTokens(bg, id, 10)
	}
	if len(spy.seen) != 4 {
		t.Errorf("bucket names %v, want one request and one token bucket per key", spy.seen)
	}
	for name := range spy.seen {
		kind, hash, _ := strings.Cut(name, ":")
		if (kind != "requests" && kind != "tokens") || len(hash) != 16 || strings.Trim(hash, "0123456789abcdef") != "" {
			t.Errorf("bucket name %q: want requests: or tokens: and 16 hex digits", name)
		}
		for _, id := range ids {
			if strings.Contains(name, id) {
				t.Errorf("bucket name %q holds the key's id %q", name, id)
			}
		}
	}
}
