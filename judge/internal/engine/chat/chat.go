// Package chat is the judge's chat engine: the client-side adapter
// (shared/chatadapter) behind the judge's upstream slots, its failures
// read once as the judge's codes.
package chat

import (
	"context"
	"errors"
	"time"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/systemone"
)

// Defaults of the chat engine's upstream slots (JUDGE_LLM_CONCURRENCY,
// JUDGE_LLM_QUEUE, JUDGE_LLM_MAX_WAIT).
const (
	// DefaultConcurrency lets a 100-question request run in one round
	// trip with room for a second request beside it.
	DefaultConcurrency = 256
	DefaultQueue       = 4096
	// DefaultMaxWait is the longest estimated wait for upstream slots a
	// request is admitted with.
	DefaultMaxWait = 2 * time.Second
)

// Engine answers with a chat model. It is safe for concurrent use.
type Engine struct {
	adapter *chatadapter.Adapter
	slots   *engine.Slots
}

var _ engine.Engine = (*Engine)(nil)

// New returns an engine whose calls pass slots, configured by opts.
func New(slots *engine.Slots, opts ...chatadapter.Option) (*Engine, error) {
	a, err := chatadapter.New(append(opts, chatadapter.WithGate(slots.Gate()), chatadapter.WithCallUsage(engine.Charge))...)
	if err != nil {
		return nil, err
	}
	return &Engine{adapter: a, slots: slots}, nil
}

// Model is the configured upstream model (LLM_MODEL).
func (e *Engine) Model() string { return e.adapter.Model() }

// Readout is the readout the adapter uses now (it may fall back from
// logprobs to probabilities).
func (e *Engine) Readout() string { return e.adapter.Readout() }

// Slots are the engine's upstream slots.
func (e *Engine) Slots() *engine.Slots { return e.slots }

// Ask answers req with the chat model.
func (e *Engine) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	resp, err := e.adapter.Ask(ctx, req)
	if err != nil {
		return nil, failure(err)
	}
	return resp, nil
}

// PlannedInputTokens is every call's prompt, counted as the adapter sends
// it; the request's own count plays no part.
func (e *Engine) PlannedInputTokens(req systemone.Request, _ int) int {
	return e.adapter.PlannedInputTokens(req)
}

// failure reads the adapter's failures as the judge's codes; the slots'
// refusals, validation errors and the caller's cancellation are returned
// as they are.
func failure(err error) error {
	var (
		overloaded    *chatadapter.OverloadedError
		misconfigured *chatadapter.MisconfiguredError
		invalid       *chatadapter.InvalidOutputError
	)
	switch {
	case errors.As(err, &overloaded):
		fe := fault.Overload(overloaded.Message, overloaded.RetryAfter)
		fe.Err = overloaded.Err
		return fe
	case errors.As(err, &misconfigured):
		return fault.New(fault.Misconfigured, "%s", misconfigured.Message)
	case errors.As(err, &invalid):
		return fault.New(fault.InvalidOutput, "%s", invalid.Message)
	}
	return err
}
