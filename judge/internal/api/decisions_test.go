package api

// POST /v1/decisions driven by openai-go's own client.Decisions.New on a
// real listener: the request it sends, the answer it reads, the errors it
// parses.

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/fault"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/decisions"
	"github.com/judgeworks/judge/internal/engine/lexical"
	"github.com/judgeworks/judge/internal/idempotency"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/shared/systemone"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// setup describes one judge on a real listener. Keys: "k" (id 1) and
// "other" (id 2) may use every model, "limited" (id 3) only a model this
// judge does not serve.
type setup struct {
	backend      engine.Engine
	limits       ratelimit.Settings // zero: 1000 requests and 1,000,000 tokens a minute
	maxQuestions int
	store        *idempotency.Store
	keys         string // zero: "k,other,limited:elsewhere-latest"
}

func listen(t *testing.T, s setup) *httptest.Server {
	t.Helper()
	if s.keys == "" {
		s.keys = "k,other,limited:elsewhere-latest"
	}
	keys, err := auth.ParseBearerKeys(s.keys)
	if err != nil {
		t.Fatal(err)
	}
	if s.backend == nil {
		s.backend = lexical.Engine{}
	}
	reg := registry.New()
	if err := reg.Add(registry.Model{Name: "m-1", Aliases: []string{"m-latest"}, Backend: s.backend}); err != nil {
		t.Fatal(err)
	}
	if s.limits.RPM == 0 {
		s.limits.RPM, s.limits.TPM = 1000, 1_000_000
	}
	s.limits.IDs = keyIDs(keys)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := New(quiet, Deps{
		Keys: keys, Limiter: ratelimit.New(context.Background(), s.limits), Registry: reg, Metrics: metrics.New(),
		Tokens: byteCounter{}, MaxQuestions: s.maxQuestions, Idempotency: s.store,
	})
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv
}

// client is openai-go's client for the judge at url: base URL url/v1/, as
// the SDK joins "decisions" to it, and no retries, so each call is one
// request.
func client(url, key string, opts ...option.RequestOption) *openai.Client {
	c := openai.NewClient(append([]option.RequestOption{
		option.WithBaseURL(url + "/v1/"), option.WithAPIKey(key), option.WithMaxRetries(0),
	}, opts...)...)
	return &c
}

const ticket = "I was charged twice for my subscription and I am furious. Please refund me!"

func text(s string) openai.DecisionNewParamsQuestionPredicateInstructionsUnion {
	return openai.DecisionNewParamsQuestionPredicateInstructionsUnion{OfString: openai.String(s)}
}

func choiceOf(v string, desc string) openai.DecisionNewParamsQuestionChoiceChoice {
	c := openai.DecisionNewParamsQuestionChoiceChoice{Value: openai.DecisionNewParamsQuestionChoiceChoiceValueUnion{OfString: openai.String(v)}}
	if desc != "" {
		c.Description = openai.String(desc)
	}
	return c
}

