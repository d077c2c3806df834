package engine

import (
	"context"
	"errors"

	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/systemone"
)

// Slots are one upstream's calls in flight, shared among the judge's keys
// by a fair queue (judge/internal/fairqueue): a key that floods waits
// behind its own calls and is refused at admission, while another key's
// request is admitted beside it. A refusal is immediate, so overload shows
// as a fast 529 and a fallback moves on to the next provider instead of
// waiting. Slots are a chatadapter.Gate, so the chat engine's calls pass
// the same rule as the providers'.
type Slots struct {
	q *fairqueue.Queue
	// upstream names the upstream in a refusal's message, when set.
	upstream string
}

// NewSlots returns the slots of one upstream, sized by cfg, naming
// upstream in refusals.
func NewSlots(cfg fairqueue.Config, upstream string) *Slots {
	return &Slots{q: fairqueue.New(cfg), upstream: upstream}
}

// Stats reports the queue's state, for tests and metrics.
func (s *Slots) Stats() fairqueue.Stats { return s.q.Stats() }

// Admit reserves calls upstream calls for the tenant ctx names
// (fairqueue.WithTenant). A refusal is a fault.Overloaded with the queue's
// estimate of when the request would be admitted; a request with more
// calls than the queue can ever hold is a *systemone.ValidationError,
// since waiting cannot help. The caller calls Done on the admission when
// the request is over.
func (s *Slots) Admit(ctx context.Context, calls int) (*fairqueue.Request, error) {
	admitted, err := s.q.Admit(fairqueue.Tenant(ctx), calls)
	var (
		refused  *fairqueue.RefusedError
		tooLarge *fairqueue.TooLargeError
	)
	switch {
	case errors.As(err, &refused):
		msg := "upstream saturated: " + refused.Error()
		if s.upstream != "" {
			msg += " to " + s.upstream
		}
		return nil, fault.Retry(fault.Overloaded, refused.RetryAfter, "%s", msg)
	case errors.As(err, &tooLarge):
		return nil, &systemone.ValidationError{Items: []systemone.ValidationItem{{
			Loc:  []string{"body", "questions"},
			Msg:  tooLarge.Error() + ": split the request",
			Type: "too_long",
		}}}
	}
	return admitted, err
}

// Gate is s as the chat adapter's gate.
func (s *Slots) Gate() chatadapter.Gate { return gate{s} }

type gate struct{ s *Slots }

func (g gate) Admit(ctx context.Context, calls int) (chatadapter.Admission, error) {
	r, err := g.s.Admit(ctx, calls)
	if err != nil {
		return nil, err
	}
	return admission{r}, nil
}

type admission struct{ r *fairqueue.Request }

func (a admission) Acquire(ctx context.Context) (func(chatadapter.Outcome), error) {
	slot, err := a.r.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return func(o chatadapter.Outcome) { slot.Release(outcomes[o]) }, nil
}

func (a admission) Done() { a.r.Done() }

// outcomes reads the chat adapter's outcomes as the queue's.
var outcomes = map[chatadapter.Outcome]fairqueue.Outcome{
	chatadapter.Answered:  fairqueue.Answered,
	chatadapter.Throttled: fairqueue.Throttled,
	chatadapter.Failed:    fairqueue.Failed,
}

// Call runs one upstream call in a slot of r, in its key's turn: do makes
// it on the context it is given. A call that was sent (its request
// written whole) is charged to the request's meter (Charge) what charge
// makes of its outcome, whether or not it succeeded.
func Call[T any](ctx context.Context, r *fairqueue.Request, do func(context.Context) (T, error), charge func(T, error) systemone.Usage) (T, error) {
	slot, err := r.Acquire(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	sctx, sent := chatmodel.WatchSent(ctx)
	v, err := do(sctx)
	if sent() {
		Charge(ctx, charge(v, err))
	}
	if err != nil {
		slot.Release(fairqueue.Failed)
	} else {
		slot.Release(fairqueue.Answered)
	}
	return v, err
}
