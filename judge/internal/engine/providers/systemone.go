package providers

import (
	"context"
	"errors"
	"fmt"
	"github.com/judgeworks/judge/internal/engine"
	"net/http"

	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/systemone"
)

// SystemOneReadout is the readout name under which the calibration file's
// temperatures apply to a System One upstream's answers (an entry with no
// readout applies to every readout).
const SystemOneReadout = "systemone"

// SystemOne forwards requests to a System One service with shared/systemone's
// Client. It is safe for concurrent use.
type SystemOne struct {
	s      Settings
	client *systemone.Client
	slots  *engine.Slots
}

var _ engine.Engine = (*SystemOne)(nil)

// NewSystemOne returns the provider for s. The client makes one attempt per
// call: a retry is the next provider's job (Fallback), or the caller's,
// told when by the 529's Retry-After.
func NewSystemOne(s Settings) *SystemOne {
	s = s.withDefaults()
	client := systemone.NewClient(
		systemone.WithBaseURL(s.BaseURL),
		systemone.WithAPIKey(s.APIKey),
		systemone.WithHTTPClient(&http.Client{Transport: chatmodel.Transport()}),
		systemone.WithMaxAttempts(1),
		systemone.WithAttemptTimeout(s.CallTimeout),
	)
	return &SystemOne{s: s, client: client, slots: newSlots(s)}
}

// Ask sends req to the upstream under its model name, each question as
// sent says, and returns its answers calibrated, under req's names
// (named). The response's Model is the exact version the upstream
// reported.
func (p *SystemOne) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	return askCoherent(ctx, req, p.ask)
}

func (p *SystemOne) ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	admitted, err := p.slots.Admit(ctx, 1)
	if err != nil {
		return nil, err
	}
	defer admitted.Done()
	up := systemone.Request{Model: p.s.Model, State: req.State, Order: req.Order,
		Questions: make(map[string]systemone.Question, len(req.Questions))}
	for name, q := range req.Questions {
		up.Questions[name] = sent(q)
	}
	var usage systemone.Usage
	resp, err := engine.Call(ctx, admitted, func(ctx context.Context) (*systemone.Response, error) { return p.client.Ask(ctx, up) },
		func(resp *systemone.Response, err error) systemone.Usage {
			var u systemone.Usage
			if err == nil {
				u = resp.Usage
			}
			usage = charged(int64(u.InputTokens), int64(u.OutputTokens), len(up.Questions), up)
			return usage
		})
	if err != nil {
		return nil, p.failure(ctx, err)
	}
	answers := make(map[string]systemone.Answer, len(up.Questions))
	// In the caller's order: the first problem reported is always the same one.
	names := up.QuestionNames()
	for _, name := range names {
		q := up.Questions[name]
		a, ok := resp.Answers[name]
		if !ok {
			return nil, invalid(p.s.Source, "the System One provider left question %q unanswered", name)
		}
		w, err := weights(q, a)
		if err != nil {
			return nil, invalid(p.s.Source, "the System One provider's answer to %q: %v", name, err)
		}
		t := p.s.temperature(SystemOneReadout, q)
		if t == 1 {
			// Uncalibrated, the service's answer is given as it came.
			answers[name] = named(req.Questions[name], a)
			continue
		}
		if a, err = calibrated(q, w, t); err != nil {
			return nil, invalid(p.s.Source, "the System One provider's answer to %q: %v", name, err)
		}
		answers[name] = named(req.Questions[name], a)
	}
	model := resp.Model
	if model == "" {
		model = p.s.Model
	}
	return &systemone.Response{
		Model:   model,
		Answers: answers,
		Order:   names,
		Usage:   usage,
	}, nil
}

// failure says what the upstream's refusal means here. The request passed
// this judge's validation, so most of its 4xx are about the settings; a
// validation list (422) or a 413 is about what the caller asked, and goes
// back to the caller as such. Statuses that mean busy or failing (429,
// 5xx, no answer) are read by wire.
func (p *SystemOne) failure(ctx context.Context, err error) error {
	var e *systemone.Error
	if !errors.As(err, &e) {
		return err
	}
	if ctx.Err() != nil && e.Status == 0 {
		if errors.Is(ctx.Err(), context.Canceled) {
			return fmt.Errorf("request canceled: %w", ctx.Err())
		}
		fe := fault.Retry(fault.Overloaded, DefaultRetryAfter, "%s: the System One provider did not answer within the request's deadline", p.s.Source)
		fe.Err = ctx.Err()
		return fe
	}
	misconfigured := func(setting, format string, args ...any) error {
		return fault.New(fault.Misconfigured, "%s: %s; check %s", p.s.Source, fmt.Sprintf(format, args...), setting)
	}
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return misconfigured(p.s.KeyEnv, "the System One provider refused the key (%d)", e.Status)
	case http.StatusNotFound:
		return misconfigured("the base URL", "the provider has no System One API under its base URL (404)")
	case http.StatusBadRequest:
		// Our body is well-formed by construction: the upstream refuses
		// what it was told to use, most often an unknown model.
		return withCause(misconfigured("the model", "the System One provider refused the model (400)"), p.s, e.Message)
	case http.StatusRequestEntityTooLarge:
		return withCause(fault.New(fault.TooLarge, "the upstream refused the request as too large"), p.s, e.Message)
	case http.StatusUnprocessableEntity:
		for _, it := range e.Detail {
			if len(it.Loc) == 2 && it.Loc[1] == "model" {
				return withCause(misconfigured("the model", "the System One provider refused the model (422)"), p.s, it.Msg)
			}
		}
		if len(e.Detail) > 0 {
			return &systemone.ValidationError{Items: e.Detail}
		}
	}
	return wire(e)
}

// PlannedInputTokens is the request's own tokens: one upstream call carries the request.
func (*SystemOne) PlannedInputTokens(_ systemone.Request, tokens int) int { return tokens }

// wire reads the wire error of a remote System One service the judge
// called, as busy or failing: no answer, its rate limit, saturation or a gateway timeout is
// Overloaded; anything else Upstream. The service's message is kept (it was
// written for clients), and so is its error_type, except a client-side
// kind (timeout, rate_limit_exceeded, authentication_error) that would
// mislead our caller.
func wire(e *systemone.Error) *fault.Error {
	msg := e.Message
	if msg == "" {
		msg = "the model backend failed"
	}
	switch e.Status {
	case 0, http.StatusTooManyRequests, 529, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		fe := fault.Overload(msg, e.RetryAfter)
		if e.Status != 0 && e.Status != http.StatusTooManyRequests {
			fe.Type = e.Type
		}
		fe.Err = e
		return fe
	}
	fe := fault.New(fault.Upstream, "%s", msg)
	if e.Status < 400 || e.Status >= 500 {
		fe.Type = e.Type
	}
	fe.Err = e
	return fe
}
