package budget

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/file"
	"github.com/judgeworks/judge/internal/store/redis"
	"github.com/judgeworks/shared/redistest"
)

var bg = context.Background()

func usd(v float64) *float64 { return &v }

// ledgers are a ledger on each store driver (a real redis-server for
// Redis), each on a clock the test sets.
func ledgers(t *testing.T) map[string]func(now *time.Time) *Ledger {
	on := func(st store.Spending, now *time.Time) *Ledger {
		l := New(Settings{Store: st})
		l.now = func() time.Time { return *now }
		return l
	}
	return map[string]func(now *time.Time) *Ledger{
		"process": func(now *time.Time) *Ledger { return on(nil, now) },
		"redis": func(now *time.Time) *Ledger {
			srv := redistest.New(t)
			st, err := redis.Open(srv.URL(), redis.Options{Prefix: "test:", Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return on(st, now)
		},
		"file": func(now *time.Time) *Ledger {
			f, err := file.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return on(f, now)
		},
	}
}

// A reservation is all or nothing against both caps; a refusal is a 402
// naming the reset, waiting until it; settling replaces the planned cost
// with the real one; a new day starts the day's budget afresh but not the
// month's.
func TestReserveAndSettle(t *testing.T) {
	for name, mk := range ledgers(t) {
		t.Run(name, func(t *testing.T) {
			now := time.Date(2026, 11, 26, 22, 0, 0, 0, time.UTC)
			l := mk(&now)
			caps := Caps{Day: usd(1), Month: usd(1.5)}
			h, err := l.Reserve(bg, "k", caps, 0.6)
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Left) != 2 || h.Left[0].Remaining != 0.4 || h.Left[1].Remaining != 0.9 || !h.Left[0].Reset.Equal(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("left after 0.6 of 1 and 1.5: %+v", h.Left)
			}
			_, err = l.Reserve(bg, "k", caps, 0.5)
			if fault.CodeOf(err) != fault.BudgetExceeded || !strings.Contains(err.Error(), "2026-11-27T00:00:00Z") {
				t.Fatalf("0.5 more on 0.4 left: %v", err)
			}
			if fe := fault.From(err); fe.RetryAfter != 2*time.Hour {
				t.Errorf("retry after %v, want the 2 h until midnight", fe.RetryAfter)
			}
			// Another key is untouched.
			if _, err := l.Reserve(bg, "other", caps, 1); err != nil {
				t.Errorf("another key: %v", err)
			}
			h.Settle(bg, 0.1) // the answer cost less than planned
			h.Settle(bg, 5)   // settled once only
			over, err := l.Reserve(bg, "o", caps, 0.2)
			if err != nil {
				t.Fatal(err)
			}
			over.Settle(bg, 0.3) // retries beyond the plan: charged the plan
			if day, _, _ := l.Spent(bg, "o"); day != 0.2 {
				t.Errorf("spent %v after an answer costing more than planned, want the planned 0.2", day)
			}
			day, month, err := l.Spent(bg, "k")
			if err != nil || day != 0.1 || month != 0.1 {
				t.Fatalf("spent %v %v %v, want 0.1 after settling", day, month, err)
			}
			if _, err := l.Reserve(bg, "k", caps, 0.9); err != nil {
				t.Errorf("0.9 on 0.9 left: %v", err)
			}
			now = now.Add(3 * time.Hour) // the next day, the same month
			if _, err := l.Reserve(bg, "k", caps, 0.6); fault.CodeOf(err) != fault.BudgetExceeded || !strings.Contains(err.Error(), "2026-12-01T00:00:00Z") {
				t.Errorf("the month's 0.5 left refuses 0.6: %v", err)
			}
			h2, err := l.Reserve(bg, "k", caps, 0.5)
			if err != nil {
				t.Fatalf("0.5 on the month's 0.5: %v", err)
			}
			h2.Settle(bg, 0) // failed: costs nothing
			if day, month, _ := l.Spent(bg, "k"); day != 0 || month != 1 {
				t.Errorf("spent %v %v after a refund, want 0 and 1", day, month)
			}
			// A cap of zero admits free requests only.
			zero := Caps{Day: usd(0)}
			if _, err := l.Reserve(bg, "z", zero, 0); err != nil {
				t.Errorf("a free request on a zero cap: %v", err)
			}
			if _, err := l.Reserve(bg, "z", zero, 1e-9); fault.CodeOf(err) != fault.BudgetExceeded {
				t.Errorf("a paid request on a zero cap: %v", err)
			}
		})
	}
}

// However many requests reserve at once, what is charged never passes
// the cap.
func TestConcurrentReservationsStayWithinTheCap(t *testing.T) {
	for name, mk := range ledgers(t) {
		t.Run(name, func(t *testing.T) {
			now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
			l := mk(&now)
			var ok atomic.Int64
			var wg sync.WaitGroup
			for range 50 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := l.Reserve(bg, "k", Caps{Day: usd(1)}, 0.07); err == nil {
						ok.Add(1)
					}
				}()
			}
			wg.Wait()
			if n := ok.Load(); n != 14 {
				t.Errorf("%d reservations of 0.07 passed a cap of 1, want 14", n)
			}
		})
	}
}

// Without Redis to ask, a capped key is refused (503) rather than let
// spend past a shared budget; an uncapped one is let through.
func TestRedisDown(t *testing.T) {
	down, err := redis.Open("redis://127.0.0.1:1/0", redis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	l := New(Settings{Store: down})
	if _, err := l.Reserve(bg, "k", Caps{Month: usd(5)}, 0.1); fault.CodeOf(err) != fault.Unavailable {
		t.Errorf("capped key without Redis: %v", err)
	}
	h, err := l.Reserve(bg, "k", Caps{}, 0.1)
	if err != nil {
		t.Fatalf("uncapped key without Redis: %v", err)
	}
	h.Settle(bg, 0.1)
}

func TestNano(t *testing.T) {
	for _, tt := range []struct {
		usd  float64
		want int64
	}{{0, 0}, {-1, 0}, {1, 1e9}, {0.1 + 0.2, 3e8}, {4.2e-8, 42}, {1e-10, 1}} {
		if got := Nano(tt.usd); got != tt.want {
			t.Errorf("Nano(%v) = %d, want %d", tt.usd, got, tt.want)
		}
	}
}

// TestPeriodNameAtBoundaries holds the kept names to the formatted ones
// for times just either side of midnights and month ends, in an order that
// jumps back and forth between periods.
func TestPeriodNameAtBoundaries(t *testing.T) {
	var times []time.Time
	for _, edge := range []time.Time{
		time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2028, 3, 1, 0, 0, 0, 0, time.UTC),
	} {
		times = append(times, edge.Add(-time.Nanosecond), edge, edge.Add(time.Nanosecond), edge.Add(-time.Second))
	}
	times = append(times, time.Date(2026, 11, 26, 23, 0, 0, 0, time.FixedZone("UTC+5", 5*3600)))
	for range 2 {
		for i := range times {
			for _, tt := range []time.Time{times[i], times[len(times)-1-i]} {
				if got, want := Day.Name(tt), tt.UTC().Format(time.DateOnly); got != want {
					t.Errorf("Day.Name(%v) = %q, want %q", tt, got, want)
				}
				if got, want := Month.Name(tt), tt.UTC().Format("2006-01"); got != want {
					t.Errorf("Month.Name(%v) = %q, want %q", tt, got, want)
				}
			}
		}
	}
}
