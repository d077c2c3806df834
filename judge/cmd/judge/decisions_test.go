package main_test

// POST /v1/decisions and Idempotency-Key against the built judge: openai-go's
// client.Decisions.New as callers use it, a local chat upstream speaking the
// chat-completions wire format where a language model is needed, and two
// judge processes on one Redis.

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/shared/chatmodel/chatmodeltest"
	"github.com/judgeworks/shared/redistest"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// decisionsClient is openai-go's client for a judge: base URL <judge>/v1/,
// to which the SDK joins "decisions"; no retries unless asked.
func decisionsClient(j *judge, key string, opts ...option.RequestOption) *openai.Client {
	c := openai.NewClient(append([]option.RequestOption{
		option.WithBaseURL(j.url + "/v1/"), option.WithAPIKey(key), option.WithMaxRetries(0),
	}, opts...)...)
	return &c
}

func predicate(name, instructions string) openai.DecisionNewParamsQuestionUnion {
	q := &openai.DecisionNewParamsQuestionPredicate{
		Instructions: openai.DecisionNewParamsQuestionPredicateInstructionsUnion{OfString: openai.String(instructions)}}
	if name != "" {
		q.Name = openai.String(name)
	}
	return openai.DecisionNewParamsQuestionUnion{OfPredicate: q}
}

// supportTicket asks one question of each type about a ticket, and one
// about an image, which the judge refuses.
func supportTicket(model string) openai.DecisionNewParams {
	return openai.DecisionNewParams{
		Model: model,
		Input: openai.DecisionNewParamsInputUnion{OfString: openai.String("I was charged twice for my subscription and I am furious. Please refund me!")},
		Questions: []openai.DecisionNewParamsQuestionUnion{
			predicate("refund", "Is the customer asking for a refund?"),
			{OfChoice: &openai.DecisionNewParamsQuestionChoice{
				Name:         openai.String("team"),
				Instructions: openai.DecisionNewParamsQuestionChoiceInstructionsUnion{OfString: openai.String("Which team should handle it?")},
				Choices: []openai.DecisionNewParamsQuestionChoiceChoice{
					{Value: openai.DecisionNewParamsQuestionChoiceChoiceValueUnion{OfString: openai.String("billing")}, Description: openai.String("Payments, invoices, refunds and charges")},
					{Value: openai.DecisionNewParamsQuestionChoiceChoiceValueUnion{OfString: openai.String("technical")}, Description: openai.String("Bugs, errors, crashes and login problems")},
				}}},
			{OfScore: &openai.DecisionNewParamsQuestionScore{
				Instructions: openai.DecisionNewParamsQuestionScoreInstructionsUnion{OfString: openai.String("How angry is the customer?")},
				Levels:       []openai.DecisionNewParamsQuestionScoreLevel{{Label: "calm"}, {Label: "annoyed"}, {Label: "furious"}}}},
			{OfPredicate: &openai.DecisionNewParamsQuestionPredicate{
				Name: openai.String("receipt"),
				Instructions: openai.DecisionNewParamsQuestionPredicateInstructionsUnion{OfDecisionQuestionInputPartArray: []shared.DecisionQuestionInputPartUnionParam{
					shared.DecisionQuestionInputPartParamOfInputImage("data:image/png;base64,iVBORw0KGgo="),
				}}}},
		},
	}
}

func wantOpenAIError(t *testing.T, err error, status int, typ string) *openai.Error {
	t.Helper()
	var e *openai.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want *openai.Error with status %d", err, err, status)
	}
	if e.StatusCode != status || e.Type != typ || e.Code == "" || e.Message == "" {
		t.Errorf("error %d type %q code %q message %q, want %d %q", e.StatusCode, e.Type, e.Code, e.Message, status, typ)
	}
	return e
}

