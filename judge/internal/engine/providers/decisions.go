package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/judgeworks/judge/internal/engine"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/systemone"
)

// DecisionsReadout is the readout name under which the calibration file's
// temperatures apply to a Decisions upstream's answers.
const DecisionsReadout = "decisions"

// DecisionsMaxQuestions is the most questions one Decisions call takes;
// a request with more is sent as consecutive calls of at most this many.
const DecisionsMaxQuestions = 400

// Decisions forwards requests to OpenAI's Decisions API (POST
// /v1/decisions) with openai-go's client.Decisions.New. It is safe for
// concurrent use.
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
// DecisionsMaxQuestions per call, each choice's options in canonical
// order), and the decisions back into calibrated System One answers. The
// upstream's own choice and confidence are not used: they are recomputed
// from its probabilities with the formulas every engine of the judge uses.
// Question names are not sent, as the chat adapter never shows them: a
// name like "is_spam_obviously" would lead the model. A question the model
// refuses fails the request as the caller's (see refused). Each question
// goes as sent says, and its answer comes back under req's names (named).
func (p *Decisions) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	return askCoherent(ctx, req, p.ask)
}

func (p *Decisions) ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	admitted, err := p.slots.Admit(ctx, (len(req.Questions)+DecisionsMaxQuestions-1)/DecisionsMaxQuestions)
	if err != nil {
		return nil, err
	}
	defer admitted.Done()
	names := req.QuestionNames()
	out := &systemone.Response{Answers: make(map[string]systemone.Answer, len(names)), Order: names}
	for start := 0; start < len(names); start += DecisionsMaxQuestions {
		batch := names[start:min(start+DecisionsMaxQuestions, len(names))]
		qs := make([]systemone.Question, len(batch))
		for i, name := range batch {
			qs[i] = sent(req.Questions[name])
		}
		d, err := engine.Call(ctx, admitted, func() (*openai.Decision, error) { return p.client.Decisions.New(ctx, p.params(req.State, qs)) })
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
		out.Usage.InputTokens += int(d.Usage.InputTokens)
		out.Usage.OutputTokens += int(d.Usage.OutputTokens)
	}
	if out.Model == "" {
		out.Model = p.s.Model
	}
	return out, nil
}

// params is the Decisions request for qs about state. The input is the
// state as a model reads it (systemone.ContentText): text as it is, JSON
// as compact JSON.
func (p *Decisions) params(state json.RawMessage, qs []systemone.Question) openai.DecisionNewParams {
	params := openai.DecisionNewParams{
		Model:     p.s.Model,
		Input:     openai.DecisionNewParamsInputUnion{OfString: openai.String(systemone.ContentText(state))},
		Questions: make([]openai.DecisionNewParamsQuestionUnion, len(qs)),
	}
	for i, q := range qs {
		instructions := strings.TrimSpace(systemone.ContentText(q.Instructions))
		if instructions == "" || string(q.Instructions) == "null" {
			instructions = "(no instructions)"
		}
		switch q.Type {
		case systemone.TypeNoul:
			// A predicate is a statement to estimate; the caller's
			// meanings of yes and no go with it, as the chat prompt
			// shows them.
			if q.Noul != nil {
				t, f := systemone.ContentText(q.Noul.True), systemone.ContentText(q.Noul.False)
				if t != "" || f != "" {
					instructions += "\n\ntrue means: " + t + "\nfalse means: " + f
				}
			}
			params.Questions[i].OfPredicate = &openai.DecisionNewParamsQuestionPredicate{
				Instructions: openai.DecisionNewParamsQuestionPredicateInstructionsUnion{OfString: openai.String(instructions)},
			}
		case systemone.TypeChoice:
			choices := make([]openai.DecisionNewParamsQuestionChoiceChoice, len(q.Options))
			for j, o := range q.Options {
				choices[j].Value.OfString = openai.String(o.Name)
				if len(o.Description) == 0 || string(o.Description) == "null" {
					continue
				}
				if d := strings.TrimSpace(systemone.ContentText(o.Description)); d != "" {
					choices[j].Description = openai.String(d)
				}
			}
			params.Questions[i].OfChoice = &openai.DecisionNewParamsQuestionChoice{
				Instructions: openai.DecisionNewParamsQuestionChoiceInstructionsUnion{OfString: openai.String(instructions)},
				Choices:      choices,
			}
		case systemone.TypeScore:
			levels := make([]openai.DecisionNewParamsQuestionScoreLevel, len(q.Levels))
			for j, l := range q.Levels {
				// A level given as null is read by its position alone.
				levels[j].Label = strings.TrimSpace(systemone.ContentText(l))
				if levels[j].Label == "" {
					levels[j].Label = strconv.Itoa(j)
				}
			}
			params.Questions[i].OfScore = &openai.DecisionNewParamsQuestionScore{
				Instructions: openai.DecisionNewParamsQuestionScoreInstructionsUnion{OfString: openai.String(instructions)},
				Levels:       levels,
			}
		}
	}
	return params
}