// ticketParams asks every question type about the ticket: a named
// predicate, an unnamed choice with a boolean value among strings, a named
// score, and a predicate about an image, which the judge refuses.
func ticketParams() openai.DecisionNewParams {
	noneOfThese := openai.DecisionNewParamsQuestionChoiceChoice{
		Value:       openai.DecisionNewParamsQuestionChoiceChoiceValueUnion{OfBool: openai.Bool(false)},
		Description: openai.String("none of these teams"),
	}
	return openai.DecisionNewParams{
		Model: "m-latest",
		Input: openai.DecisionNewParamsInputUnion{OfString: openai.String(ticket)},
		Questions: []openai.DecisionNewParamsQuestionUnion{
			{OfPredicate: &openai.DecisionNewParamsQuestionPredicate{Name: openai.String("refund"), Instructions: text("Is the customer asking for a refund?")}},
			{OfChoice: &openai.DecisionNewParamsQuestionChoice{
				Instructions: openai.DecisionNewParamsQuestionChoiceInstructionsUnion{OfString: openai.String("Which team should handle it?")},
				Choices: []openai.DecisionNewParamsQuestionChoiceChoice{
					choiceOf("billing", "Payments, invoices, refunds and charges"),
					choiceOf("technical", "Bugs, errors, crashes and login problems"),
					noneOfThese,
				}}},
			{OfScore: &openai.DecisionNewParamsQuestionScore{
				Name:         openai.String("anger"),
				Instructions: openai.DecisionNewParamsQuestionScoreInstructionsUnion{OfString: openai.String("How angry is the customer?")},
				Levels: []openai.DecisionNewParamsQuestionScoreLevel{
					{Label: "calm"}, {Label: "annoyed"}, {Label: "furious", Description: openai.String("angry, furious, shouting")},
				}}},
			{OfPredicate: &openai.DecisionNewParamsQuestionPredicate{
				Name: openai.String("photo"),
				Instructions: openai.DecisionNewParamsQuestionPredicateInstructionsUnion{OfDecisionQuestionInputPartArray: []shared.DecisionQuestionInputPartUnionParam{
					shared.DecisionQuestionInputPartParamOfInputText("Does this photo show the receipt?"),
					shared.DecisionQuestionInputPartParamOfInputImage("data:image/png;base64,iVBORw0KGgo="),
				}}}},
		},
		PromptCacheKey:   openai.String("tickets"),
		SafetyIdentifier: openai.String("user-1234"),
	}
}

// systemOneTwin is the same questions as a System One request, without the
// image question: what the translation must hand the engine. The unnamed
// choice, second, goes by the positional name "#1".
const systemOneTwin = `{"model": "m-latest", "state": "` + ticket + `", "questions": {
 "refund": {"type": "noul", "instructions": "Is the customer asking for a refund?"},
 "#1": {"type": "choice", "instructions": "Which team should handle it?",
          "criteria": {"billing": "Payments, invoices, refunds and charges",
                       "technical": "Bugs, errors, crashes and login problems",
                       "false": "none of these teams"}},
 "anger": {"type": "score", "instructions": "How angry is the customer?",
           "criteria": ["calm", "annoyed", "furious: angry, furious, shouting"]}}}`

