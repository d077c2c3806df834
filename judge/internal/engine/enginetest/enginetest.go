// Package enginetest holds the laws every engine of the judge obeys, as
// one table: Run checks an engine against each row. Every engine's own
// tests call Run with the engine as the judge builds it (an upstream
// engine against a local server speaking its wire format), so a law is
// written once and a new law is one more row.
package enginetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/judge/internal/limits"
	"github.com/judgeworks/shared/systemone"
)

// A Law is one property every engine has.
type Law struct {
	Name  string
	Check func(t *testing.T, e engine.Engine)
}

// Laws are the properties Run checks, in order.
var Laws = []Law{
	{"answer shapes", answerShapes},
	{"option order", optionOrder},
	{"deterministic", deterministic},
	{"questions apart", questionsApart},
	{"token planning", tokenPlanning},
	{"errors", cancelled},
}

// Run checks e against every law, each as a subtest.
func Run(t *testing.T, e engine.Engine) {
	t.Helper()
	for _, law := range Laws {
		t.Run(law.Name, func(t *testing.T) { law.Check(t, e) })
	}
}

// options are the choice's options, each with a description.
var options = []systemone.Option{
	{Name: "billing", Description: json.RawMessage(`"Payments, invoices, refunds and charges"`)},
	{Name: "technical", Description: json.RawMessage(`"Bugs, errors, crashes and login problems"`)},
	{Name: "sales", Description: json.RawMessage(`{"about": "pricing questions and upgrades"}`)},
	{Name: "security", Description: json.RawMessage(`"Stolen accounts and suspicious logins"`)},
	{Name: "other"},
}

var levels = []string{"calm", "mildly annoyed", "annoyed", "angry", "furious"}

// Request is a valid request of one question of each type, the choice's
// options in the given order (indices into the five options; nil: as
// listed).
func Request(order []int) systemone.Request {
	opts := slices.Clone(options)
	if order != nil {
		opts = make([]systemone.Option, len(order))
		for i, j := range order {
			opts[i] = options[j]
		}
	}
	return systemone.Request{
		Model: "m-latest",
		State: json.RawMessage(`"I was charged twice for my subscription and I am furious. Please refund me today!"`),
		Questions: map[string]systemone.Question{
			"refund": {Type: systemone.TypeNoul, Instructions: json.RawMessage(`"Is the customer asking for a refund?"`)},
			"team":   {Type: systemone.TypeChoice, Instructions: json.RawMessage(`"Which team should handle it?"`), Options: opts},
			"anger":  {Type: systemone.TypeScore, Instructions: json.RawMessage(`"How angry is the customer?"`), Levels: systemone.Texts(levels...)},
		},
	}
}

// checked is req as the judge hands it to an engine: through limits.Check,
// which orders each choice's options canonically.
func checked(t *testing.T, req systemone.Request) systemone.Request {
	t.Helper()
	c, err := limits.Check(req, bytes{})
	if err != nil {
		t.Fatalf("the law's own request is invalid: %v", err)
	}
	return c.Request
}

// bytes counts a byte as a token: the laws' requests are far below the
// limits, and the count plays no part in an answer.
type bytes struct{}

func (bytes) Count(s string) int { return len(s) }

func ask(t *testing.T, e engine.Engine, req systemone.Request) *systemone.Response {
	t.Helper()
	resp, err := e.Ask(context.Background(), checked(t, req))
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	return resp
}

