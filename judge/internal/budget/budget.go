// Package budget holds what each key may spend in USD per UTC day and per
// UTC month, and what it has spent. A request is charged its planned cost
// (the most its most expensive path can cost) before any upstream call and
// settled with what its answer really cost after, so no route, fallback or
// retry spends past a budget, however many requests run at once. With a
// Redis client the figures live in Redis and every replica shares them;
// without one each process keeps its own.
//
// Amounts are counted in whole nano-dollars (1e-9 USD), rounded up, so that
// sums are exact wherever they are kept.
package budget

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/judgeworks/judge/internal/fault"
	"github.com/redis/go-redis/v9"
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

// Current reports whether the period named name is the day or the month
// containing now.
func Current(name string, now time.Time) bool {
	return name == Day.Name(now) || name == Month.Name(now)
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

// DefaultTimeout bounds one Redis call.
const DefaultTimeout = 250 * time.Millisecond

// Settings say where the figures live.
type Settings struct {
	// Redis, when set, holds the figures every replica shares.
	Redis *redis.Client
	// Prefix starts every Redis key.
	Prefix string
	// Timeout bounds each Redis call; zero means DefaultTimeout.
	Timeout time.Duration
}

// Ledger keeps each key's spending. It is safe for concurrent use.
type Ledger struct {
	rdb     *redis.Client
	prefix  string
	timeout time.Duration
	now     func() time.Time

	mu sync.Mutex
	// spent is the in-process figures: period name → key id → nano-dollars.
	// Only the current day and month are kept.
	spent map[string]map[string]int64
}

// New returns a ledger for s.
func New(s Settings) *Ledger {
	return &Ledger{rdb: s.Redis, prefix: s.Prefix, timeout: cmpOr(s.Timeout, DefaultTimeout), now: time.Now,
		spent: map[string]map[string]int64{}}
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
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
	periods [2]string
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
// later counts what was already spent. Without Redis to ask, a key with a
// cap is refused with 503 (spending past a shared budget is what a budget
// is there to prevent); one without is let through uncounted. The hold,
// refused or not, says what is left of each capped budget.
func (l *Ledger) Reserve(ctx context.Context, id string, caps Caps, usd float64) (*Hold, error) {
	now := l.now()
	h := &Hold{l: l, id: id, periods: [2]string{Day.Name(now), Month.Name(now)}, amount: Nano(usd)}
	limits := [2]int64{-1, -1}
	for i, c := range []*float64{caps.Day, caps.Month} {
		if c != nil {
			limits[i] = Nano(*c)
		}
	}
	spent, ok, err := l.reserve(ctx, h, limits)
	if err != nil {
		if limits[0] < 0 && limits[1] < 0 {
			h.settled = true // nothing was counted
			return h, nil
		}
		return nil, fault.Retry(fault.Unavailable, time.Second, "this key's budget cannot be checked right now: retry shortly")
	}
	var refusal error
	for i, p := range []Period{Day, Month} {
		if limits[i] < 0 {
			continue
		}
		after := spent[i]
		if ok {
			after += h.amount
		}
		left := Left{Period: p, Cap: USD(limits[i]), Remaining: USD(max(limits[i]-after, 0)), Reset: p.Reset(now)}
		h.Left = append(h.Left, left)
		if !ok && refusal == nil && spent[i]+h.amount > limits[i] {
			refusal = fault.Retry(fault.BudgetExceeded, left.Reset.Sub(now),
				"this request may cost up to %.6f USD, more than the %.6f USD left of this key's budget of %.6f USD per %s: it resets at %s (%s)",
				USD(h.amount), left.Remaining, left.Cap, p, left.Reset.Format(time.RFC3339), resets[p])
		}
	}
	if !ok {
		h.settled = true
		return h, refusal
	}
	return h, nil
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
	h.l.add(ctx, h.id, h.periods, delta)
}

// Spent is what id has spent today and this month, in USD, counting costs
// of requests still running at their planned cost.
func (l *Ledger) Spent(ctx context.Context, id string) (day, month float64, err error) {
	now := l.now()
	periods := [2]string{Day.Name(now), Month.Name(now)}
	if l.rdb == nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		return USD(l.spent[periods[0]][id]), USD(l.spent[periods[1]][id]), nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.timeout)
	defer cancel()
	keys := l.redisKeys(id, periods)
	vals, err := l.rdb.MGet(ctx, keys[0], keys[1]).Result()
	if err != nil {
		return 0, 0, err
	}
	var n [2]int64
	for i, v := range vals {
		if s, ok := v.(string); ok {
			_, _ = fmt.Sscan(s, &n[i])
		}
	}
	return USD(n[0]), USD(n[1]), nil
}

// reserve charges h.amount unless it passes a limit (negative: none). It
// answers what was spent before the charge and whether it was made.
func (l *Ledger) reserve(ctx context.Context, h *Hold, limits [2]int64) (spent [2]int64, ok bool, err error) {
	if l.rdb == nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		for i, p := range h.periods {
			spent[i] = l.period(p)[h.id]
		}
		for i := range limits {
			if limits[i] >= 0 && spent[i]+h.amount > limits[i] {
				return spent, false, nil
			}
		}
		for _, p := range h.periods {
			l.period(p)[h.id] += h.amount
		}
		return spent, true, nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.timeout)
	defer cancel()
	keys := l.redisKeys(h.id, h.periods)
	res, err := reserveScript.Run(ctx, l.rdb, keys[:], h.amount, limits[0], limits[1],
		int(ttl[0].Seconds()), int(ttl[1].Seconds())).Int64Slice()
	if err != nil {
		return spent, false, err
	}
	return [2]int64{res[1], res[2]}, res[0] == 1, nil
}

