package coherent

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/judgeworks/shared/systemone"
)

func TestNegated(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Is the writer not asking for a refund?", "Is the writer asking for a refund?"},
		{"Does the answer not address the question?", "Does the answer address the question?"},
		{"Doesn't the customer want a refund?", "Does the customer want a refund?"},
		{"won't it load?", "will it load?"},
		{"Is the writer not unhappy with us?", "Is the writer unhappy with us?"},
		{"Is it not the case that the answer to this question is yes: Is it late?", "Is it late?"},
		{"It is not true that the parcel arrived.", "The parcel arrived."},
		{"Does the writer want neither a refund nor a discount?", "Does the writer want a refund or a discount?"},
		{"Is it none of these: rain; snow?", "Is it one of these: rain; snow?"},
		{"None of these apply?", "One of these apply?"},
	} {
		got, ok := Negated(c.in)
		if !ok || got != c.want {
			t.Errorf("Negated(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	// Not a negated question: no negation, a negation inside a
	// subordinate clause, two negations, no auxiliary to open a yes/no
	// question, other negators.
	for _, in := range []string{
		"Is the writer asking for a refund?",
		"Does the writer say that it does not work?",
		"Is the writer not saying it never worked?",
		"Why is it not working?",
		"Is there no refund?",
		"Has the parcel never arrived?",
		"",
	} {
		if got, ok := Negated(in); ok {
			t.Errorf("Negated(%q) = %q, want none", in, got)
		}
	}
}

func TestReadCumulative(t *testing.T) {
	levels := []string{"calm", "annoyed, a bit", "angry", "furious"}
	for _, c := range []struct {
		in     string
		level  int
		higher bool
	}{
		{`How upset? On the scale "calm", "annoyed, a bit", "angry", "furious" (lowest first), is it "angry" or higher?`, 2, true},
		{`How upset? On the scale "calm", "annoyed, a bit", "angry", "furious", is it at most "annoyed, a bit"?`, 1, false},
		{`How upset? Using a scale of: "calm", "annoyed, a bit", "angry", "furious". At least "furious"?`, 3, true},
		{`How upset? On the scale "calm", "annoyed, a bit", "angry", "furious": "angry" or below?`, 2, false},
	} {
		got, ok := ReadCumulative(c.in)
		if !ok || got.Level != c.level || got.Higher != c.higher || !slices.Equal(got.Levels, levels) || got.Question != "How upset?" {
			t.Errorf("ReadCumulative(%q) = %+v, %v", c.in, got, ok)
		}
	}
	for _, in := range []string{
		`Is it "angry"?`,
		`On the scale "calm", "angry", is it "furious" or higher?`,
		`On the scale "calm", "angry", is it "angry"?`,
		`On the scale "calm", "calm", "angry", is it "calm" or higher?`,
		`Is it "a" or "b" or higher than "c"?`,
	} {
		if got, ok := ReadCumulative(in); ok {
			t.Errorf("ReadCumulative(%q) = %+v, want none", in, got)
		}
	}
}

func FuzzNegated(f *testing.F) {
	f.Add("Is the writer not asking for a refund?")
	f.Add("Does he want neither tea nor coffee?")
	f.Add(`On the scale "a", "b", is it "b" or higher?`)
	f.Add("Is it NOT the case that it works?")
	f.Add("NONE OF these, NEITHER x NOR y")
	f.Fuzz(func(t *testing.T, s string) {
		if got, ok := Negated(s); ok && got == s {
			t.Errorf("Negated(%q) is the question itself", s)
		}
		if !hasNo(s) && (wrapper.MatchString(s) || neitherNor.MatchString(s) || noneOf.MatchString(s)) {
			t.Errorf("a pattern matches %q, which hasNo passes over", s)
		}
		if c, ok := ReadCumulative(s); ok && (c.Level < 0 || c.Level >= len(c.Levels) || len(c.Levels) < 2) {
			t.Errorf("ReadCumulative(%q) = %+v", s, c)
		}
	})
}

// recorder answers every question from a fixed table and records what it
// was asked.
type recorder struct{ asked systemone.Request }

func (r *recorder) ask(_ context.Context, req systemone.Request) (*systemone.Response, error) {
	r.asked = req
	answers := map[string]systemone.Answer{}
	for name, q := range req.Questions {
		var w []float64
		switch q.Type {
		case systemone.TypeNoul:
			w = []float64{0.8}
		case systemone.TypeChoice:
			for i := range q.Options {
				w = append(w, float64(i+1))
			}
		case systemone.TypeScore:
			for i := range q.Levels {
				w = append(w, float64(i+1))
			}
		}
		a, err := systemone.BuildAnswer(q, w)
		if err != nil {
			return nil, err
		}
		answers[name] = a
	}
	return &systemone.Response{Answers: answers}, nil
}

func str(s string) json.RawMessage { b, _ := json.Marshal(s); return b }

func TestAskRewritesAndMapsBack(t *testing.T) {
	req := systemone.Request{Model: "m", State: str("text"), Questions: map[string]systemone.Question{
		"dup": {Type: systemone.TypeChoice, Instructions: str("Which?"), Options: []systemone.Option{
			{Name: "a", Description: str("one")}, {Name: "b", Description: str("two")}, {Name: "c", Description: str(" one ")}}},
		"yn":   {Type: systemone.TypeScore, Instructions: str("Is it?"), Levels: systemone.Texts("No", "Yes!")},
		"neg":  {Type: systemone.TypeNoul, Instructions: str("Is it not late?"), Noul: &systemone.NoulCriteria{True: str("early"), False: str("late")}},
		"deep": {Type: systemone.TypeNoul, Instructions: str(`Is it not the case that the answer to this question is yes: On the scale "low", "mid", "high", is it "mid" or higher?`)},
	}}
	var r recorder
	resp, err := Ask(context.Background(), req, Rules{Reading: true}, r.ask)
	if err != nil {
		t.Fatal(err)
	}
	// Asked: the duplicate once, a noul for the yes/no score, the
	// question negation negates with its meanings swapped, and a score.
	if q := r.asked.Questions["dup"]; len(q.Options) != 2 {
		t.Errorf("dup asked with %d options", len(q.Options))
	}
	if q := r.asked.Questions["yn"]; q.Type != systemone.TypeNoul {
		t.Errorf("yes/no score asked as %s", q.Type)
	}
	if q := r.asked.Questions["neg"]; string(q.Instructions) != `"Is it late?"` || string(q.Noul.True) != `"late"` {
		t.Errorf("negation asked as %s %+v", q.Instructions, q.Noul)
	}
	if q := r.asked.Questions["deep"]; q.Type != systemone.TypeScore || !slices.EqualFunc(q.Levels, systemone.Texts("low", "mid", "high"), func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
		t.Errorf("cumulative asked as %+v", q)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	// dup: the recorder gives the kept options (a, b in that order)
	// weights 1 and 2, so one/3 is split between a and c.
	if p := resp.Answers["dup"].Probabilities; !near(p["a"], 1.0/6) || !near(p["c"], 1.0/6) || !near(p["b"], 2.0/3) {
		t.Errorf("dup answer %v", p)
	}
	if p := resp.Answers["yn"].Probabilities; !near(p["1"], 0.8) || !near(*resp.Answers["yn"].Score, 0.8) {
		t.Errorf("yes/no answer %v", p)
	}
	if p := *resp.Answers["neg"].Noul; !near(p, 0.2) {
		t.Errorf("negation answer %v", p)
	}
	// mid or higher = (2+3)/6; negated: 1/6.
	if p := *resp.Answers["deep"].Noul; !near(p, 1.0/6) {
		t.Errorf("negated cumulative answer %v", p)
	}
	// Without Reading only the structural rules apply.
	if _, err := Ask(context.Background(), req, Rules{}, r.ask); err != nil {
		t.Fatal(err)
	}
	if q := r.asked.Questions["neg"]; string(q.Instructions) != `"Is it not late?"` {
		t.Errorf("negation rewritten without Reading: %s", q.Instructions)
	}
}
