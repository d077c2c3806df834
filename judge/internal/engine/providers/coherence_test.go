package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/engine/enginetest"
	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/systemone"
)

// The providers keep the structural coherence laws against upstreams that
// read every word they are sent: alone, calibrated, and behind a Fallback
// whose first provider fails. The upstreams answer each question apart,
// as a real one should; that is what batch independence rests on here.
func TestCoherence(t *testing.T) {
	sys := newFakeSystemOne(t, readingSystemOne(t))
	dec := newFakeDecisions(t, readingDecisions)
	failing := newFakeSystemOne(t, status503)
	for _, cal := range calibrations {
		t.Run("System One "+cal.name, func(t *testing.T) {
			enginetest.RunCoherence(t, newSystemOne(sys.srv.URL, cal.file), enginetest.Coherence{})
		})
		t.Run("Decisions "+cal.name, func(t *testing.T) {
			enginetest.RunCoherence(t, newDecisions(t, dec.srv.URL, cal.file), enginetest.Coherence{})
		})
	}
	t.Run("Fallback", func(t *testing.T) {
		f := NewFallback([]Provider{
			provider("failing", newSystemOne(failing.srv.URL, calibrate.File{})),
			provider("decisions", newDecisions(t, dec.srv.URL, calibrate.File{})),
		}, time.Minute, slog.New(slog.DiscardHandler))
		enginetest.RunCoherence(t, f, enginetest.Coherence{})
	})
}

// textWeight is a reading model's weight for a piece of text it is shown:
// a hash of every byte, so a changed id, description or wording moves it.
func textWeight(s string) float64 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return 1 + float64(h.Sum32()%97)
}

// firstPlace is the reading model's bonus for the option it is shown
// first, as real models favour the top of a list.
const firstPlace = 20

// readingSystemOne is a System One upstream whose answer to each question
// is a fixed function of all it is sent about that question: the
// instructions and criteria of a noul question, each option's id and
// description and its place, each level's text.
func readingSystemOne(t *testing.T) func(http.ResponseWriter, systemone.Request) {
	return func(w http.ResponseWriter, req systemone.Request) {
		answers := map[string]systemone.Answer{}
		for name, q := range req.Questions {
			var ws []float64
			switch q.Type {
			case systemone.TypeNoul:
				criteria, _ := json.Marshal(q.Noul)
				p := textWeight(string(q.Instructions)+string(criteria)) / 100
				ws = []float64{p, 1 - p}
			case systemone.TypeChoice:
				for i, o := range q.Options {
					ws = append(ws, textWeight(string(q.Instructions)+o.Name+"|"+string(o.Description)))
					if i == 0 {
						ws[i] += firstPlace
					}
				}
			case systemone.TypeScore:
				for _, l := range q.Levels {
					ws = append(ws, textWeight(string(q.Instructions)+string(l)))
				}
			}
			a, err := systemone.BuildAnswer(q, ws)
			if err != nil {
				t.Errorf("reading System One: %v", err)
			}
			answers[name] = a
		}
		writeJSON(w, http.StatusOK, systemone.Response{Model: "reader-2026-01-01", Answers: answers})
	}
}

// readingDecisions is the same reading model behind the Decisions wire
// format.
func readingDecisions(w http.ResponseWriter, c decisionsCall) {
	answers := make([]map[string]any, len(c.Questions))
	for i, q := range c.Questions {
		switch q.Type {
		case "predicate":
			answers[i] = map[string]any{"type": "predicate", "name": nil, "probability": textWeight(q.Instructions) / 100}
		case "choice":
			ws, sum := make([]float64, len(q.Choices)), 0.0
			for j, ch := range q.Choices {
				desc := ""
				if ch.Description != nil {
					desc = *ch.Description
				}
				ws[j] = textWeight(q.Instructions + fmt.Sprint(ch.Value) + "|" + desc)
				if j == 0 {
					ws[j] += firstPlace
				}
				sum += ws[j]
			}
			probs := make([]map[string]any, len(q.Choices))
			for j, ch := range q.Choices {
				probs[j] = map[string]any{"value": ch.Value, "probability": ws[j] / sum}
			}
			answers[i] = map[string]any{"type": "choice", "name": nil, "choice": q.Choices[0].Value, "confidence": 0.5, "probabilities": probs}
		case "score":
			ws, sum := make([]float64, len(q.Levels)), 0.0
			for j, l := range q.Levels {
				ws[j] = textWeight(q.Instructions + l.Label)
				sum += ws[j]
			}
			probs := make([]map[string]any, len(q.Levels))
			for j, l := range q.Levels {
				probs[j] = map[string]any{"value": j, "label": l.Label, "probability": ws[j] / sum}
			}
			answers[i] = map[string]any{"type": "score", "name": nil, "score": 0, "confidence": 0, "probabilities": probs}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"answers": answers, "model": "reader-2026-01-01",
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cache_write_tokens": 0, "cached_tokens": 0},
			"output_tokens": 1, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 11},
	})
}