func TestDecisionsEveryQuestionType(t *testing.T) {
	srv := listen(t, setup{})
	var httpResp *http.Response
	d, err := client(srv.URL, "k").Decisions.New(context.Background(), ticketParams(), option.WithResponseInto(&httpResp))
	if err != nil {
		t.Fatal(err)
	}
	if d.Model != "m-1" {
		t.Errorf("model %q, want the exact version m-1", d.Model)
	}
	if len(d.Answers) != 4 {
		t.Fatalf("%d answers, want 4: %s", len(d.Answers), d.RawJSON())
	}
	// The engine's own answers to the same questions, through System One.
	var twin systemone.Response
	if a := post(t, srv.URL, "k", systemOneTwin); a.status != http.StatusOK || json.Unmarshal([]byte(a.body), &twin) != nil {
		t.Fatalf("System One twin: %d %s", a.status, a.body)
	}

	refund, ok := d.Answers[0].AsAny().(openai.DecisionAnswerPredicate)
	if !ok || refund.Name != "refund" || refund.Probability != *twin.Answers["refund"].Noul || refund.Probability <= 0.5 {
		t.Errorf("answer 0: %s, want predicate refund with p(yes) %v", d.Answers[0].RawJSON(), *twin.Answers["refund"].Noul)
	}

	team, ok := d.Answers[1].AsAny().(openai.DecisionAnswerChoice)
	if !ok || team.Choice.AsString() != "billing" || !strings.Contains(d.Answers[1].RawJSON(), `"name":null`) {
		t.Errorf("answer 1: %s, want the unnamed choice billing", d.Answers[1].RawJSON())
	}
	if team.Confidence != *twin.Answers["#1"].Confidence {
		t.Errorf("choice confidence %v, want %v", team.Confidence, *twin.Answers["#1"].Confidence)
	}
	wantValues := []string{`"billing"`, `"technical"`, `false`}
	wantNames := []string{"billing", "technical", "false"}
	if len(team.Probabilities) != 3 {
		t.Fatalf("choice probabilities: %s", d.Answers[1].RawJSON())
	}
	sum := 0.0
	for i, p := range team.Probabilities {
		// Values come back typed as given: the boolean stays a boolean.
		if p.Value.RawJSON() != wantValues[i] || p.Probability != twin.Answers["#1"].Probabilities[wantNames[i]] {
			t.Errorf("choice probability %d: %s = %v, want %s = %v", i, p.Value.RawJSON(), p.Probability, wantValues[i], twin.Answers["#1"].Probabilities[wantNames[i]])
		}
		sum += p.Probability
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("choice probabilities sum to %v", sum)
	}

	anger, ok := d.Answers[2].AsAny().(openai.DecisionAnswerScore)
	if !ok || anger.Name != "anger" || anger.Score != *twin.Answers["anger"].Score || anger.Confidence != *twin.Answers["anger"].Confidence {
		t.Errorf("answer 2: %s, want score anger as System One answers it", d.Answers[2].RawJSON())
	}
	expect, sum := 0.0, 0.0
	for i, p := range anger.Probabilities {
		if p.Value != int64(i) || p.Label != []string{"calm", "annoyed", "furious"}[i] || p.Probability != twin.Answers["anger"].Probabilities[strconv.Itoa(i)] {
			t.Errorf("score probability %d: %+v", i, p)
		}
		expect += float64(i) * p.Probability
		sum += p.Probability
	}
	if math.Abs(sum-1) > 1e-9 || math.Abs(expect-anger.Score) > 1e-9 {
		t.Errorf("score %v with probabilities summing to %v, want Σ i·pᵢ = %v", anger.Score, sum, expect)
	}

	photo, ok := d.Answers[3].AsAny().(openai.DecisionAnswerRefusal)
	if !ok || photo.Name != "photo" {
		t.Errorf("answer 3: %s, want a refusal named photo", d.Answers[3].RawJSON())
	}

	u := d.Usage
	if u.InputTokens != int64(twin.Usage.InputTokens) || u.OutputTokens != 0 || u.TotalTokens != u.InputTokens+u.OutputTokens ||
		!u.JSON.InputTokensDetails.Valid() || !u.JSON.OutputTokensDetails.Valid() {
		t.Errorf("usage %s, want the System One twin's %d input tokens and the details", u.RawJSON(), twin.Usage.InputTokens)
	}
	for _, h := range []string{"x-request-id", "x-typesafe-request-id", "x-ratelimit-remaining-requests", "x-ratelimit-remaining-tokens"} {
		if httpResp.Header.Get(h) == "" {
			t.Errorf("no %s", h)
		}
	}
}

// TestDecisionsKeepQuestionOrder: answers follow the questions, whatever
// the order, and an answer does not depend on its neighbours or its name.
func TestDecisionsKeepQuestionOrder(t *testing.T) {
	srv := listen(t, setup{})
	c := client(srv.URL, "k")
	params := ticketParams()
	first, err := c.Decisions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	q := params.Questions
	params.Questions = []openai.DecisionNewParamsQuestionUnion{q[3], q[2], q[1], q[0]}
	params.Questions[3].OfPredicate = &openai.DecisionNewParamsQuestionPredicate{Instructions: q[0].OfPredicate.Instructions} // now unnamed
	reversed, err := c.Decisions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		a, b := first.Answers[i], reversed.Answers[3-i]
		if a.Type != b.Type || a.Probability != b.Probability || a.Score != b.Score || a.Confidence != b.Confidence {
			t.Errorf("question %d: %s in order, %s reversed", i, a.RawJSON(), b.RawJSON())
		}
	}
	if reversed.Answers[3].Name != "" || !strings.Contains(reversed.Answers[3].RawJSON(), `"name":null`) {
		t.Errorf("the unnamed last answer: %s", reversed.Answers[3].RawJSON())
	}
}

