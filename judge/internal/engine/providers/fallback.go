package providers

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/shared/systemone"
)

// Provider is one of a model's upstreams, in a Fallback.
type Provider struct {
	// Source names it in logs, as in Settings.
	Source  string
	Backend engine.Engine
}

// Fallback answers with the first of its providers that can. A provider
// that fails or sheds (saturated, failing, too slow, unreachable,
// refusing its settings, answering against its contract) is skipped for
// the next one; a request refused as the caller's to fix (CallersFault)
// is answered with that refusal at once, since every provider would
// refuse it. When none answers, the last failure is the answer. Each
// provider keeps the coherence laws itself (shared/coherent), so whichever
// answers, they hold.
type Fallback struct {
	providers []Provider
	timeout   time.Duration
	log       *slog.Logger
}

var _ engine.Engine = (*Fallback)(nil)

// NewFallback tries providers in order, all within timeout per request
// (when the request's context has no earlier deadline).
func NewFallback(providers []Provider, timeout time.Duration, log *slog.Logger) *Fallback {
	return &Fallback{providers: providers, timeout: timeout, log: log}
}

// PlannedInputTokens is the largest of the providers' plans: whichever
// answers, the request is charged at least what it sends. A provider that
// failed before the next one answered is not planned, as retries are not.
func (f *Fallback) PlannedInputTokens(req systemone.Request, tokens int) int {
	n := 0
	for _, p := range f.providers {
		n = max(n, p.Backend.PlannedInputTokens(req, tokens))
	}
	return n
}

// Ask asks each provider in turn until one answers.
func (f *Fallback) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	if len(f.providers) == 0 {
		return nil, errors.New("a fallback needs at least one provider")
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	var err error
	for i, p := range f.providers {
		var resp *systemone.Response
		resp, err = p.Backend.Ask(ctx, req)
		if err == nil {
			if i > 0 {
				f.log.InfoContext(ctx, "answered by a fallback provider", "model", req.Model, "provider", p.Source)
			}
			return resp, nil
		}
		if CallersFault(err) || ctx.Err() != nil || i == len(f.providers)-1 {
			break
		}
		// The error texts name settings, never keys.
		f.log.WarnContext(ctx, "provider failed; trying the next", "model", req.Model, "provider", p.Source,
			"next", f.providers[i+1].Source, "err", err)
	}
	return nil, err
}