// Asked directly, the reading upstream breaks the laws the providers keep:
// a renamed option, a duplicate and a yes/no choice each move its answer.
// The laws above have teeth against it.
func TestTheReadingUpstreamBreaksTheLaws(t *testing.T) {
	f := newFakeSystemOne(t, readingSystemOne(t))
	client := systemone.NewClient(systemone.WithBaseURL(f.srv.URL), systemone.WithAPIKey(testKey), systemone.WithMaxAttempts(1))
	ask := func(q systemone.Question) systemone.Answer {
		t.Helper()
		resp, err := client.Ask(context.Background(), request(map[string]systemone.Question{"q": q}))
		if err != nil {
			t.Fatal(err)
		}
		return resp.Answers["q"]
	}
	team := choice("billing", "technical")
	renamed := choice("billing", "technical")
	renamed.Options[0].Name = "option_1"
	if a, b := ask(team).Probabilities["billing"], ask(renamed).Probabilities["option_1"]; a == b {
		t.Errorf("a renamed option kept its probability %v", a)
	}
	dup := choice("billing", "technical")
	dup.Options = append(dup.Options, systemone.Option{Name: "money", Description: dup.Options[0].Description})
	if a := ask(dup).Probabilities; a["billing"] == a["money"] {
		t.Errorf("a duplicate asked as another option got the same probability: %v", a)
	}
	noul := systemone.Question{Type: systemone.TypeNoul, Instructions: raw(`"Does the customer ask for a refund?"`)}
	yesNo := systemone.Question{Type: systemone.TypeChoice, Instructions: noul.Instructions,
		Options: []systemone.Option{{Name: "yes"}, {Name: "no"}}}
	if a, b := *ask(noul).Noul, ask(yesNo).Probabilities["yes"]; a == b {
		t.Errorf("a yes/no choice got the noul answer %v", a)
	}
}

// An option with a description goes upstream under a neutral id; one
// without goes under its name, which is what it says, and no neutral id
// takes a name so sent. The answer comes back under the caller's names.
func TestSentIDs(t *testing.T) {
	q := systemone.Question{Type: systemone.TypeChoice, Instructions: raw(`"Which team?"`), Options: []systemone.Option{
		{Name: "billing", Description: raw(`"payments and refunds"`)},
		{Name: "o1"}, {Name: "o2"}, {Name: "o3"},
		{Name: "technical", Description: raw(`"bugs and crashes"`)},
		{Name: "other", Description: raw(`null`)},
	}}
	up := sent(q)
	canonical := q.Canonical()
	seen := map[string]bool{}
	for i, o := range up.Options {
		c := canonical.Options[i]
		if seen[o.Name] {
			t.Errorf("id %q sent twice: %v", o.Name, optionNames(up.Options))
		}
		seen[o.Name] = true
		switch {
		case !c.Described() && (o.Name != c.Name || o.Described()):
			t.Errorf("%q without a description went as %+v", c.Name, o)
		case c.Described() && (o.Name == c.Name || o.Name[0] != 'o' || o.Text() != c.Text()):
			t.Errorf("%q went as %+v", c.Name, o)
		}
	}
	f := newFakeSystemOne(t, readingSystemOne(t))
	resp, err := newSystemOne(f.srv.URL, calibrate.File{}).Ask(context.Background(), request(map[string]systemone.Question{"team": q}))
	if err != nil {
		t.Fatal(err)
	}
	a := resp.Answers["team"]
	if len(a.Probabilities) != len(q.Options) {
		t.Fatalf("probabilities %v", a.Probabilities)
	}
	for _, o := range q.Options {
		if _, ok := a.Probabilities[o.Name]; !ok {
			t.Errorf("no probability for %q: %v", o.Name, a.Probabilities)
		}
	}
}