// TestDecisionsMessageInput: input as messages with text and JSON parts,
// and tool calls with their outputs.
func TestDecisionsMessageInput(t *testing.T) {
	srv := listen(t, setup{})
	c := client(srv.URL, "k")
	ask := func(input openai.DecisionNewParamsInputUnion) (*openai.Decision, error) {
		return c.Decisions.New(context.Background(), openai.DecisionNewParams{
			Model: "m-1", Input: input,
			Questions: []openai.DecisionNewParamsQuestionUnion{{OfPredicate: &openai.DecisionNewParamsQuestionPredicate{
				Instructions: text("Is the customer asking for a refund?")}}},
		})
	}
	plain, err := ask(openai.DecisionNewParamsInputUnion{OfString: openai.String(ticket)})
	if err != nil {
		t.Fatal(err)
	}
	// A lone user message is its text: the same answer as the string.
	lone, err := ask(openai.DecisionNewParamsInputUnion{OfDecisionInputMessageArray: []openai.DecisionInputMessageParam{{
		Role: "user", Content: openai.DecisionInputMessageContentUnionParam{OfString: openai.String(ticket)}}}})
	if err != nil || lone.Answers[0].Probability != plain.Answers[0].Probability {
		t.Errorf("lone user message: %v %v, want the string's %v", err, lone, plain.Answers[0].Probability)
	}
	mixed, err := ask(openai.DecisionNewParamsInputUnion{OfDecisionNewsInputArray: []openai.DecisionNewParamsInputArrayItemUnion{
		{OfDecisionInputSystemMessage: &openai.DecisionNewParamsInputArrayItemDecisionInputSystemMessage{
			Content: openai.DecisionNewParamsInputArrayItemDecisionInputSystemMessageContentUnion{OfString: openai.String("Support transcript.")}}},
		{OfDecisionInputUserMessage: &openai.DecisionNewParamsInputArrayItemDecisionInputUserMessage{
			Content: openai.DecisionNewParamsInputArrayItemDecisionInputUserMessageContentUnion{OfParts: []openai.DecisionInputPartUnionParam{
				openai.DecisionInputPartParamOfInputText(ticket),
				openai.DecisionInputPartParamOfInputJSON(map[string]any{"order": map[string]any{"charges": 2, "refund_requested": true}}),
			}}}},
		{OfFunctionCall: &openai.DecisionNewParamsInputArrayItemFunctionCall{CallID: "c1", Name: "lookup_order", Arguments: `{"id": 7}`}},
		{OfFunctionCallOutput: &openai.DecisionNewParamsInputArrayItemFunctionCallOutput{CallID: "c1",
			Output: openai.DecisionNewParamsInputArrayItemFunctionCallOutputOutputUnion{OfString: openai.String("two charges found")}}},
		{OfDecisionInputAssistantMessage: &openai.DecisionNewParamsInputArrayItemDecisionInputAssistantMessage{
			Content: openai.DecisionNewParamsInputArrayItemDecisionInputAssistantMessageContentUnion{OfString: openai.String("I can refund one charge.")}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if p := mixed.Answers[0].Probability; p <= 0.5 || p > 1 {
		t.Errorf("refund asked in a transcript: p(yes) %v, want above 0.5 (the words are there)", p)
	}
	// A tool output must answer a call made before it.
	_, err = ask(openai.DecisionNewParamsInputUnion{OfDecisionNewsInputArray: []openai.DecisionNewParamsInputArrayItemUnion{
		{OfFunctionCallOutput: &openai.DecisionNewParamsInputArrayItemFunctionCallOutput{CallID: "nobody",
			Output: openai.DecisionNewParamsInputArrayItemFunctionCallOutputOutputUnion{OfString: openai.String("x")}}},
	}})
	wantAPIError(t, err, http.StatusUnprocessableEntity, "validation_error", "value_error", "input[0].call_id")
}

// wantAPIError checks that err is openai-go's *openai.Error with the
// status, type, code and (when not empty) param.
func wantAPIError(t *testing.T, err error, status int, typ, code, param string) *openai.Error {
	t.Helper()
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v (%T), want *openai.Error %d", err, err, status)
	}
	if apiErr.StatusCode != status || apiErr.Type != typ || apiErr.Code != code || apiErr.Message == "" || (param != "" && apiErr.Param != param) {
		t.Errorf("error %d type %q code %q param %q message %q; want %d %q %q %q",
			apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Param, apiErr.Message, status, typ, code, param)
	}
	if apiErr.Response.Header.Get("x-request-id") == "" {
		t.Error("an error without x-request-id")
	}
	return apiErr
}

func TestDecisionsErrorsAsOpenAIErrors(t *testing.T) {
	srv := listen(t, setup{})
	ctx := context.Background()
	t.Run("401 unknown key", func(t *testing.T) {
		_, err := client(srv.URL, "wrong").Decisions.New(ctx, ticketParams())
		wantAPIError(t, err, http.StatusUnauthorized, "authentication_error", "authentication_error", "")
	})
	t.Run("403 model not allowed", func(t *testing.T) {
		_, err := client(srv.URL, "limited").Decisions.New(ctx, ticketParams())
		e := wantAPIError(t, err, http.StatusForbidden, "permission_denied", "permission_denied", "")
		if !strings.Contains(e.Message, "m-latest") {
			t.Errorf("the 403 does not name the model: %s", e.Message)
		}
	})
	t.Run("400 unknown model", func(t *testing.T) {
		p := ticketParams()
		p.Model = "gpt-6-luna"
		_, err := client(srv.URL, "k").Decisions.New(ctx, p)
		wantAPIError(t, err, http.StatusBadRequest, "api_usage_error", "api_usage_error", "")
	})
	t.Run("413 body over 1 MiB", func(t *testing.T) {
		p := ticketParams()
		p.Input.OfString = openai.String(strings.Repeat("a", DefaultBodyLimit))
		_, err := client(srv.URL, "k").Decisions.New(ctx, p)
		wantAPIError(t, err, http.StatusRequestEntityTooLarge, "request_too_large", "request_too_large", "")
	})
	t.Run("422 one choice", func(t *testing.T) {
		p := ticketParams()
		p.Questions[1].OfChoice.Choices = p.Questions[1].OfChoice.Choices[:1]
		_, err := client(srv.URL, "k").Decisions.New(ctx, p)
		wantAPIError(t, err, http.StatusUnprocessableEntity, "validation_error", "too_short", "questions[1].choices")
	})
	t.Run("422 image in the input", func(t *testing.T) {
		p := ticketParams()
		p.Input = openai.DecisionNewParamsInputUnion{OfDecisionInputMessageArray: []openai.DecisionInputMessageParam{{Role: "user",
			Content: openai.DecisionInputMessageContentUnionParam{OfParts: []openai.DecisionInputPartUnionParam{
				openai.DecisionInputPartParamOfInputText("see the picture"), openai.DecisionInputPartParamOfInputImage("https://example.test/a.png"),
			}}}}}
		e := wantAPIError(t, err422(ctx, srv.URL, p), http.StatusUnprocessableEntity, "validation_error", "image_unsupported", "input[0].content")
		if !strings.Contains(e.Message, "images") {
			t.Errorf("message %q does not say images are not read", e.Message)
		}
	})
	t.Run("422 repeated names", func(t *testing.T) {
		p := ticketParams()
		p.Questions[2].OfScore.Name = openai.String("refund")
		wantAPIError(t, err422(ctx, srv.URL, p), http.StatusUnprocessableEntity, "validation_error", "value_error", "questions[2].name")
	})
	t.Run("422 a string and a boolean of the same text", func(t *testing.T) {
		p := ticketParams()
		p.Questions[1].OfChoice.Choices[0] = choiceOf("false", "")
		wantAPIError(t, err422(ctx, srv.URL, p), http.StatusUnprocessableEntity, "validation_error", "value_error", "questions[1].choices[2].value")
	})
	t.Run("422 input over the token bound", func(t *testing.T) {
		p := ticketParams()
		// byteCounter counts bytes: 40,000 > the 32,000 of state plus a question.
		p.Input.OfString = openai.String(strings.Repeat("word ", 8000))
		wantAPIError(t, err422(ctx, srv.URL, p), http.StatusUnprocessableEntity, "validation_error", "too_long", "input")
	})
	t.Run("422 more than 400 questions", func(t *testing.T) {
		p := ticketParams()
		for len(p.Questions) <= decisions.MaxQuestions {
			p.Questions = append(p.Questions, p.Questions[1])
		}
		wantAPIError(t, err422(ctx, srv.URL, p), http.StatusUnprocessableEntity, "validation_error", "too_long", "questions")
	})
	t.Run("400 not JSON", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/decisions", strings.NewReader(`{"model": `))
		req.Header.Set("Authorization", "Bearer k")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body decisions.ErrorBody
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(raw, &body) != nil || body.Error.Type != "invalid_request" || body.Error.Message == "" {
			t.Errorf("%d %s, want 400 in the OpenAI shape", resp.StatusCode, raw)
		}
	})
	t.Run("404 and 405 keep their shape", func(t *testing.T) {
		resp, err := http.Get(srv.URL + "/v1/decisions")
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(string(raw), `"error":{"message"`) {
			t.Errorf("GET /v1/decisions: %d %s", resp.StatusCode, raw)
		}
	})
}

func err422(ctx context.Context, url string, p openai.DecisionNewParams) error {
	_, err := client(url, "k").Decisions.New(ctx, p)
	return err
}

func TestDecisionsRateLimitAndOverload(t *testing.T) {
	t.Run("429", func(t *testing.T) {
		srv := listen(t, setup{limits: ratelimit.Settings{RPM: 1, TPM: 1_000_000}})
		c := client(srv.URL, "k")
		if _, err := c.Decisions.New(context.Background(), ticketParams()); err != nil {
			t.Fatal(err)
		}
		_, err := c.Decisions.New(context.Background(), ticketParams())
		e := wantAPIError(t, err, http.StatusTooManyRequests, "rate_limit_exceeded", "rate_limit_exceeded", "")
		if ms, err := strconv.Atoi(e.Response.Header.Get("retry-after-ms")); err != nil || ms <= 0 || ms > 60_000 {
			t.Errorf("retry-after-ms %q, want the wait for the next request", e.Response.Header.Get("retry-after-ms"))
		}
	})
	t.Run("429 tokens", func(t *testing.T) {
		// The request needs about 360 tokens (bytes, here): one fits in 500.
		srv := listen(t, setup{limits: ratelimit.Settings{RPM: 1000, TPM: 500}})
		c := client(srv.URL, "k")
		if _, err := c.Decisions.New(context.Background(), ticketParams()); err != nil {
			t.Fatal(err)
		}
		_, err := c.Decisions.New(context.Background(), ticketParams())
		wantAPIError(t, err, http.StatusTooManyRequests, "token_rate_limit_exceeded", "token_rate_limit_exceeded", "")
	})
	t.Run("529", func(t *testing.T) {
		srv := listen(t, setup{backend: failing{fault.Retry(fault.Overloaded, time.Second, "upstream saturated")}})
		_, err := client(srv.URL, "k").Decisions.New(context.Background(), ticketParams())
		e := wantAPIError(t, err, 529, "overloaded", "overloaded", "")
		if e.Response.Header.Get("Retry-After") == "" {
			t.Error("529 without Retry-After")
		}
	})
}

// TestOneStatusTableTwoShapes: the same failure gets the same status on
// both endpoints, each in its own body shape.
func TestOneStatusTableTwoShapes(t *testing.T) {
	decisionsBody := `{"model": "m-latest", "input": "s", "questions": [{"type": "predicate", "instructions": "i"}]}`
	for _, err := range []error{
		errors.New("stray"),
		fault.New(fault.Misconfigured, "model not found upstream"),
		fault.Retry(fault.Overloaded, time.Second, "slow down"),
		context.DeadlineExceeded,
	} {
		srv := listen(t, setup{backend: failing{err}})
		one := post(t, srv.URL, "k", body)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/decisions", strings.NewReader(decisionsBody))
		req.Header.Set("Authorization", "Bearer k")
		resp, herr := http.DefaultClient.Do(req)
		if herr != nil {
			t.Fatal(herr)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var d decisions.ErrorBody
		if jerr := json.Unmarshal(raw, &d); jerr != nil || resp.StatusCode != one.status || d.Error.Type != one.errorType(t) || d.Error.Code != d.Error.Type {
			t.Errorf("%v: decisions %d %s, System One %d %s", err, resp.StatusCode, raw, one.status, one.body)
		}
		if strings.Contains(string(raw), "stray") {
			t.Errorf("internal text leaked: %s", raw)
		}
	}
}

// TestAllRefusedAsksNothing: a request whose every question is refused is
// answered without the engine and without a token charge.
func TestAllRefusedAsksNothing(t *testing.T) {
	backend := &planned{tokens: 50}
	srv := listen(t, setup{backend: backend})
	p := ticketParams()
	p.Questions = p.Questions[3:]
	var httpResp *http.Response
	d, err := client(srv.URL, "k").Decisions.New(context.Background(), p, option.WithResponseInto(&httpResp))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Answers) != 1 || d.Answers[0].Type != "refusal" || d.Model != "m-1" || d.Usage.InputTokens != 0 {
		t.Errorf("decision %s", d.RawJSON())
	}
	if n := backend.asked.Load(); n != 0 {
		t.Errorf("the engine was asked %d times", n)
	}
	if got := httpResp.Header.Get("x-ratelimit-remaining-tokens"); got != "1000000" {
		t.Errorf("x-ratelimit-remaining-tokens %q, want the full 1000000", got)
	}
}

func TestDecisionsMaxQuestionsSetting(t *testing.T) {
	srv := listen(t, setup{maxQuestions: 3})
	_, err := client(srv.URL, "k").Decisions.New(context.Background(), ticketParams())
	e := wantAPIError(t, err, http.StatusUnprocessableEntity, "validation_error", "too_long", "questions")
	if !strings.Contains(e.Message, "at most 3") {
		t.Errorf("message %q does not give the bound", e.Message)
	}
}

// A JSON key given twice is refused on /v1/decisions as on /v1/systemone
// (422 value_error naming the field), never read as its last value.
func TestDuplicateKeysRefusedOnBothRoutes(t *testing.T) {
	srv := listen(t, setup{})
	decisions := map[string]string{
		"model":                     `{"model": "m-latest", "model": "m-latest", "input": "x", "questions": [{"type": "predicate", "instructions": "a"}]}`,
		"questions[0].instructions": `{"model": "m-latest", "input": "x", "questions": [{"type": "predicate", "instructions": "a", "instructions": "b"}]}`,
	}
	for param, body := range decisions {
		var resp *http.Response
		err := client(srv.URL, "k").Post(context.Background(), "decisions", json.RawMessage(body), nil, option.WithResponseInto(&resp))
		wantAPIError(t, err, http.StatusUnprocessableEntity, "validation_error", "value_error", param)
	}
	a := mustPost(t, srv.URL, "/v1/systemone", "k", "", `{"model": "m-latest", "model": "m-latest", "state": "x", "questions": {"q": {"type": "noul", "instructions": "a"}}}`)
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "value_error") {
		t.Errorf("/v1/systemone: %d %s", a.status, a.body)
	}
}
