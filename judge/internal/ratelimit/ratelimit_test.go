package ratelimit

import (
	"sync"
	"testing"
	"time"
)

// clock is a manual time source so bucket arithmetic is exact.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newAt(rpm int, ids ...int) (*Limiter, *clock) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := New(rpm, ids)
	l.now = c.now
	return l, c
}

func TestBurstThenRefusal(t *testing.T) {
	tests := []struct {
		rpm       int
		burst     int
		wantDelay time.Duration
	}{
		{rpm: 1200, burst: MaxBurst, wantDelay: 50 * time.Millisecond},
		{rpm: 60, burst: MaxBurst, wantDelay: time.Second},
		{rpm: 3, burst: 3, wantDelay: 20 * time.Second},
		{rpm: 1, burst: 1, wantDelay: time.Minute},
	}
	for _, tt := range tests {
		l, _ := newAt(tt.rpm, 1)
		for i := range tt.burst {
			if ok, _ := l.Allow(1); !ok {
				t.Fatalf("rpm %d: request %d refused inside the burst of %d", tt.rpm, i+1, tt.burst)
			}
		}
		ok, d := l.Allow(1)
		if ok {
			t.Fatalf("rpm %d: request %d allowed past the burst", tt.rpm, tt.burst+1)
		}
		if d != tt.wantDelay {
			t.Errorf("rpm %d: retry after %v, want %v", tt.rpm, d, tt.wantDelay)
		}
	}
}

func TestRefusalDoesNotConsume(t *testing.T) {
	l, c := newAt(60, 1)
	for range MaxBurst {
		l.Allow(1)
	}
	// Many refused attempts must not push the next token further away.
	for range 50 {
		if ok, d := l.Allow(1); ok || d != time.Second {
			t.Fatalf("Allow = %v %v, want refusal with 1s", ok, d)
		}
	}
	c.t = c.t.Add(time.Second)
	if ok, _ := l.Allow(1); !ok {
		t.Fatal("refused one second later, when one token has refilled")
	}
	if ok, _ := l.Allow(1); ok {
		t.Fatal("allowed a second request with one token refilled")
	}
}

func TestKeysHaveSeparateBuckets(t *testing.T) {
	l, _ := newAt(60, 1, 2)
	for range MaxBurst {
		l.Allow(1)
	}
	if ok, _ := l.Allow(1); ok {
		t.Fatal("key 1 not limited")
	}
	if ok, _ := l.Allow(2); !ok {
		t.Fatal("key 2 refused because key 1 emptied its bucket")
	}
	if ok, _ := l.Allow(99); ok {
		t.Fatal("unconfigured key id allowed")
	}
}

func TestEightWorkersAtDefaultRate(t *testing.T) {
	// Eight workers each send one request every 400ms (20 requests/s, the
	// default 1,200/min) and start together: none may be refused.
	l, c := newAt(1200, 1)
	for round := range 50 {
		for w := range 8 {
			if ok, d := l.Allow(1); !ok {
				t.Fatalf("round %d worker %d refused (retry %v)", round, w, d)
			}
		}
		c.t = c.t.Add(400 * time.Millisecond)
	}
}

// TestConcurrentRefusalsKeepCapacity: many workers hammering one bucket get
// exactly burst + rate × elapsed, however their refusals interleave.
// Refusals must not eat tokens the bucket would otherwise have granted.
func TestConcurrentRefusalsKeepCapacity(t *testing.T) {
	l, c := newAt(1200, 1)
	admitted := 0
	var mu sync.Mutex
	phase := func() {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 500 {
					if ok, d := l.Allow(1); ok {
						mu.Lock()
						admitted++
						mu.Unlock()
					} else if d <= 0 || d > 50*time.Millisecond {
						t.Errorf("refusal with retry after %v, want (0, 50ms]", d)
					}
				}
			})
		}
		wg.Wait()
	}
	phase()
	if admitted != MaxBurst {
		t.Fatalf("first phase admitted %d, want the burst of %d", admitted, MaxBurst)
	}
	for i := 1; i <= 5; i++ {
		c.t = c.t.Add(250 * time.Millisecond) // 5 tokens at 20/s
		phase()
		if want := MaxBurst + 5*i; admitted != want {
			t.Fatalf("after %d steps admitted %d, want %d", i, admitted, want)
		}
	}
}