// answerShapes: one answer per question, of the question's type; noul a
// probability; choice and score a distribution over exactly the options
// or levels, summing to 1, with a confidence in [0, 1], the choice the
// most probable option and the score within the levels.
func answerShapes(t *testing.T, e engine.Engine) {
	req := Request(nil)
	resp := ask(t, e, req)
	if len(resp.Answers) != len(req.Questions) {
		t.Fatalf("%d answers for %d questions", len(resp.Answers), len(req.Questions))
	}
	for name, q := range req.Questions {
		a, ok := resp.Answers[name]
		if !ok {
			t.Fatalf("%s: no answer", name)
		}
		if a.Type != q.Type {
			t.Errorf("%s: a %s answer to a %s question", name, a.Type, q.Type)
		}
		if q.Type == systemone.TypeNoul {
			if a.Noul == nil || !(*a.Noul >= 0 && *a.Noul <= 1) {
				t.Errorf("%s: noul %v, want a probability", name, a.Noul)
			}
			continue
		}
		var keys []string
		for _, o := range q.Options {
			keys = append(keys, o.Name)
		}
		for i := range q.Levels {
			keys = append(keys, fmt.Sprint(i))
		}
		sum, best := 0.0, ""
		for _, k := range keys {
			p, ok := a.Probabilities[k]
			if !ok || !(p >= 0 && p <= 1) {
				t.Errorf("%s: probability of %q is %v (present: %v)", name, k, p, ok)
			}
			if best == "" || p > a.Probabilities[best] {
				best = k
			}
			sum += p
		}
		if len(a.Probabilities) != len(keys) || math.Abs(sum-1) > 1e-9 {
			t.Errorf("%s: %d probabilities summing to %v, want %d summing to 1", name, len(a.Probabilities), sum, len(keys))
		}
		if a.Confidence == nil || !(*a.Confidence >= 0 && *a.Confidence <= 1) {
			t.Errorf("%s: confidence %v, want one in [0, 1]", name, a.Confidence)
		}
		switch q.Type {
		case systemone.TypeChoice:
			if a.Probabilities[a.Choice] != a.Probabilities[best] {
				t.Errorf("%s: choice %q is not the most probable option (%q)", name, a.Choice, best)
			}
		case systemone.TypeScore:
			if a.Score == nil || !(*a.Score >= 0 && *a.Score <= float64(len(q.Levels)-1)) {
				t.Errorf("%s: score %v outside the levels", name, a.Score)
			}
		}
	}
}

// optionOrder: the same options in any order give the same answer, to the
// last bit.
func optionOrder(t *testing.T, e engine.Engine) {
	want := ask(t, e, Request(nil)).Answers["team"]
	// Every rotation and the reversal.
	for _, order := range [][]int{{1, 2, 3, 4, 0}, {2, 3, 4, 0, 1}, {4, 3, 2, 1, 0}, {3, 0, 4, 2, 1}} {
		if got := ask(t, e, Request(order)).Answers["team"]; !reflect.DeepEqual(got, want) {
			t.Errorf("options in order %v: %+v, want %+v", order, got, want)
		}
	}
}

// deterministic: the same request, asked again, gets the same answers.
func deterministic(t *testing.T, e engine.Engine) {
	first := ask(t, e, Request(nil))
	for range 3 {
		if again := ask(t, e, Request(nil)); !reflect.DeepEqual(again.Answers, first.Answers) {
			t.Fatalf("answers differ between runs:\n%+v\n%+v", first.Answers, again.Answers)
		}
	}
}

// questionsApart: a question asked alone, under any name, gets the answer
// it gets among others it does not name: unrelated questions never read
// each other (a question that names another is answered from it: the
// laws "outcomes of other questions" and "compounds of two questions").
func questionsApart(t *testing.T, e engine.Engine) {
	req := Request(nil)
	batch := ask(t, e, req)
	for name, q := range req.Questions {
		for _, alias := range []string{name, "renamed_" + name} {
			alone := systemone.Request{Model: req.Model, State: req.State, Questions: map[string]systemone.Question{alias: q}}
			if got := ask(t, e, alone).Answers[alias]; !reflect.DeepEqual(got, batch.Answers[name]) {
				t.Errorf("%s asked alone as %q: %+v, in the batch: %+v", name, alias, got, batch.Answers[name])
			}
		}
	}
}

// tokenPlanning: an engine plans at least the request's own tokens, which
// its caller has counted, and never a negative figure.
func tokenPlanning(t *testing.T, e engine.Engine) {
	req := Request(nil)
	for _, own := range []int{0, 1, 345} {
		if got := e.PlannedInputTokens(req, own); got < own {
			t.Errorf("planned %d input tokens for a request of %d", got, own)
		}
	}
}

// cancelled: a request whose caller has gone is not answered, and its
// error is the cancellation or one of the judge's codes, never a stray
// error the API would report as internal.
func cancelled(t *testing.T, e engine.Engine) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	resp, err := e.Ask(ctx, Request(nil))
	if err == nil {
		t.Fatalf("a cancelled request was answered: %+v", resp)
	}
	var fe *fault.Error
	if !errors.Is(err, context.Canceled) && !errors.As(err, &fe) {
		t.Fatalf("error %v (%T): neither the cancellation nor a judge code", err, err)
	}
}
