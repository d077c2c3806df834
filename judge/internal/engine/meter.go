package engine

import (
	"context"
	"sync/atomic"

	"github.com/judgeworks/shared/systemone"
)

// Meter counts what one request's upstream calls are charged: every call
// that was sent (its request written whole to a connection), whatever
// came after: an answer, a failure, a timeout, the caller hanging up, a
// fallback to the next provider. Upstream engines charge each call they
// send to the meter their context carries (Charge); the registry reads it
// (judge/internal/registry). It is safe for concurrent use.
type Meter struct {
	calls, input, output atomic.Int64
}

type meterKey struct{}

// WithMeter returns ctx carrying m.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// Charge counts one sent call, charged u, on the meter ctx carries, if
// any. Its signature is the chat adapter's WithCallUsage.
func Charge(ctx context.Context, u systemone.Usage) {
	if m, ok := ctx.Value(meterKey{}).(*Meter); ok {
		m.calls.Add(1)
		m.input.Add(int64(u.InputTokens))
		m.output.Add(int64(u.OutputTokens))
	}
}

// Calls is the number of calls sent.
func (m *Meter) Calls() int64 { return m.calls.Load() }

// Usage is the tokens of every call sent; Cost is left to the price table.
func (m *Meter) Usage() systemone.Usage {
	return systemone.Usage{InputTokens: int(m.input.Load()), OutputTokens: int(m.output.Load())}
}
