// Package store holds the judge's per-key state behind one interface,
// Store: what each API key has spent and used in the current UTC day and
// month (judge/internal/budget, judge/internal/usage), its rate-limit
// buckets (judge/internal/ratelimit), and the answers stored for it
// (judge/internal/idempotency, judge/internal/cache). The packages that
// use it hold the rules; a driver holds the state. Drivers side by side,
// held alike by one table of behaviours (storetest):
//
//   - memory keeps everything in the process: gone with it.
//   - redis keeps everything in a Redis or Valkey that every replica
//     shares (REDIS_URL); spending and usage survive a restart of the
//     judge, and of Redis when Redis persists (docs/operations.md,
//     "Redis").
//   - file is the memory driver with its spending and usage also kept in
//     one file under JUDGE_DATA_DIR: a judge without Redis keeps its
//     figures across a restart, a crash included, and its buckets and
//     answers in memory.
//
// Fallback puts a shared store (redis) and the process's own (memory)
// together: buckets and answers go to the process's while the shared one
// cannot be reached; spending and usage never do.
//
// Figures are whole numbers (nano-dollars, tokens, requests), so sums are
// exact wherever they are kept. A figure belongs to a day and a month,
// named by the caller; only the current ones matter, so memory and file
// keep only the newest day and the newest month written (a write for an
// older period than one kept is dropped), and redis lets old periods
// expire.
package store

import (
	"context"
	"time"

	"github.com/judgeworks/judge/internal/perkey"
)

// Store is every piece of per-key state. Every method is safe for
// concurrent use, and a write is seen by every read that starts after it
// returns, by any user of the same store (every replica, for redis).
type Store interface {
	Spending
	Usage
	Buckets
	Answers
	// Close releases what the store holds: a file's lock, a connection.
	Close() error
}

// Periods name the UTC day and month a figure counts in: "2026-11-26" and
// "2026-11". Names of one kind sort in time order.
type Periods struct {
	Day, Month string
}

// Amounts are nano-dollars of a day and of a month.
type Amounts struct {
	Day, Month int64
}

// Spending is what each key spent, in nano-dollars.
type Spending interface {
	// Reserve adds amount to key's spending in both periods unless that
	// would take either past its limit (negative: no limit): all or
	// nothing, atomically among all the store's users. It answers what
	// was spent before and whether amount was added.
	Reserve(ctx context.Context, key string, at Periods, amount int64, limits Amounts) (before Amounts, ok bool, err error)
	// AddSpent adds delta, which may be negative, to key's spending in
	// both periods.
	AddSpent(ctx context.Context, key string, at Periods, delta int64) error
	// Spent is key's spending in both periods.
	Spent(ctx context.Context, key string, at Periods) (Amounts, error)
}

// Counts are a key's use of one model in one period.
type Counts struct {
	// Requests were answered; Unanswered cost money but were not.
	Requests, Unanswered      int64
	InputTokens, OutputTokens int64
	// CostNano is in nano-dollars.
	CostNano int64
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Requests += o.Requests
	c.Unanswered += o.Unanswered
	c.InputTokens += o.InputTokens
	c.OutputTokens += o.OutputTokens
	c.CostNano += o.CostNano
}

// CountFields are Counts' fields in the order and by the names drivers
// store them under.
var CountFields = [...]struct {
	Name string
	Of   func(*Counts) *int64
}{
	{"requests", func(c *Counts) *int64 { return &c.Requests }},
	{"unanswered", func(c *Counts) *int64 { return &c.Unanswered }},
	{"input_tokens", func(c *Counts) *int64 { return &c.InputTokens }},
	{"output_tokens", func(c *Counts) *int64 { return &c.OutputTokens }},
	{"cost_nusd", func(c *Counts) *int64 { return &c.CostNano }},
}