func TestDecisionsWithOpenAIClient(t *testing.T) {
	j := start(t, keysEnv("good-key,llm-only:llm-latest")...)
	ctx := context.Background()
	d, err := decisionsClient(j, "good-key").Decisions.New(ctx, supportTicket("local/lexical-latest"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Model != "local/lexical-1.0" || len(d.Answers) != 4 {
		t.Fatalf("decision %s", d.RawJSON())
	}
	if a := d.Answers[0].AsPredicate(); d.Answers[0].Type != "predicate" || a.Name != "refund" || a.Probability <= 0.5 || a.Probability > 1 {
		t.Errorf("refund: %s", d.Answers[0].RawJSON())
	}
	team := d.Answers[1].AsChoice()
	if d.Answers[1].Type != "choice" || team.Name != "team" || team.Choice.AsString() != "billing" || len(team.Probabilities) != 2 ||
		team.Probabilities[0].Value.AsString() != "billing" || team.Probabilities[1].Value.AsString() != "technical" {
		t.Errorf("team: %s", d.Answers[1].RawJSON())
	}
	anger := d.Answers[2].AsScore()
	sum, expect := 0.0, 0.0
	for i, p := range anger.Probabilities {
		sum += p.Probability
		expect += float64(i) * p.Probability
	}
	if d.Answers[2].Type != "score" || !strings.Contains(d.Answers[2].RawJSON(), `"name":null`) || len(anger.Probabilities) != 3 ||
		anger.Probabilities[2].Label != "furious" || math.Abs(sum-1) > 1e-9 || math.Abs(expect-anger.Score) > 1e-9 {
		t.Errorf("anger: %s", d.Answers[2].RawJSON())
	}
	if r := d.Answers[3].AsRefusal(); d.Answers[3].Type != "refusal" || r.Name != "receipt" {
		t.Errorf("receipt: %s, want a refusal", d.Answers[3].RawJSON())
	}
	if d.Usage.InputTokens <= 0 || d.Usage.TotalTokens != d.Usage.InputTokens+d.Usage.OutputTokens {
		t.Errorf("usage %s", d.Usage.RawJSON())
	}

	t.Run("401", func(t *testing.T) {
		_, err := decisionsClient(j, "wrong-key").Decisions.New(ctx, supportTicket("local/lexical-latest"))
		wantOpenAIError(t, err, http.StatusUnauthorized, "authentication_error")
	})
	t.Run("403", func(t *testing.T) {
		_, err := decisionsClient(j, "llm-only").Decisions.New(ctx, supportTicket("local/lexical-latest"))
		wantOpenAIError(t, err, http.StatusForbidden, "permission_denied")
	})
	t.Run("413", func(t *testing.T) {
		p := supportTicket("local/lexical-latest")
		p.Input.OfString = openai.String(strings.Repeat("a", 1<<20))
		_, err := decisionsClient(j, "good-key").Decisions.New(ctx, p)
		wantOpenAIError(t, err, http.StatusRequestEntityTooLarge, "request_too_large")
	})
	t.Run("422", func(t *testing.T) {
		p := supportTicket("local/lexical-latest")
		p.Questions[2].OfScore.Levels = p.Questions[2].OfScore.Levels[:1]
		_, err := decisionsClient(j, "good-key").Decisions.New(ctx, p)
		if e := wantOpenAIError(t, err, http.StatusUnprocessableEntity, "validation_error"); e.Param != "questions[2].levels" {
			t.Errorf("param %q, want questions[2].levels", e.Param)
		}
	})
	t.Run("429", func(t *testing.T) {
		limited := start(t, "JUDGE_API_KEYS=good-key", "JUDGE_RATE_LIMIT_RPM=1")
		c := decisionsClient(limited, "good-key")
		if _, err := c.Decisions.New(ctx, supportTicket("local/lexical-latest")); err != nil {
			t.Fatal(err)
		}
		_, err := c.Decisions.New(ctx, supportTicket("local/lexical-latest"))
		if e := wantOpenAIError(t, err, http.StatusTooManyRequests, "rate_limit_exceeded"); e.Response.Header.Get("retry-after-ms") == "" {
			t.Error("429 without retry-after-ms")
		}
	})
}

// chatUpstream is an OpenAI-compatible chat endpoint on loopback that
// counts its calls. It answers every call after delay with a yes at 0.8 in
// the logprobs readout, or, with fail set, with that status.
type chatUpstream struct {
	srv   *httptest.Server
	calls atomic.Int64
	delay time.Duration
	fail  int
}

func newChatUpstream(t *testing.T, delay time.Duration, fail int) *chatUpstream {
	t.Helper()
	u := &chatUpstream{delay: delay, fail: fail}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		u.calls.Add(1)
		select {
		case <-time.After(u.delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if u.fail != 0 {
			w.WriteHeader(u.fail)
			_, _ = w.Write([]byte(`{"error": {"message": "the service is overloaded", "type": "server_error", "code": null}}`))
			return
		}
		chatmodeltest.WriteLogprobs(w, "fake-model-2026-01-01", 120, chatmodeltest.Token{Text: "yes", P: 0.8}, chatmodeltest.Token{Text: "no", P: 0.2})
	}))
	t.Cleanup(u.srv.Close)
	return u
}

// strongKey is a key a judge with a language model accepts.
var strongKey = strings.Repeat("k", 32)

func llmEnv(u *chatUpstream, more ...string) []string {
	return append([]string{"JUDGE_API_KEYS=" + strongKey, "JUDGE_RATE_LIMIT_RPM=100000",
		"LLM_BASE_URL=" + u.srv.URL + "/v1", "LLM_API_KEY=sk-test", "LLM_MODEL=fake-model"}, more...)
}

// twoPredicates is answered with exactly two chat calls: one per question.
func twoPredicates() openai.DecisionNewParams {
	return openai.DecisionNewParams{
		Model: "llm-latest",
		Input: openai.DecisionNewParamsInputUnion{OfString: openai.String("Please refund the second charge.")},
		Questions: []openai.DecisionNewParamsQuestionUnion{
			predicate("refund", "Is the customer asking for a refund?"),
			predicate("", "Is the customer polite?"),
		},
	}
}

// TestDecisions529WhenTheUpstreamFails: a chat upstream that only answers
// 503 makes the judge answer 529 overloaded, which openai-go reads.
func TestDecisions529WhenTheUpstreamFails(t *testing.T) {
	u := newChatUpstream(t, 0, http.StatusServiceUnavailable)
	j := start(t, llmEnv(u, "JUDGE_LLM_TIMEOUT=2s")...)
	_, err := decisionsClient(j, strongKey).Decisions.New(context.Background(), twoPredicates())
	if e := wantOpenAIError(t, err, 529, "overloaded"); e.Response.Header.Get("Retry-After") == "" {
		t.Error("529 without Retry-After")
	}
	if u.calls.Load() == 0 {
		t.Error("the upstream was never called")
	}
}

// TestIdempotentRetryAfterClientTimeout: the client times out while the
// upstream is slow; its retry with the same Idempotency-Key gets the
// answer of the first request, and the upstream saw one set of calls.
func TestIdempotentRetryAfterClientTimeout(t *testing.T) {
	u := newChatUpstream(t, 1500*time.Millisecond, 0)
	j := start(t, llmEnv(u)...)
	key := option.WithHeader("Idempotency-Key", "refund-check-7")
	_, err := decisionsClient(j, strongKey, key, option.WithRequestTimeout(300*time.Millisecond)).Decisions.New(context.Background(), twoPredicates())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("first request: %v, want the client's own timeout", err)
	}
	d, hdr := retryUntilDone(t, decisionsClient(j, strongKey, key), twoPredicates())
	if hdr.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the retry was answered afresh, not replayed")
	}
	if len(d.Answers) != 2 || d.Answers[0].Probability < 0.79 || d.Answers[0].Probability > 0.81 || !strings.HasPrefix(d.Model, "llm-1.0/") {
		t.Errorf("decision %s", d.RawJSON())
	}
	if n := u.calls.Load(); n != 2 {
		t.Errorf("the upstream saw %d calls, want one set: 2", n)
	}
}

