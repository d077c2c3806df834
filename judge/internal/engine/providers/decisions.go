package providers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/judgeworks/judge/internal/decisions"
	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/systemone"
)

// DecisionsReadout is the readout name under which the calibration file's
// temperatures apply to a Decisions upstream's answers.
const DecisionsReadout = "decisions"

// Decisions forwards requests to OpenAI's Decisions API (POST
// /v1/decisions): the request encoded and the decision read by
// judge/internal/decisions, the wire types the judge's own /v1/decisions
// serves, sent with openai-go's client. It is safe for concurrent use.
type Decisions struct {
	s      Settings
	client openai.Client
	slots  *engine.Slots
}

var _ engine.Engine = (*Decisions)(nil)

// NewDecisions returns the provider for s. The client is built the way
// shared/chatmodel builds every OpenAI client of the project: the SDK's
// retries off (a retry is the next provider's job, or the caller's), a
// deadline on every call, a transport sized for many calls to one host.
// extra options come last (tests add middleware there).
func NewDecisions(s Settings, extra ...option.RequestOption) (*Decisions, error) {
	s = s.withDefaults()
	client, err := chatmodel.NewClient(chatmodel.Settings{BaseURL: s.BaseURL, APIKey: s.APIKey, Model: s.Model, CallTimeout: s.CallTimeout}, extra...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Source, err)
	}
	return &Decisions{s: s, client: client, slots: newSlots(s)}, nil
}

// Ask translates req into Decisions calls (questions in name order, at most
// decisions.MaxQuestions per call, each choice's options in the canonical
// order they come in), and the decisions back into calibrated System One answers. The
// upstream's own choice and confidence are not used: they are recomputed
// from its probabilities with the formulas every engine of the judge uses.
// Question names are not sent, as the chat adapter never shows them: a
// name like "is_spam_obviously" would lead the model. A question the model
// refuses fails the request as the caller's (see annotate). Each question
// goes as sent says, and its answer comes back under req's names (named).
func (p *Decisions) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	return askCoherent(ctx, req, p.ask)
}

func (p *Decisions) ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	admitted, err := p.slots.Admit(ctx, (len(req.Questions)+decisions.MaxQuestions-1)/decisions.MaxQuestions)
	if err != nil {
		return nil, err
	}
	defer admitted.Done()
	names := req.QuestionNames()
	out := &systemone.Response{Answers: make(map[string]systemone.Answer, len(names)), Order: names}
	for start := 0; start < len(names); start += decisions.MaxQuestions {
		batch := names[start:min(start+decisions.MaxQuestions, len(names))]
		qs := make([]systemone.Question, len(batch))
		for i, name := range batch {
			qs[i] = sent(req.Questions[name])
		}
		body := decisions.Encode(p.s.Model, req.State, qs)
		d, err := engine.Call(ctx, admitted, func(ctx context.Context) (*decisions.Decision, error) {
			var d decisions.Decision
			err := p.client.Post(ctx, "decisions", body, &d)
			return &d, err
		}, func(d *decisions.Decision, err error) systemone.Usage {
			var u decisions.Usage
			if err == nil {
				u = d.Usage
			}
			c := charged(int64(u.InputTokens), int64(u.OutputTokens), len(qs), body)
			out.Usage.InputTokens += c.InputTokens
			out.Usage.OutputTokens += c.OutputTokens
			return c
		})
		if err != nil {
			return nil, p.failure(ctx, err)
		}
		if len(d.Answers) != len(qs) {
			return nil, invalid(p.s.Source, "the Decisions provider gave %d answers to %d questions", len(d.Answers), len(qs))
		}
		for i, name := range batch {
			a, err := p.answer(qs[i], d.Answers[i])
			if err != nil {
				return nil, p.annotate(err, name)
			}
			out.Answers[name] = named(req.Questions[name], a)
		}
		if out.Model == "" {
			out.Model = d.Model
		}
	}
	if out.Model == "" {
		out.Model = p.s.Model
	}
	return out, nil
}