// add adds delta to id's figures of the two periods.
func (l *Ledger) add(ctx context.Context, id string, periods [2]string, delta int64) {
	if l.rdb == nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, p := range periods {
			// A period already over is gone; nothing to settle there.
			if m, ok := l.spent[p]; ok {
				m[id] += delta
			}
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.timeout)
	defer cancel()
	keys := l.redisKeys(id, periods)
	_, _ = l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range keys {
			p.IncrBy(ctx, k, delta)
		}
		return nil
	})
}

// period is the in-process figures of the period named p, creating them
// and dropping periods that are over. The caller holds l.mu.
func (l *Ledger) period(p string) map[string]int64 {
	m, ok := l.spent[p]
	if !ok {
		now := l.now()
		for name := range l.spent {
			if !Current(name, now) {
				delete(l.spent, name)
			}
		}
		m = map[string]int64{}
		l.spent[p] = m
	}
	return m
}

// ttl keeps a period's Redis figures a little past its end, for a request
// settled just after midnight.
var ttl = [2]time.Duration{49 * time.Hour, 33 * 24 * time.Hour}

// redisKeys name id's figures of the two periods in Redis. An id is a
// keyed digest or an id of the keys file (letters, digits, ".", "_", "-").
func (l *Ledger) redisKeys(id string, periods [2]string) [2]string {
	return [2]string{l.prefix + "spent:" + id + ":" + periods[0], l.prefix + "spent:" + id + ":" + periods[1]}
}

// reserveScript charges ARGV[1] to both counters unless either would pass
// its limit (ARGV[2], ARGV[3]; negative: none), atomically in Redis. It
// answers {charged, day spent before, month spent before}.
var reserveScript = redis.NewScript(`
local d = tonumber(redis.call('GET', KEYS[1]) or '0')
local m = tonumber(redis.call('GET', KEYS[2]) or '0')
local a = tonumber(ARGV[1])
local dl, ml = tonumber(ARGV[2]), tonumber(ARGV[3])
if (dl >= 0 and d + a > dl) or (ml >= 0 and m + a > ml) then
  return {0, d, m}
end
redis.call('INCRBY', KEYS[1], a)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('INCRBY', KEYS[2], a)
redis.call('EXPIRE', KEYS[2], ARGV[5])
return {1, d, m}
`)