// retryUntilDone sends p until it is not refused as in use (409), for at
// most 30 s, and returns the answer and its headers.
func retryUntilDone(t *testing.T, c *openai.Client, p openai.DecisionNewParams) (*openai.Decision, http.Header) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var resp *http.Response
		d, err := c.Decisions.New(context.Background(), p, option.WithResponseInto(&resp))
		var e *openai.Error
		if errors.As(err, &e) && e.StatusCode == http.StatusConflict && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		return d, resp.Header
	}
}

// TestIdempotencyAcrossReplicas: two judges on one Redis share the keys:
// while one works, the other answers 409 (and 422 for another body), and
// afterwards it replays the first one's answer without calling upstream.
func TestIdempotencyAcrossReplicas(t *testing.T) {
	rs := redistest.New(t)
	u := newChatUpstream(t, time.Second, 0)
	a, b := start(t, llmEnv(u, "REDIS_URL="+rs.URL())...), start(t, llmEnv(u, "REDIS_URL="+rs.URL())...)
	key := option.WithHeader("Idempotency-Key", "shared-7")

	type result struct {
		d   *openai.Decision
		err error
	}
	first := make(chan result, 1)
	go func() {
		d, err := decisionsClient(a, strongKey, key).Decisions.New(context.Background(), twoPredicates())
		first <- result{d, err}
	}()
	for deadline := time.Now().Add(20 * time.Second); u.calls.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("replica a never called upstream")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err := decisionsClient(b, strongKey, key).Decisions.New(context.Background(), twoPredicates())
	wantOpenAIError(t, err, http.StatusConflict, "idempotency_key_in_use")
	other := twoPredicates()
	other.Questions = other.Questions[:1]
	_, err = decisionsClient(b, strongKey, key).Decisions.New(context.Background(), other)
	wantOpenAIError(t, err, http.StatusUnprocessableEntity, "idempotency_key_reused")

	r := <-first
	if r.err != nil {
		t.Fatal(r.err)
	}
	d, hdr := retryUntilDone(t, decisionsClient(b, strongKey, key), twoPredicates())
	if hdr.Get("Idempotent-Replayed") != "true" || d.RawJSON() != r.d.RawJSON() {
		t.Errorf("replica b: replayed=%q %s, want a's answer %s", hdr.Get("Idempotent-Replayed"), d.RawJSON(), r.d.RawJSON())
	}
	if n := u.calls.Load(); n != 2 {
		t.Errorf("the upstream saw %d calls, want one set: 2", n)
	}
	if !strings.Contains(b.proc.Output(), "Idempotency-Key answers and cached answers shared through Redis") {
		t.Error("replica b does not say its idempotency keys are shared")
	}
}
