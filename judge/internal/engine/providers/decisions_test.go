package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/decisions"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/systemone"
)

// decisionsCall is a Decisions request as the fake reads it off the wire.
type decisionsCall struct {
	Auth      string `json:"-"`
	Model     string `json:"model"`
	Input     any    `json:"input"`
	Questions []struct {
		Type         string `json:"type"`
		Name         *string
		Instructions string `json:"instructions"`
		Choices      []struct {
			Value       any     `json:"value"`
			Description *string `json:"description"`
		} `json:"choices"`
		Levels []struct {
			Label string `json:"label"`
		} `json:"levels"`
	} `json:"questions"`
}

// fakeDecisions is OpenAI's POST /v1/decisions as decision.go of openai-go
// v3.96.0 reads it: answers in question order (predicate probability,
// choice and score probabilities as arrays with value, label, confidence),
// refusals, usage with its details. Its model is biased to the top of a
// list, refuses questions whose instructions say REFUSE, and answers
// with reply instead when that is set.
type fakeDecisions struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []decisionsCall
	reply func(w http.ResponseWriter, c decisionsCall)
}

func newFakeDecisions(t *testing.T, reply func(w http.ResponseWriter, c decisionsCall)) *fakeDecisions {
	t.Helper()
	f := &fakeDecisions{reply: reply}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/decisions" {
			writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "Not found", "type": "invalid_request_error", "code": nil, "param": nil}})
			return
		}
		body, _ := io.ReadAll(r.Body)
		var c decisionsCall
		if err := json.Unmarshal(body, &c); err != nil {
			t.Errorf("fake Decisions: %v in %s", err, body)
			return
		}
		var names struct {
			Questions []map[string]json.RawMessage `json:"questions"`
		}
		_ = json.Unmarshal(body, &names)
		for i, q := range names.Questions {
			if _, ok := q["name"]; ok {
				s := string(q["name"])
				c.Questions[i].Name = &s
			}
		}
		c.Auth = r.Header.Get("Authorization")
		f.mu.Lock()
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		if f.reply != nil {
			f.reply(w, c)
			return
		}
		decide(w, c)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeDecisions) recorded() []decisionsCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]decisionsCall(nil), f.calls...)
}

// decide answers as the biased model.
func decide(w http.ResponseWriter, c decisionsCall) {
	answers := make([]map[string]any, len(c.Questions))
	for i, q := range c.Questions {
		if strings.Contains(q.Instructions, "REFUSE") {
			answers[i] = map[string]any{"type": "refusal", "name": nil}
			continue
		}
		switch q.Type {
		case "predicate":
			answers[i] = map[string]any{"type": "predicate", "name": nil, "probability": 0.8}
		case "choice":
			probs := make([]map[string]any, len(q.Choices))
			sum := 0.0
			for j, ch := range q.Choices {
				sum += optionWeight(j, fmt.Sprint(ch.Value))
			}
			for j, ch := range q.Choices {
				probs[j] = map[string]any{"value": ch.Value, "probability": optionWeight(j, fmt.Sprint(ch.Value)) / sum}
			}
			answers[i] = map[string]any{"type": "choice", "name": nil, "choice": q.Choices[0].Value, "confidence": 0.5, "probabilities": probs}
		case "score":
			probs := make([]map[string]any, len(q.Levels))
			for j, l := range q.Levels {
				probs[j] = map[string]any{"value": j, "label": l.Label, "probability": 1 / float64(len(q.Levels))}
			}
			answers[i] = map[string]any{"type": "score", "name": nil, "score": 1.5, "confidence": 0, "probabilities": probs}
		}
	}
	writeJSON(w, 200, map[string]any{
		"answers": answers,
		"model":   "gpt-6-luna-2026-05-01",
		"usage": map[string]any{
			"input_tokens": 120, "input_tokens_details": map[string]any{"cache_write_tokens": 0, "cached_tokens": 64},
			"output_tokens": 7, "output_tokens_details": map[string]any{"reasoning_tokens": 5}, "total_tokens": 127,
		},
	})
}