// A negated question goes upstream in its positive form, once, beside
// that form or alone, and is answered as the complement of what the
// upstream says of it; a question about an option of a choice of the
// request never goes upstream at all.
func TestNegationSentOnceInPositiveForm(t *testing.T) {
	const positive = "Is the customer asking for a refund?"
	noul := func(s string) systemone.Question {
		return systemone.Question{Type: systemone.TypeNoul, Instructions: systemone.Text(s)}
	}
	beside := map[string]systemone.Question{
		"refund":      noul(positive),
		"not_refund":  noul("Is the customer not asking for a refund?"),
		"false":       noul("Is it false that the answer to the following question is yes: " + positive),
		"team":        choice("billing", "technical"),
		"not_billing": noul("Which team should handle this? Is the answer anything other than billing?"),
	}
	alone := map[string]systemone.Question{"not_refund": noul("Doesn't the customer ask for a refund?")}
	sys := newFakeSystemOne(t, readingSystemOne(t))
	dec := newFakeDecisions(t, readingDecisions)
	for _, tc := range []struct {
		name string
		p    Provider
		sent func() []string // the instructions of every question sent
		yes  func(instructions string) float64
	}{
		{"System One", provider("s", newSystemOne(sys.srv.URL, calibrate.File{})), func() []string {
			var out []string
			for _, c := range sys.recorded() {
				for _, q := range c.req.Questions {
					out = append(out, systemone.ContentText(q.Instructions))
				}
			}
			return out
		}, func(s string) float64 { return textWeight(string(systemone.Text(s))+"null") / 100 }},
		{"Decisions", provider("d", newDecisions(t, dec.srv.URL, calibrate.File{})), func() []string {
			var out []string
			for _, c := range dec.recorded() {
				for _, q := range c.Questions {
					out = append(out, q.Instructions)
				}
			}
			return out
		}, func(s string) float64 { return textWeight(s) / 100 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			count := func(sent []string, s string) int {
				n := 0
				for _, x := range sent {
					if x == s {
						n++
					}
				}
				return n
			}
			before := len(tc.sent())
			resp, err := tc.p.Backend.Ask(context.Background(), request(beside))
			if err != nil {
				t.Fatal(err)
			}
			sent := tc.sent()[before:]
			if len(sent) != 2 || count(sent, positive) != 1 || count(sent, "Which team should handle this?") != 1 {
				t.Errorf("sent %q, want the positive form once and the choice", sent)
			}
			a := resp.Answers
			p := *a["refund"].Noul
			if !same(*a["not_refund"].Noul, 1-p) || !same(*a["false"].Noul, 1-p) {
				t.Errorf("refund %v, its negations %v and %v", p, *a["not_refund"].Noul, *a["false"].Noul)
			}
			if !same(*a["not_billing"].Noul, 1-a["team"].Probabilities["billing"]) {
				t.Errorf("anything other than billing %v, billing %v", *a["not_billing"].Noul, a["team"].Probabilities["billing"])
			}
			before = len(tc.sent())
			resp, err = tc.p.Backend.Ask(context.Background(), request(alone))
			if err != nil {
				t.Fatal(err)
			}
			if sent := tc.sent()[before:]; len(sent) != 1 || sent[0] != "Does the customer ask for a refund?" {
				t.Errorf("alone, sent %q", sent)
			}
			if up := tc.yes("Does the customer ask for a refund?"); !same(*resp.Answers["not_refund"].Noul, 1-up) {
				t.Errorf("alone, answered %v, want 1 − the upstream's %v", *resp.Answers["not_refund"].Noul, up)
			}
		})
	}
}

func same(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }
