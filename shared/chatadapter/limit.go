package chatadapter

import (
	"context"
	"errors"

	"github.com/judgeworks/shared/fairqueue"
	"github.com/judgeworks/shared/systemone"
)

// The adapter's upstream queue is a fairqueue.Queue (shared/fairqueue):
// JUDGE_LLM_CONCURRENCY slots under the adaptive limit (a provider 429
// halves it, every answered call raises it by one), one FIFO per tenant
// served round-robin, and admission of a request's calls all at once, or
// of none. Ask counts a request's calls (rounds), admits them here under
// the tenant its context names, and each call then waits for its slot in
// chat and builds its body only when it has one: what is queued costs a
// goroutine and a few descriptors, never a prompt.

// admit reserves calls upstream calls for the request asked with ctx; see
// Admit.
func (a *Adapter) admit(ctx context.Context, calls int) (*fairqueue.Request, error) {
	return Admit(ctx, a.queue, calls, "")
}

// Admit reserves calls upstream calls on q for the tenant ctx names. A
// refusal is an *OverloadedError with the queue's estimate of when the
// request would be admitted (its message naming upstream, when given); a
// request with more calls than the queue can ever hold is a
// *systemone.ValidationError, since waiting cannot help. The judge's other
// upstream engines share their slots through it too.
func Admit(ctx context.Context, q *fairqueue.Queue, calls int, upstream string) (*fairqueue.Request, error) {
	admitted, err := q.Admit(fairqueue.Tenant(ctx), calls)
	var (
		refused  *fairqueue.RefusedError
		tooLarge *fairqueue.TooLargeError
	)
	switch {
	case errors.As(err, &refused):
		msg := "upstream saturated: " + refused.Error()
		if upstream != "" {
			msg += " to " + upstream
		}
		return nil, &OverloadedError{RetryAfter: refused.RetryAfter, Message: msg}
	case errors.As(err, &tooLarge):
		return nil, &systemone.ValidationError{Items: []systemone.ValidationItem{{
			Loc:  []string{"body", "questions"},
			Msg:  tooLarge.Error() + ": split the request",
			Type: "too_long",
		}}}
	}
	return admitted, err
}
