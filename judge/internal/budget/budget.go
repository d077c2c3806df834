// Package budget holds what each key may spend in USD per UTC day and per
// UTC month, and what it has spent. A request is charged its planned cost
// (the most its most expensive path can cost) before any upstream call and
// settled with what its answer really cost after, so no route, fallback or
// retry spends past a budget, however many requests run at once. The
// figures live in a store (judge/internal/store): Redis shared by every
// replica, a file that survives a restart, or the process.
//
// Amounts are counted in whole nano-dollars (1e-9 USD), rounded up, so that
// sums are exact wherever they are kept.
package budget

import (
	"context"
	"math"
	"sync/atomic"
	"time"

	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/memory"
)

// Caps are a key's budgets in USD; nil means no cap. A cap of 0 allows
// only free models.
type Caps struct {
	Day, Month *float64
}

// Period is a UTC day or a UTC month.
type Period int

const (
	Day Period = iota
	Month
)

func (p Period) String() string {
	if p == Day {
		return "day"
	}
	return "month"
}

// Name is the period containing t: "2026-11-26" or "2026-11". Every
// request names its day and month, so the last name of each period is
// kept with the seconds it covers and formatted again only when t leaves
// them.
func (p Period) Name(t time.Time) string {
	u := t.Unix()
	if n := lastNames[p].Load(); n != nil && n.from <= u && u < n.to {
		return n.name
	}
	t = t.UTC()
	start := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	layout := time.DateOnly
	if p == Month {
		start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		layout = "2006-01"
	}
	n := &periodName{from: start.Unix(), to: p.Reset(t).Unix(), name: t.Format(layout)}
	lastNames[p].Store(n)
	return n.name
}

// periodName is a period's name and the Unix seconds it covers, [from, to).
type periodName struct {
	from, to int64
	name     string
}

// lastNames are the names Period.Name gave last, by period.
var lastNames [2]atomic.Pointer[periodName]

// Reset is when the period containing t ends: the next UTC midnight, or the
// first of the next month.
func (p Period) Reset(t time.Time) time.Time {
	t = t.UTC()
	if p == Day {
		return time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
}

// Periods names the day and the month containing t.
func Periods(t time.Time) store.Periods {
	return store.Periods{Day: Day.Name(t), Month: Month.Name(t)}
}

// Nano converts USD to whole nano-dollars, rounded up so a charge is never
// smaller than the cost.
func Nano(usd float64) int64 {
	if usd <= 0 || math.IsNaN(usd) {
		return 0
	}
	return int64(math.Ceil(usd*1e9 - 1e-6))
}

// USD converts nano-dollars back.
func USD(nano int64) float64 { return float64(nano) / 1e9 }

// Settings say where the figures live.
type Settings struct {
	// Store keeps them; nil keeps them in this process.
	Store store.Spending
}

// Ledger keeps each key's spending. It is safe for concurrent use.
type Ledger struct {
	st  store.Spending
	now func() time.Time
}

// New returns a ledger for s.
func New(s Settings) *Ledger {
	st := s.Store
	if st == nil {
		st = memory.New()
	}
	return &Ledger{st: st, now: time.Now}
}

// Left is what is left of one budget.
type Left struct {
	Period Period
	// Cap and Remaining are in USD; Remaining is never negative.
	Cap, Remaining float64
	// Reset is when the period ends and the budget is whole again.
	Reset time.Time
}

// Hold is a planned cost charged to a key, waiting to be settled.
type Hold struct {
	l       *Ledger
	id      string
	periods store.Periods
	amount  int64
	settled bool
	// Left is what is left of each capped budget once the planned cost is
	// charged, day before month.
	Left []Left
}

// Reserve charges id the planned cost usd for today and this month, all or
// nothing: when a capped budget cannot cover it, nothing is charged and the
// error is a 402 budget_exceeded that says when the budget resets (and
// asks to wait that long). A key with no caps is charged too, so a cap set
// later counts what was already spent. When the store cannot answer (Redis
// unreachable, a disk failing), a key with a cap is refused with 503
// (spending past a budget is what a budget is there to prevent); one
// without is let through uncounted. The hold, refused or not, says what is
// left of each capped budget.
func (l *Ledger) Reserve(ctx context.Context, id string, caps Caps, usd float64) (*Hold, error) {
	now := l.now()
	h := &Hold{l: l, id: id, periods: Periods(now), amount: Nano(usd)}
	limits := store.Amounts{Day: nanoCap(caps.Day), Month: nanoCap(caps.Month)}
	before, ok, err := l.st.Reserve(ctx, id, h.periods, h.amount, limits)
	if err != nil {
		if limits.Day < 0 && limits.Month < 0 {
			h.settled = true // nothing was counted
			return h, nil
		}
		return nil, fault.Retry(fault.Unavailable, time.Second, "this key's budget cannot be checked right now: retry shortly")
	}
	var refusal error
	for _, b := range []struct {
		p            Period
		limit, spent int64
	}{{Day, limits.Day, before.Day}, {Month, limits.Month, before.Month}} {
		if b.limit < 0 {
			continue
		}
		after := b.spent
		if ok {
			after += h.amount
		}
		left := Left{Period: b.p, Cap: USD(b.limit), Remaining: USD(max(b.limit-after, 0)), Reset: b.p.Reset(now)}
		h.Left = append(h.Left, left)
		if !ok && refusal == nil && b.spent+h.amount > b.limit {
			refusal = fault.Retry(fault.BudgetExceeded, left.Reset.Sub(now),
				"this request may cost up to %.6f USD, more than the %.6f USD left of this key's budget of %.6f USD per %s: it resets at %s (%s)",
				USD(h.amount), left.Remaining, left.Cap, b.p, left.Reset.Format(time.RFC3339), resets[b.p])
		}
	}
	if !ok {
		h.settled = true
		return h, refusal
	}
	return h, nil
}

// nanoCap is a cap in nano-dollars; no cap is -1.
func nanoCap(c *float64) int64 {
	if c == nil {
		return -1
	}
	return Nano(*c)
}

var resets = map[Period]string{Day: "midnight UTC", Month: "the first of the month, midnight UTC"}

// Settle replaces the hold's planned cost with usd, what the answer really
// cost (0 for a request that failed), or with the planned cost when usd is
// more. It runs once the answer is known,
// even when the client has gone; only the first call counts.
func (h *Hold) Settle(ctx context.Context, usd float64) {
	if h == nil || h.settled {
		return
	}
	h.settled = true
	// Never more than was reserved: corrective retries the plan did not
	// foresee are the operator's cost, never past the key's budget.
	delta := min(Nano(usd), h.amount) - h.amount
	if delta == 0 {
		return
	}
	// Should this fail, the key stays charged the planned cost: never
	// less than it spent.
	_ = h.l.st.AddSpent(ctx, h.id, h.periods, delta)
}

// Spent is what id has spent today and this month, in USD, counting costs
// of requests still running at their planned cost.
func (l *Ledger) Spent(ctx context.Context, id string) (day, month float64, err error) {
	spent, err := l.st.Spent(ctx, id, Periods(l.now()))
	if err != nil {
		return 0, 0, err
	}
	return USD(spent.Day), USD(spent.Month), nil
}
