// Package store holds the judge's per-key state: what each API key has
// spent and used in the current UTC day and month (judge/internal/budget,
// judge/internal/usage). One interface, Store, and drivers side by side,
// held alike by one table of behaviours (storetest):
//
//   - Memory keeps the figures in the process: gone with it.
//   - Redis keeps them in a Redis or Valkey that every replica shares
//     (REDIS_URL); they survive a restart of the judge, and of Redis when
//     Redis persists (docs/operations.md, "Redis").
//   - File keeps them in one file under JUDGE_DATA_DIR, each write on disk
//     before it returns: a judge without Redis keeps its figures across a
//     restart, a crash included.
//
// Figures are whole numbers (nano-dollars, tokens, requests), so sums are
// exact wherever they are kept. A figure belongs to a day and a month,
// named by the caller; only the current ones matter, so Memory and File
// keep only the newest day and the newest month written (a write for an
// older period than one kept is dropped), and Redis lets old periods
// expire.
package store

import (
	"context"
	"encoding/binary"
)

// Periods name the UTC day and month a figure counts in: "2026-11-26" and
// "2026-11". Names of one kind sort in time order.
type Periods struct {
	Day, Month string
}

// Amounts are nano-dollars of a day and of a month.
type Amounts struct {
	Day, Month int64
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

// Store keeps each key's spending and use. Every method is safe for
// concurrent use, and a write is seen by every read that starts after it
// returns, by any user of the same store (every replica, for Redis).
type Store interface {
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
	// AddUse adds c to key's use of model in both periods.
	AddUse(ctx context.Context, key string, at Periods, model string, c Counts) error
	// Use is key's use in both periods, by model; a key with none has
	// empty maps.
	Use(ctx context.Context, key string, at Periods) (day, month map[string]Counts, err error)
	// Close releases what the store holds: a file's lock, a writer.
	Close() error
}

// fits reports whether amount added to before stays within limits.
func fits(before Amounts, amount int64, limits Amounts) bool {
	return (limits.Day < 0 || before.Day+amount <= limits.Day) && (limits.Month < 0 || before.Month+amount <= limits.Month)
}

// countFields are Counts' fields in the order they are stored, by name.
var countFields = []struct {
	name string
	of   func(*Counts) *int64
}{
	{"requests", func(c *Counts) *int64 { return &c.Requests }},
	{"unanswered", func(c *Counts) *int64 { return &c.Unanswered }},
	{"input_tokens", func(c *Counts) *int64 { return &c.InputTokens }},
	{"output_tokens", func(c *Counts) *int64 { return &c.OutputTokens }},
	{"cost_nusd", func(c *Counts) *int64 { return &c.CostNano }},
}

// encodeCounts is c as stored in a file: each field as 8 bytes, big-endian,
// in countFields' order.
func encodeCounts(c Counts) []byte {
	b := make([]byte, 0, 8*len(countFields))
	for _, f := range countFields {
		b = binary.BigEndian.AppendUint64(b, uint64(*f.of(&c)))
	}
	return b
}

// decodeCounts reads encodeCounts' bytes; fields past the end of b (a
// file written before a field was added) are zero.
func decodeCounts(b []byte) Counts {
	var c Counts
	for _, f := range countFields {
		if len(b) < 8 {
			break
		}
		*f.of(&c) = int64(binary.BigEndian.Uint64(b))
		b = b[8:]
	}
	return c
}