// errRefused is a question the upstream model declined to answer. System
// One has no refusal answer, and a refusal is about what was asked: the
// request fails as the caller's (400), and no other provider is asked to
// answer what this one declined.
var errRefused = errors.New("refused")

// answer reads one decision back into the answer to q.
func (p *Decisions) answer(q systemone.Question, a openai.DecisionAnswerUnion) (systemone.Answer, error) {
	if a.Type == "refusal" {
		return systemone.Answer{}, errRefused
	}
	want := map[systemone.QuestionType]string{systemone.TypeNoul: "predicate", systemone.TypeChoice: "choice", systemone.TypeScore: "score"}[q.Type]
	if a.Type != want {
		return systemone.Answer{}, fmt.Errorf("a %q answer to a %s question", a.Type, want)
	}
	var w []float64
	switch q.Type {
	case systemone.TypeNoul:
		yes := a.AsPredicate().Probability
		if !(yes >= 0 && yes <= 1) {
			return systemone.Answer{}, fmt.Errorf("probability %v outside [0, 1]", yes)
		}
		w = []float64{yes, 1 - yes}
	case systemone.TypeChoice:
		index := make(map[string]int, len(q.Options))
		for i, o := range q.Options {
			index[o.Name] = i
		}
		w = make([]float64, len(q.Options))
		seen := make([]bool, len(q.Options))
		for _, cp := range a.AsChoice().Probabilities {
			var value string
			if err := json.Unmarshal([]byte(cp.Value.RawJSON()), &value); err != nil {
				return systemone.Answer{}, fmt.Errorf("choice value %s is not one of the options sent", cp.Value.RawJSON())
			}
			i, ok := index[value]
			if !ok || seen[i] {
				return systemone.Answer{}, fmt.Errorf("choice value %q is unknown or repeated", value)
			}
			seen[i], w[i] = true, cp.Probability
		}
		for i, s := range seen {
			if !s {
				return systemone.Answer{}, fmt.Errorf("no probability for option %q", q.Options[i].Name)
			}
		}
	case systemone.TypeScore:
		w = make([]float64, len(q.Levels))
		seen := make([]bool, len(q.Levels))
		for _, sp := range a.AsScore().Probabilities {
			i := int(sp.Value)
			if sp.Value < 0 || i >= len(q.Levels) || seen[i] {
				return systemone.Answer{}, fmt.Errorf("score value %d is outside 0..%d or repeated", sp.Value, len(q.Levels)-1)
			}
			seen[i], w[i] = true, sp.Probability
		}
		for i, s := range seen {
			if !s {
				return systemone.Answer{}, fmt.Errorf("no probability for level %d", i)
			}
		}
	}
	for _, x := range w {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return systemone.Answer{}, fmt.Errorf("probability %v is not a finite number ≥ 0", x)
		}
	}
	return calibrated(q, w, p.s.temperature(DecisionsReadout, q))
}

// annotate names the question in the error of its answer.
func (p *Decisions) annotate(err error, name string) error {
	if errors.Is(err, errRefused) {
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