// Usage is what each key used, per model.
type Usage interface {
	// AddUse adds c to key's use of model in both periods.
	AddUse(ctx context.Context, key string, at Periods, model string, c Counts) error
	// Use is key's use in both periods, by model; a key with none has
	// empty maps.
	Use(ctx context.Context, key string, at Periods) (day, month map[string]Counts, err error)
}

// Rate is a bucket's shape: it holds at most Burst units and refills
// PerMinute units a minute, evenly. Both are at least 1.
type Rate struct {
	PerMinute, Burst int
}

// Taken is a bucket's answer to Take.
type Taken struct {
	Allowed bool
	// Remaining is what the bucket holds after the decision, in whole
	// units: on a refusal, what it held.
	Remaining int
	// RetryAfter, on a refusal, is how long until the amount asked fits.
	RetryAfter time.Duration
	// ResetAfter is how long until the bucket is full again.
	ResetAfter time.Duration
}

// Buckets are token buckets by name, each a generic cell rate algorithm
// (GCRA): the state of a bucket is the time at which it will be full
// again, so a bucket never taken from, or long enough ago, is full and
// holds no state at all.
type Buckets interface {
	// Take takes n units (0 ≤ n ≤ r.Burst; 0 only reports) from the
	// bucket name, shaped r, all or nothing: a refusal takes nothing.
	// The shape is given on every call; a bucket reshaped keeps how long
	// it needs to be full again, and so the share of its burst it has
	// used.
	Take(ctx context.Context, name string, r Rate, n int) (Taken, error)
}

// Space is one use of stored answers (Idempotency-Key answers, the answer
// cache): Name starts the name of each of its slots, so spaces never share
// one; PerOwner bounds each owner's answers, by perkey's rule, in every
// driver; Total bounds all owners' answers together where one process
// keeps them (memory). Zero fields are perkey's defaults.
type Space struct {
	Name            string
	PerOwner, Total perkey.Limits
}

// Bounds are sp's bounds with the defaults filled in; the total is never
// below one owner's bound, so that an owner can always hold its own.
func (sp Space) Bounds() (perOwner, total perkey.Limits) {
	perOwner = sp.PerOwner.Or(perkey.DefaultPerKey)
	total = sp.Total.Or(perkey.DefaultTotal)
	total.Entries = max(total.Entries, perOwner.Entries)
	total.Bytes = max(total.Bytes, perOwner.Bytes)
	return perOwner, total
}

// Answers are values in named slots, each for a time: answers, counted
// against the owner that stored them (perkey's rule), and claims, which
// hold a slot for a request still running and count against no one. A
// slot's name is unique in its space whoever the owner.
type Answers interface {
	// Get is what slot holds, an answer or a claim; found is false when
	// it holds nothing or its time is up.
	Get(ctx context.Context, sp Space, slot string) (val []byte, found bool, err error)
	// Put stores val in owner's slot for ttl, replacing what the slot
	// held, then evicts owner's oldest answers past sp's bound. With
	// ifHolds non-nil it stores only if the slot holds exactly ifHolds
	// (a claim) or nothing. stored is false, and nothing changes, for a
	// value too large to keep (perkey.Limits.Fits) or a slot that holds
	// something else.
	Put(ctx context.Context, sp Space, owner, slot string, val []byte, ttl time.Duration, ifHolds []byte) (stored bool, err error)
	// Claim puts claim in slot for ttl if the slot holds nothing; else it
	// answers what the slot holds. Either way in one step: of two claims
	// at once, one is made and the other is told of it.
	Claim(ctx context.Context, sp Space, slot string, claim []byte, ttl time.Duration) (held []byte, claimed bool, err error)
	// Release empties slot if it holds claim.
	Release(ctx context.Context, sp Space, slot string, claim []byte) error
	// Held is what owner's answers in sp count: entries and bytes (by
	// perkey.Size). Answers past their time may count until owner stores
	// again.
	Held(ctx context.Context, sp Space, owner string) (entries int, bytes int64, err error)
}
