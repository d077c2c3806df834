package coherent

import (
	"bytes"
	"context"
	"encoding/json"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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
		{"Is it false that the answer to the following question is yes: Did it arrive?", "Did it arrive?"},
		{"is it FALSE that  the parcel arrived?", "The parcel arrived?"},
		{"Is the answer to the following question no: Did it arrive?", "Did it arrive?"},
		{"Does the writer want neither a refund nor a discount?", "Does the writer want a refund or a discount?"},
		{"Is it none of these: rain; snow?", "Is it one of these: rain; snow?"},
		{"None of these apply?", "One of these apply?"},
		{"Has the parcel never arrived?", "Has the parcel arrived?"},
		{"Does the customer no longer want the order?", "Does the customer still want the order?"},
		{"Did the courier fail to deliver the parcel?", "Did the courier deliver the parcel?"},
		{"Is the answer something other than a refund?", "Is the answer a refund?"},
		{"Is the issue still unresolved?", "Is the issue resolved?"},
		{"Is the invoice unpaid?", "Is the invoice paid?"},
		{"Does the writer not both ask for a refund and report a delay?", "Does the writer ask for a refund and report a delay?"},
		// The sentences before the last set the question up and stay.
		{"Which team should handle this? Is the answer not billing?", "Which team should handle this? Is the answer billing?"},
		{`Which team should handle this? Is it anything other than "billing"?`, `Which team should handle this? Is it "billing"?`},
		{"Which team? Is it none of these: billing; shipping?", "Which team? Is it one of these: billing; shipping?"},
	} {
		got, ok := Negated(c.in)
		if !ok || got != c.want {
			t.Errorf("Negated(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	// Not a negated question: no negation, a negation inside a
	// subordinate clause, two negations, no auxiliary to open a yes/no
	// question, a negator with no positive form by removal, a contrary
	// that is not a listed contradictory, a negation inside quotes or in
	// a question listed after a colon.
	for _, in := range []string{
		"Is the writer asking for a refund?",
		"Does the writer say that it does not work?",
		"Is the writer not saying it never worked?",
		"Why is it not working?",
		"Is there no refund?",
		"Is the writer unhappy?",
		"Isn't the issue unresolved?",
		`Is the answer yes to both "Is it not late?" and "Is it raining?"?`,
		"Is the answer yes to both of these questions: Is it raining? Is it not late?",
		"Is it falsely advertised?",
		"Does the writer want anything other than a refund?",
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
	f.Add(`Which? Is it "no" or "not"? Is it still unresolved?`)
	f.Fuzz(func(t *testing.T, s string) {
		if got, ok := Negated(s); ok && got == s {
			t.Errorf("Negated(%q) is the question itself", s)
		}
		if !hasNo(s) && (neitherNor.MatchString(s) || noneOf.MatchString(s)) {
			t.Errorf("a pattern matches %q, which hasNo passes over", s)
		}
		if !hasThan(s) && otherThan.MatchString(s) {
			t.Errorf("otherThan matches %q, which hasThan passes over", s)
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
	resp, err := Ask(context.Background(), req, r.ask)
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
}

// reader answers every question from a hash of what it is asked, so any
// change of wording moves its answer, and records what it was asked.
type reader struct{ asked systemone.Request }

func weightOf(s string) float64 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return 1 + float64(h.Sum32()%97)
}

func (r *reader) ask(_ context.Context, req systemone.Request) (*systemone.Response, error) {
	r.asked = req
	answers := map[string]systemone.Answer{}
	for name, q := range req.Questions {
		var w []float64
		switch q.Type {
		case systemone.TypeNoul:
			w = []float64{weightOf(string(q.Instructions)) / 100}
		case systemone.TypeChoice:
			for _, o := range q.Options {
				w = append(w, weightOf(o.Name+string(o.Description)))
			}
		case systemone.TypeScore:
			for _, l := range q.Levels {
				w = append(w, weightOf(string(l)))
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

const (
	refundQ = "Is the writer asking for a refund?"
	delayQ  = "Does the writer mention a delay?"
	teamQ   = "Which team should handle this message?"
	angerQ  = "How annoyed is the writer?"
)

func related() map[string]systemone.Question {
	noul := func(s string) systemone.Question {
		return systemone.Question{Type: systemone.TypeNoul, Instructions: str(s)}
	}
	return map[string]systemone.Question{
		"team": {Type: systemone.TypeChoice, Instructions: str(teamQ), Options: []systemone.Option{
			{Name: "billing", Description: str("payments and refunds")}, {Name: "technical", Description: str("bugs")},
			{Name: "shipping", Description: str("parcels")}, {Name: "account", Description: str("passwords")}}},
		"anger":       {Type: systemone.TypeScore, Instructions: str(angerQ), Levels: systemone.Texts("calm", "annoyed", "angry", "furious")},
		"refund":      noul(refundQ),
		"delay":       noul(delayQ),
		"not_refund":  noul("Is the writer not asking for a refund?"),
		"is_billing":  noul(teamQ + ` Is the answer "payments and refunds"?`),
		"not_billing": noul(teamQ + " Is the answer anything other than billing?"),
		"quoted":      noul(`Is the answer to "` + teamQ + `" one of billing, shipping?`),
		"angry_up":    noul(angerQ + ` Is it "angry" or higher?`),
		"not_annoyed": noul(angerQ + " Is it anything other than annoyed?"),
		"both":        noul(`Is the answer yes to both "` + refundQ + `" and "` + delayQ + `"?`),
		"either":      noul("Is the answer yes to at least one of these questions: " + refundQ + " " + delayQ),
		"nand":        noul(`Is it false that the answer is yes to both "` + refundQ + `" and "` + delayQ + `"?`),
		"neither":     noul("Is the answer no to both of these questions: " + delayQ + " " + refundQ),
		"pair": {Type: systemone.TypeChoice, Instructions: str("Consider these two questions: " + delayQ + " " + refundQ + " Which answers are right?"),
			Options: []systemone.Option{{Name: "yy", Description: str("yes, yes")}, {Name: "yn", Description: str("yes, no")},
				{Name: "ny", Description: str("no, yes")}, {Name: "nn", Description: str("no to both")}}},
	}
}

// A question about other questions of its request is worked out from
// their answers, never asked; a question and its negation send the
// positive form once; and the pair of yes/no questions compounds name is
// asked whether both hold, once, the answer kept within its parts.
func TestRelatedQuestions(t *testing.T) {
	req := systemone.Request{Model: "m", State: str("text"), Questions: related()}
	var r reader
	resp, err := Ask(context.Background(), req, r.ask)
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	for name := range r.asked.Questions {
		asked = append(asked, name)
	}
	slices.Sort(asked)
	// The refund question is asked once, in its positive form, under the
	// name of its first asker in the caller's order (here by name).
	if want := []string{"_both_1", "anger", "delay", "not_refund", "team"}; !slices.Equal(asked, want) {
		t.Fatalf("asked %v, want %v", asked, want)
	}
	if got := string(r.asked.Questions["not_refund"].Instructions); got != strconv.Quote(refundQ) {
		t.Errorf("the refund question asked as %s", got)
	}
	if got := string(r.asked.Questions["_both_1"].Instructions); got != strconv.Quote(`Is the answer yes to both "`+refundQ+`" and "`+delayQ+`"?`) {
		t.Errorf("both asked as %s", got)
	}
	a := resp.Answers
	if len(a) != len(req.Questions) {
		t.Fatalf("%d answers for %d questions", len(a), len(req.Questions))
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	team, anger := a["team"].Probabilities, a["anger"].Probabilities
	pr, pd := *a["refund"].Noul, *a["delay"].Noul
	near("not_refund", *a["not_refund"].Noul, 1-pr)
	near("is_billing", *a["is_billing"].Noul, team["billing"])
	near("not_billing", *a["not_billing"].Noul, 1-team["billing"])
	near("quoted", *a["quoted"].Noul, team["billing"]+team["shipping"])
	near("angry_up", *a["angry_up"].Noul, anger["2"]+anger["3"])
	near("not_annoyed", *a["not_annoyed"].Noul, 1-anger["1"])
	both, either := *a["both"].Noul, *a["either"].Noul
	if both > math.Min(pr, pd)+1e-12 || both < math.Max(0, pr+pd-1)-1e-12 {
		t.Errorf("both %v outside the bounds of %v and %v", both, pr, pd)
	}
	near("inclusion-exclusion", both+either, pr+pd)
	near("nand", *a["nand"].Noul, 1-both)
	near("neither", *a["neither"].Noul, 1-either)
	pair := a["pair"].Probabilities
	near("pair yy", pair["yy"], both)
	near("pair: delay's marginal", pair["yy"]+pair["yn"], pd)
	near("pair: refund's marginal", pair["yy"]+pair["ny"], pr)
	near("pair nn", pair["nn"], 1-either)
	// Asked alone, a question about another it cannot see is asked as it
	// is.
	alone := systemone.Request{Model: "m", State: str("text"), Questions: map[string]systemone.Question{"is_billing": related()["is_billing"]}}
	if _, err := Ask(context.Background(), alone, r.ask); err != nil {
		t.Fatal(err)
	}
	if got := r.asked.Questions["is_billing"].Instructions; string(got) != string(related()["is_billing"].Instructions) {
		t.Errorf("alone, is_billing asked as %s", got)
	}
}

// Questions that name no other are asked as they came, each once.
func TestUnrelatedQuestionsAskedAsTheyCame(t *testing.T) {
	qs := related()
	req := systemone.Request{Model: "m", State: str("text"), Questions: map[string]systemone.Question{
		"team": qs["team"], "anger": qs["anger"], "refund": qs["refund"], "delay": qs["delay"]}}
	core, back := Rewrite(req)
	if !maps.EqualFunc(core.Questions, req.Questions, func(a, b systemone.Question) bool { return string(a.AppendKey(nil)) == string(b.AppendKey(nil)) }) {
		t.Errorf("asked %+v", core.Questions)
	}
	resp := &systemone.Response{Model: "m"}
	if got, err := back(resp); got != resp || err != nil {
		t.Errorf("back gave %p, %v; want the engine's response %p", got, err, resp)
	}
	// The same question under two names is asked once.
	req.Questions["refund_again"] = qs["refund"]
	core, _ = Rewrite(req)
	if _, ok := core.Questions["refund_again"]; ok || len(core.Questions) != 4 {
		t.Errorf("a question asked twice went %d times: %v", len(core.Questions)-3, core.Order)
	}
}

func BenchmarkRewriteUnrelated(b *testing.B) {
	qs := related()
	req := systemone.Request{Model: "m", State: str("text"), Questions: map[string]systemone.Question{
		"team": qs["team"], "anger": qs["anger"], "refund": qs["refund"], "delay": qs["delay"]}}
	b.ReportAllocs()
	for b.Loop() {
		Rewrite(req)
	}
}

// FuzzRelated asks a request whose one yes/no question and one four-way
// choice have any instructions, beside questions they may name: whatever
// the text, every question is answered, within [0, 1].
func FuzzRelated(f *testing.F) {
	for _, s := range []string{
		teamQ + ` Is the answer "payments and refunds"?`,
		`Is the answer to "` + teamQ + `" one of billing, shipping?`,
		angerQ + ` Is it "angry" or higher?`,
		`Is the answer yes to both "` + refundQ + `" and "` + delayQ + `"?`,
		"Is the answer no to at least one of these questions: " + refundQ + " " + delayQ,
		`Is it false that "" "" ? ? : "`, "? ? ?", `""""`, "Is the answer to \"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		qs := related()
		keep := map[string]systemone.Question{"team": qs["team"], "anger": qs["anger"], "refund": qs["refund"], "delay": qs["delay"]}
		keep["x"] = systemone.Question{Type: systemone.TypeNoul, Instructions: str(s)}
		pair := qs["pair"]
		pair.Instructions = str(s)
		keep["y"] = pair
		req := systemone.Request{Model: "m", State: str("text"), Questions: keep}
		var r reader
		resp, err := Ask(context.Background(), req, r.ask)
		if err != nil {
			t.Fatal(err)
		}
		for name := range keep {
			a, ok := resp.Answers[name]
			if !ok {
				t.Fatalf("%s unanswered", name)
			}
			if a.Noul != nil && !(*a.Noul >= 0 && *a.Noul <= 1) {
				t.Fatalf("%s: %v", name, *a.Noul)
			}
			for k, p := range a.Probabilities {
				if !(p >= -1e-12 && p <= 1+1e-12) {
					t.Fatalf("%s %s: %v", name, k, p)
				}
			}
		}
	})
}

// Reading a question about outcomes of another takes time linear in what
// it names: a question naming all 255 options of a choice costs about 8
// times one naming all 32, not 64 times (each outcome named is looked up
// once, not against every option).
func TestOutcomesReadInLinearTime(t *testing.T) {
	request := func(k int) systemone.Request {
		q := systemone.Question{Type: systemone.TypeChoice, Instructions: str(teamQ)}
		var texts []string
		for i := range k {
			text := "the option numbered " + strconv.Itoa(i) + " of many"
			q.Options = append(q.Options, systemone.Option{Name: "o" + strconv.Itoa(i), Description: str(text)})
			texts = append(texts, text)
		}
		qs := map[string]systemone.Question{"team": q}
		for i := range 20 {
			qs["any"+strconv.Itoa(i)] = systemone.Question{Type: systemone.TypeNoul,
				Instructions: str(teamQ + " Is it one of these: " + strings.Join(texts, "; ") + "?" + strings.Repeat(" ", i))}
		}
		return systemone.Request{Model: "m", State: str("text"), Questions: qs}
	}
	small, large := request(32), request(255)
	timeOf := func(req systemone.Request) time.Duration {
		start := time.Now()
		for range 5 {
			Rewrite(req)
		}
		return time.Since(start)
	}
	best := [2]time.Duration{time.Hour, time.Hour}
	for range 5 {
		best[0] = min(best[0], timeOf(small))
		best[1] = min(best[1], timeOf(large))
	}
	if ratio := float64(best[1]) / float64(best[0]); ratio > 24 {
		t.Errorf("naming 255 outcomes took %.1f times as long as naming 32 (%v, %v): want about 8", ratio, best[1], best[0])
	}
	if core, _ := Rewrite(large); len(core.Questions) != 1 {
		t.Errorf("asked %d questions, want the choice alone", len(core.Questions))
	}
}
