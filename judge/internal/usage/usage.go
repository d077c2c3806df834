// Package usage counts what each key has used, per model, this UTC day and
// this UTC month: requests answered, requests that cost money but were not
// answered, input and output tokens and their cost, the figures GET
// /v1/usage reports (docs/api.md, "Judge: keys, budgets and usage"). The
// figures live in a store (judge/internal/store): Redis shared by every
// replica, a file that survives a restart, or the process.
package usage

import (
	"context"
	"log/slog"
	"time"

	"github.com/judgeworks/judge/internal/budget"
	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/memory"
)

// Totals are the figures of one model, or of all of a period's models.
type Totals struct {
	// Requests were answered; Unanswered cost money (an upstream call was
	// sent) but were not answered: the caller hung up, an upstream failed,
	// a deadline passed. Tokens and cost cover both.
	Requests     int64   `json:"requests"`
	Unanswered   int64   `json:"unanswered_requests"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

func totals(c store.Counts) Totals {
	return Totals{Requests: c.Requests, Unanswered: c.Unanswered, InputTokens: c.InputTokens,
		OutputTokens: c.OutputTokens, CostUSD: budget.USD(c.CostNano)}
}

// Use is one request's use of a model.
type Use struct {
	// Answered is false for a request that cost money but was not answered.
	Answered                  bool
	InputTokens, OutputTokens int
	USD                       float64
}

// Period is a key's use in one day or month.
type Period struct {
	// Period names it: "2026-11-26" or "2026-11".
	Period string `json:"period"`
	// ResetsAt is when it ends (UTC, RFC 3339).
	ResetsAt string `json:"resets_at"`
	Totals
	// Models are the figures per exact model name.
	Models map[string]Totals `json:"models"`
}

// Settings say where the figures live.
type Settings struct {
	// Store keeps them; nil keeps them in this process.
	Store store.Usage
	// Logger hears when a use could not be counted.
	Logger *slog.Logger
}

// Book counts use. It is safe for concurrent use.
type Book struct {
	st  store.Usage
	log *slog.Logger
	now func() time.Time
}

// New returns a book for s.
func New(s Settings) *Book {
	b := &Book{st: s.Store, log: s.Logger, now: time.Now}
	if b.st == nil {
		b.st = memory.New()
	}
	if b.log == nil {
		b.log = slog.Default()
	}
	return b
}

// Add counts one request of key id with model.
func (b *Book) Add(ctx context.Context, id, model string, u Use) {
	c := store.Counts{InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens), CostNano: budget.Nano(u.USD)}
	if u.Answered {
		c.Requests = 1
	} else {
		c.Unanswered = 1
	}
	if err := b.st.AddUse(ctx, id, budget.Periods(b.now()), model, c); err != nil {
		b.log.Warn("a request's usage could not be counted", "err", err)
	}
}

// Report is id's use today and this month.
func (b *Book) Report(ctx context.Context, id string) (day, month Period, err error) {
	now := b.now()
	byModel := [2]map[string]store.Counts{}
	if byModel[0], byModel[1], err = b.st.Use(ctx, id, budget.Periods(now)); err != nil {
		return day, month, err
	}
	var out [2]Period
	for i, p := range []budget.Period{budget.Day, budget.Month} {
		out[i] = Period{Period: p.Name(now), ResetsAt: p.Reset(now).Format(time.RFC3339), Models: map[string]Totals{}}
		var sum store.Counts
		for model, c := range byModel[i] {
			out[i].Models[model] = totals(c)
			sum.Add(c)
		}
		out[i].Totals = totals(sum)
	}
	return out[0], out[1], nil
}