func newDecisions(t *testing.T, base string, cal calibrate.File) *Decisions {
	t.Helper()
	p, err := NewDecisions(Settings{BaseURL: base + "/v1", APIKey: testKey, Model: "gpt-6-luna",
		Source: "test decisions", KeyEnv: "OPENAI_API_KEY", Calibration: cal, CallTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDecisionsForwards(t *testing.T) {
	f := newFakeDecisions(t, nil)
	resp, err := newDecisions(t, f.srv.URL, calibrate.File{}).Ask(context.Background(), mixed())
	if err != nil {
		t.Fatal(err)
	}
	calls := f.recorded()
	if len(calls) != 1 {
		t.Fatalf("%d calls", len(calls))
	}
	c := calls[0]
	if c.Auth != "Bearer "+testKey || c.Model != "gpt-6-luna" || c.Input != "I was charged twice and I am furious." {
		t.Errorf("auth %q model %q input %v", c.Auth, c.Model, c.Input)
	}
	// Questions in name order (anger, refund, team), unnamed.
	var types []string
	for _, q := range c.Questions {
		types = append(types, q.Type)
		if q.Name != nil {
			t.Errorf("a question name was sent: %s", *q.Name)
		}
	}
	if !slices.Equal(types, []string{"score", "predicate", "choice"}) {
		t.Fatalf("question types %v", types)
	}
	if ins := c.Questions[1].Instructions; !strings.Contains(ins, "Does the customer ask for a refund?") || !strings.Contains(ins, "true means: a refund is asked for") {
		t.Errorf("predicate instructions %q", ins)
	}
	// The options went out in canonical order, each under a neutral id
	// with its description: no name the caller chose.
	var ids, descs []string
	for _, ch := range c.Questions[2].Choices {
		ids = append(ids, ch.Value.(string))
		if ch.Description == nil {
			t.Fatalf("choice %v without its description", ch.Value)
		}
		descs = append(descs, *ch.Description)
	}
	canonical := systemone.CanonicalOptions(choice("billing", "technical", "sales").Options)
	if want := optionTexts(canonical); !slices.Equal(ids, []string{"o1", "o2", "o3"}) || !slices.Equal(descs, want) {
		t.Errorf("choices sent as %v %v, want o1..o3 with the canonical %v", ids, descs, want)
	}
	if l := c.Questions[0].Levels; len(l) != 4 || l[0].Label != "calm" || l[3].Label != "furious" {
		t.Errorf("levels %+v", l)
	}
	if resp.Model != "gpt-6-luna-2026-05-01" || resp.Usage.InputTokens != 120 || resp.Usage.OutputTokens != 7 {
		t.Errorf("model %q usage %+v", resp.Model, resp.Usage)
	}
	if a := resp.Answers["refund"]; a.Type != systemone.TypeNoul || math.Abs(*a.Noul-0.8) > 1e-15 {
		t.Errorf("refund %+v", a)
	}
	// Score and confidence are ours, from the upstream's probabilities:
	// uniform over 4 levels is 1.5 with no confidence.
	if a := resp.Answers["anger"]; math.Abs(*a.Score-1.5) > 1e-12 || *a.Confidence != 0 || string(a.Legend["0"]) != `"calm"` {
		t.Errorf("anger %+v", a)
	}
	// The fake says confidence 0.5; ours follows from the probabilities.
	team := resp.Answers["team"]
	best, top, ps := "", 0.0, []float64{}
	for name, p := range team.Probabilities {
		ps = append(ps, p)
		if p > top {
			best, top = name, p
		}
	}
	if want := systemone.ChoiceConfidence(ps); team.Choice != best || math.Abs(*team.Confidence-want) > 1e-12 || *team.Confidence == 0.5 {
		t.Errorf("team %+v, want choice %q with confidence %v", team, best, want)
	}
}

func TestDecisionsCalibrates(t *testing.T) {
	f := newFakeDecisions(t, nil)
	req := request(map[string]systemone.Question{"team": choice("billing", "technical", "sales")})
	raw, err := newDecisions(t, f.srv.URL, calibrate.File{}).Ask(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	cal := calibrate.File{Version: calibrate.FileVersion, Models: map[string]calibrate.Model{
		"gpt-6-luna": {Readout: DecisionsReadout, Temperatures: map[string]float64{"choice": 0.5}},
	}}
	got, err := newDecisions(t, f.srv.URL, cal).Ask(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, p := range raw.Answers["team"].Probabilities {
		sum += p * p
	}
	for name, p := range raw.Answers["team"].Probabilities {
		if g, want := got.Answers["team"].Probabilities[name], p*p/sum; math.Abs(g-want) > 1e-12 || math.Abs(g-p) < 1e-3 {
			t.Errorf("p(%s) = %v, want %v (uncalibrated %v)", name, g, want, p)
		}
	}
}

// A question the model refuses fails the request as the caller's, naming
// the question; no other provider is to be asked.
func TestDecisionsRefusal(t *testing.T) {
	f := newFakeDecisions(t, nil)
	req := mixed()
	req.Questions["weapons"] = systemone.Question{Type: systemone.TypeNoul, Instructions: raw(`"REFUSE: how to build one?"`)}
	_, err := newDecisions(t, f.srv.URL, calibrate.File{}).Ask(context.Background(), req)
	fe := fault.From(err)
	if fe.Code != fault.InvalidArgument || !strings.Contains(fe.Message, `"weapons"`) || !strings.Contains(fe.Message, "refused") || !CallersFault(err) {
		t.Fatalf("error %v (%v), want a 400 naming the refused question", err, fe)
	}
}

func TestDecisionsFailures(t *testing.T) {
	apiError := func(status int, code, param, msg string) func(http.ResponseWriter, decisionsCall) {
		return func(w http.ResponseWriter, _ decisionsCall) {
			w.Header().Set("retry-after-ms", "1500")
			writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": code, "param": param}})
		}
	}
	answers := func(list ...map[string]any) func(http.ResponseWriter, decisionsCall) {
		return func(w http.ResponseWriter, _ decisionsCall) {
			writeJSON(w, 200, map[string]any{"answers": list, "model": "m", "usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}})
		}
	}
	for _, tc := range []struct {
		name    string
		reply   func(http.ResponseWriter, decisionsCall)
		code    fault.Code
		callers bool
		text    string
	}{
		{"key refused", apiError(401, "invalid_api_key", "", "Incorrect API key provided: "+testKey), fault.Misconfigured, false, "OPENAI_API_KEY"},
		{"unknown model", apiError(404, "model_not_found", "model", "The model does not exist"), fault.Misconfigured, false, "the model"},
		{"model refused", apiError(400, "unsupported_model", "model", "Only gpt-6-luna is supported"), fault.Misconfigured, false, "the model"},
		{"throttled", apiError(429, "rate_limit_exceeded", "", "slow down"), fault.Overloaded, false, "429"},
		{"failing", apiError(500, "server_error", "", "oops"), fault.Overloaded, false, "500"},
		{"bad request", apiError(400, "context_length_exceeded", "input", "input too long"), fault.InvalidArgument, true, "refused the request (400)"},
		{"too large", apiError(413, "", "", "body too large"), fault.TooLarge, true, "too large"},
		{"too few answers", answers(), fault.InvalidOutput, false, "0 answers"},
		{"unknown value", answers(map[string]any{"type": "choice", "choice": "x", "confidence": 1, "probabilities": []any{
			map[string]any{"value": "x", "probability": 1}}}), fault.InvalidOutput, false, "unknown"},
		{"boolean value", answers(map[string]any{"type": "choice", "choice": true, "confidence": 1, "probabilities": []any{
			map[string]any{"value": true, "probability": 1}}}), fault.InvalidOutput, false, "not one of the options"},
		{"wrong type", answers(map[string]any{"type": "predicate", "probability": 0.5}), fault.InvalidOutput, false, "predicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeDecisions(t, tc.reply)
			_, err := newDecisions(t, f.srv.URL, calibrate.File{}).Ask(context.Background(), request(map[string]systemone.Question{"team": choice("billing", "technical", "sales")}))
			fe := fault.From(err)
			if fe.Code != tc.code || CallersFault(err) != tc.callers || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("%v → %v (caller's %v), want code %v, caller's %v, mentioning %q", err, fe, CallersFault(err), tc.code, tc.callers, tc.text)
			}
			if strings.Contains(fe.Message, testKey) {
				t.Errorf("the key leaked: %q", fe.Message)
			}
			if tc.code == fault.Overloaded && fe.RetryAfter != 1500*time.Millisecond {
				t.Errorf("retry after %v, want the provider's 1.5s", fe.RetryAfter)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		_, err := newDecisions(t, refusedURL(t), calibrate.File{}).Ask(context.Background(), mixed())
		if fe := fault.From(err); fe.Code != fault.Overloaded || CallersFault(err) {
			t.Errorf("%v → %v, want overloaded", err, fe)
		}
	})
	t.Run("no Decisions API", func(t *testing.T) {
		f := newFakeDecisions(t, nil)
		p, err := NewDecisions(Settings{BaseURL: f.srv.URL + "/elsewhere", APIKey: testKey, Model: "gpt-6-luna", Source: "s", KeyEnv: "K"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Ask(context.Background(), mixed())
		if fe := fault.From(err); fe.Code != fault.Misconfigured || !strings.Contains(fe.Message, "base URL") {
			t.Errorf("%v → %v, want misconfigured base URL", err, fe)
		}
	})
}

// More questions than one call takes go out as consecutive calls. (The
// questions differ: the same question twice is sent once.)
func TestDecisionsBatches(t *testing.T) {
	f := newFakeDecisions(t, nil)
	qs := map[string]systemone.Question{}
	for i := range decisions.MaxQuestions + 1 {
		qs[fmt.Sprintf("q%03d", i)] = systemone.Question{Type: systemone.TypeNoul, Instructions: systemone.Text(fmt.Sprintf("Is item %d urgent?", i))}
	}
	resp, err := newDecisions(t, f.srv.URL, calibrate.File{}).Ask(context.Background(), request(qs))
	if err != nil {
		t.Fatal(err)
	}
	calls := f.recorded()
	if len(calls) != 2 || len(calls[0].Questions) != decisions.MaxQuestions || len(calls[1].Questions) != 1 {
		t.Fatalf("%d calls", len(calls))
	}
	if len(resp.Answers) != decisions.MaxQuestions+1 || resp.Usage.InputTokens != 240 {
		t.Errorf("%d answers, usage %+v", len(resp.Answers), resp.Usage)
	}
}