// answer reads one decision back into the calibrated answer to q.
func (p *Decisions) answer(q systemone.Question, a decisions.Answer) (systemone.Answer, error) {
	w, err := decisions.Weights(q, a)
	if err != nil {
		return systemone.Answer{}, err
	}
	return calibrated(q, w, p.s.temperature(DecisionsReadout, q))
}

// annotate names the question in the error of its answer.
func (p *Decisions) annotate(err error, name string) error {
	// System One has no refusal answer, and a refusal is about what was
	// asked: the request fails as the caller's (400), and no other
	// provider is asked to answer what this one declined.
	if errors.Is(err, decisions.ErrRefused) {
		return fault.New(fault.InvalidArgument, "the upstream model refused to answer question %q", name)
	}
	return invalid(p.s.Source, "the Decisions provider's answer to %q: %v", name, err)
}

// failure says what a failed call means here, as the chat adapter
// classifies its provider's errors: 408, 429, 5xx, timeouts and lost
// connections are overload (another provider, or a retry later, may
// succeed); 401, 403 and 404 refuse the settings; any other 4xx refuses
// what was asked, unless it names the model.
func (p *Decisions) failure(ctx context.Context, err error) error {
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		if errors.Is(ctx.Err(), context.Canceled) {
			return fmt.Errorf("request canceled: %w", ctx.Err())
		}
		reason := "no answer"
		if errors.Is(err, context.DeadlineExceeded) {
			reason = "call timeout"
		} else if chatmodel.IsUnreachable(err) {
			reason = "unreachable"
		}
		return p.overloaded(reason, 0, err)
	}
	status, msg := apiErr.StatusCode, p.redact(apiErr.Message)
	misconfigured := func(setting, format string, args ...any) error {
		return fault.New(fault.Misconfigured, "%s: %s; check %s", p.s.Source, fmt.Sprintf(format, args...), setting)
	}
	aboutModel := apiErr.Param == "model" || strings.Contains(apiErr.Code, "model")
	switch {
	case status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500:
		var wait time.Duration
		if apiErr.Response != nil {
			wait, _ = systemone.RetryAfter(apiErr.Response.Header, time.Now())
		}
		return p.overloaded(fmt.Sprintf("provider %d", status), wait, nil)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		// The provider's text may quote part of the key; it is not shown.
		return misconfigured(p.s.KeyEnv, "the Decisions provider refused the key (%d)", status)
	case status == http.StatusNotFound && !aboutModel && !strings.Contains(strings.ToLower(msg), "model"):
		return misconfigured("the base URL", "the provider has no Decisions API under its base URL (404); it must include /v1")
	case status == http.StatusNotFound || aboutModel:
		return withCause(misconfigured("the model", "the Decisions provider refused the model (%d)", status), p.s, msg)
	case status == http.StatusRequestEntityTooLarge:
		return withCause(fault.New(fault.TooLarge, "the upstream refused the request as too large"), p.s, msg)
	}
	return withCause(fault.New(fault.InvalidArgument, "the upstream refused the request (%d)", status), p.s, msg)
}

func (p *Decisions) overloaded(reason string, wait time.Duration, err error) error {
	if wait <= 0 {
		wait = DefaultRetryAfter
	}
	fe := fault.Retry(fault.Overloaded, wait, "%s: the Decisions provider did not answer (%s)", p.s.Source, reason)
	fe.Err = err
	return fe
}

// redact removes the key from provider text that is about to be returned.
func (p *Decisions) redact(s string) string {
	if k := p.s.APIKey; len(k) >= 4 {
		s = strings.ReplaceAll(s, k, "[key]")
	}
	return chatmodel.Excerpt(s)
}

// PlannedInputTokens is the request's own tokens: the upstream calls carry the request once between them.
func (*Decisions) PlannedInputTokens(_ systemone.Request, tokens int) int { return tokens }
