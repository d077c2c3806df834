// Package usage counts what each key has used, per model, this UTC day and
// this UTC month: requests answered, requests that cost money but were not
// answered, input and output tokens and their cost, the figures GET
// /v1/usage reports (docs/api.md, "Judge: keys, budgets and usage"). With a
// Redis client the figures live in Redis and every replica adds to the same
// ones; without one each process counts its own.
package usage

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/judgeworks/judge/internal/budget"
	"github.com/redis/go-redis/v9"
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

// counts are Totals as kept, the cost in nano-dollars.
type counts struct {
	requests, unanswered, input, output, cost int64
}

func (c counts) totals() Totals {
	return Totals{Requests: c.requests, Unanswered: c.unanswered, InputTokens: c.input, OutputTokens: c.output, CostUSD: budget.USD(c.cost)}
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

// DefaultTimeout bounds one Redis call.
const DefaultTimeout = 250 * time.Millisecond

// Settings say where the figures live.
type Settings struct {
	// Redis, when set, holds the figures every replica shares.
	Redis *redis.Client
	// Prefix starts every Redis key.
	Prefix string
	// Logger hears when a use could not be counted.
	Logger *slog.Logger
}

// Book counts use. It is safe for concurrent use.
type Book struct {
	rdb    *redis.Client
	prefix string
	log    *slog.Logger
	now    func() time.Time

	mu sync.Mutex
	// byPeriod is the in-process figures: period → key id → model →
	// counts. Only the current day and month are kept.
	byPeriod map[string]map[string]map[string]*counts
}

// New returns a book for s.
func New(s Settings) *Book {
	log := s.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Book{rdb: s.Redis, prefix: s.Prefix, log: log, now: time.Now, byPeriod: map[string]map[string]map[string]*counts{}}
}

var periods = []budget.Period{budget.Day, budget.Month}

// Add counts one request of key id with model.
func (b *Book) Add(ctx context.Context, id, model string, u Use) {
	now := b.now()
	c := counts{input: int64(u.InputTokens), output: int64(u.OutputTokens), cost: budget.Nano(u.USD)}
	if u.Answered {
		c.requests = 1
	} else {
		c.unanswered = 1
	}
	if b.rdb == nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, p := range periods {
			byKey := b.period(p.Name(now))
			if byKey[id] == nil {
				byKey[id] = map[string]*counts{}
			}
			m := byKey[id][model]
			if m == nil {
				m = &counts{}
				byKey[id][model] = m
			}
			m.requests += c.requests
			m.unanswered += c.unanswered
			m.input += c.input
			m.output += c.output
			m.cost += c.cost
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultTimeout)
	defer cancel()
	_, err := b.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		for i, p := range periods {
			key := b.redisKey(id, p.Name(now))
			for _, f := range fields {
				pipe.HIncrBy(ctx, key, model+"|"+f.name, *f.of(&c))
			}
			pipe.Expire(ctx, key, ttl[i])
		}
		return nil
	})
	if err != nil {
		b.log.Warn("a request's usage could not be counted in Redis", "err", err)
	}
}

// fields name the counts in a Redis hash, after the model: "model|cost".
var fields = []struct {
	name string
	of   func(*counts) *int64
}{
	{"requests", func(c *counts) *int64 { return &c.requests }},
	{"unanswered", func(c *counts) *int64 { return &c.unanswered }},
	{"input_tokens", func(c *counts) *int64 { return &c.input }},
	{"output_tokens", func(c *counts) *int64 { return &c.output }},
	{"cost_nusd", func(c *counts) *int64 { return &c.cost }},
}

// ttl keeps a period's figures in Redis a little past its end.
var ttl = []time.Duration{49 * time.Hour, 33 * 24 * time.Hour}

// Report is id's use today and this month.
func (b *Book) Report(ctx context.Context, id string) (day, month Period, err error) {
	now := b.now()
	out := make([]Period, len(periods))
	for i, p := range periods {
		byModel, err := b.read(ctx, id, p.Name(now))
		if err != nil {
			return day, month, err
		}
		out[i] = Period{Period: p.Name(now), ResetsAt: p.Reset(now).Format(time.RFC3339), Models: map[string]Totals{}}
		var sum counts
		for model, c := range byModel {
			out[i].Models[model] = c.totals()
			sum.requests += c.requests
			sum.unanswered += c.unanswered
			sum.input += c.input
			sum.output += c.output
			sum.cost += c.cost
		}
		out[i].Totals = sum.totals()
	}
	return out[0], out[1], nil
}

// read is id's counts in the period named p, by model.
func (b *Book) read(ctx context.Context, id, p string) (map[string]counts, error) {
	out := map[string]counts{}
	if b.rdb == nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		for model, c := range b.byPeriod[p][id] {
			out[model] = *c
		}
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	all, err := b.rdb.HGetAll(ctx, b.redisKey(id, p)).Result()
	if err != nil {
		return nil, err
	}
	for field, v := range all {
		i := strings.LastIndexByte(field, '|')
		if i < 0 {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			continue
		}
		model, name := field[:i], field[i+1:]
		c := out[model]
		for _, f := range fields {
			if f.name == name {
				*f.of(&c) = n
			}
		}
		out[model] = c
	}
	return out, nil
}

// period is the in-process figures of the period named p, creating them
// and dropping periods that are over. The caller holds b.mu.
func (b *Book) period(p string) map[string]map[string]*counts {
	m, ok := b.byPeriod[p]
	if !ok {
		now := b.now()
		for name := range b.byPeriod {
			if !budget.Current(name, now) {
				delete(b.byPeriod, name)
			}
		}
		m = map[string]map[string]*counts{}
		b.byPeriod[p] = m
	}
	return m
}

// redisKey names id's figures of period p in Redis.
func (b *Book) redisKey(id, p string) string { return b.prefix + "usage:" + id + ":" + p }
