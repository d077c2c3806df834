package semantic

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/judgeworks/judge/internal/engine/enginetest"
	"math"
	"reflect"
	"sync"
	"testing"

	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/wordvec"
)

var engine = sync.OnceValue(func() *Engine {
	e, err := New(wordvec.Default())
	if err != nil {
		panic(err)
	}
	return e
})

// one asks a single question about state.
func one(t testing.TB, state string, question string) systemone.Answer {
	t.Helper()
	st, _ := json.Marshal(state)
	return enginetest.Ask(t, engine(), enginetest.Decode(t, fmt.Sprintf(`{"model": "m", "state": %s, "questions": {"q": %s}}`, st, question))).Answers["q"]
}

// wantChoices asks question about each state and wants the option named
// for it.
func wantChoices(t *testing.T, question string, want map[string]string) {
	t.Helper()
	for state, choice := range want {
		if a := one(t, state, question); a.Choice != choice {
			t.Errorf("%q: %q (%v), want %q", state, a.Choice, a.Probabilities, choice)
		}
	}
}

const ticket = `{"model": "local/semantic-latest",
 "state": "You took money from my account two times for one order and I am furious. I want it back today!",
 "questions": {
  "refund": {"type": "noul", "instructions": "Is the customer asking for a refund?"},
  "team": {"type": "choice", "instructions": "Which team should handle it?",
           "criteria": {"billing": "Payments, invoices, refunds and charges",
                        "technical": "Bugs, errors, crashes and login problems",
                        "sales": {"about": "pricing questions and upgrades"},
                        "shipping": ["deliveries", "parcels"]}},
  "anger": {"type": "score", "instructions": "How angry is the customer?",
            "criteria": ["calm", "annoyed", "furious"]}}}`

// The ticket shares no word with "refund", "billing" or "furious": the
// engine must follow meaning, where the lexical engine sees nothing.
func TestAnswersFollowMeaning(t *testing.T) {
	resp := enginetest.Ask(t, engine(), enginetest.Decode(t, ticket))
	if got := resp.Answers["team"].Choice; got != "billing" {
		t.Errorf("team = %q (%v), want billing", got, resp.Answers["team"].Probabilities)
	}
	if p := *resp.Answers["refund"].Noul; p <= 0.5 {
		t.Errorf("money wanted back: refund = %.3f, want > 0.5", p)
	}
	if s := *resp.Answers["anger"].Score; s <= 1.2 {
		t.Errorf("furious customer: anger = %.3f, want > 1.2", s)
	}
	paraphrases := []struct{ state, want string }{
		{"The program quits every time I press save and shows an error code.", "technical"},
		{"My parcel has not arrived yet and the tracking page shows nothing.", "shipping"},
		{"Is there a cheaper price if we buy for the whole company?", "sales"},
	}
	q := `{"type": "choice", "instructions": "Which team?", "criteria": {
		"billing": "Payments, invoices, refunds and charges", "technical": "Bugs, errors, crashes and login problems",
		"sales": "pricing questions and upgrades", "shipping": "deliveries, parcels"}}`
	for _, p := range paraphrases {
		if a := one(t, p.state, q); a.Choice != p.want {
			t.Errorf("%q: %q (%v), want %q", p.state, a.Choice, a.Probabilities, p.want)
		}
	}
}

func TestNegation(t *testing.T) {
	enginetest.RunNegationScope(t, engine())
	team := `{"type": "choice", "instructions": "Which team?",
	    "criteria": {"billing": "billing and payment", "technical": "crashes and errors"}}`
	if a := one(t, "It is not a billing or payment question; the app crashes with an error.", team); a.Choice != "technical" {
		t.Errorf("team = %q, want technical: billing was negated", a.Choice)
	}
}

// A negation ends with its clause, a request not to do something is no
// claim that it is not done, and no answer of an engine that reads words
// is near-certain.
func TestNegationEndsWithItsClause(t *testing.T) {
	refund := `{"type": "noul", "instructions": "Does the customer ask for a refund?"}`
	invoice := `{"type": "noul", "instructions": "Is the customer asking for an invoice?"}`
	unsubscribe := `{"type": "noul", "instructions": "Does the customer want to unsubscribe?"}`
	moreMail := `{"type": "noul", "instructions": "Does the customer want more marketing emails?"}`
	tests := []struct {
		state, question string
		yes             bool
	}{
		{"My package never arrived and I want my money back.", refund, true},
		{"My package did not arrive and I want my money back.", refund, true},
		{"I never received the invoice and need it for my taxes.", invoice, true},
		{"Can you not send me any more marketing emails?", unsubscribe, true},
		{"Can you not send me any more marketing emails?", moreMail, false},
		{"I want my money back.", refund, true},
		{"The parcel never came. Refund please.", refund, true},
		{"I never asked for a refund.", refund, false},
		{"I do not want my money back, just a new one.", refund, false},
	}
	for _, tt := range tests {
		p := *one(t, tt.state, tt.question).Noul
		if tt.yes && p <= 0.5 || !tt.yes && p >= 0.5 {
			t.Errorf("%q: %.4f, want %s 0.5", tt.state, p, map[bool]string{true: ">", false: "<"}[tt.yes])
		}
		if p < 0.02 || p > 0.98 {
			t.Errorf("%q: %.4f, as sure as a reader of words never is", tt.state, p)
		}
	}
}

// Opposites lie close in vector space; the engine must not read one as
// the other.
func TestOpposites(t *testing.T) {
	q := `{"type": "noul", "instructions": "Does the customer want to cancel the subscription?"}`
	tests := []struct {
		state string
		yes   bool
	}{
		{"Please cancel my plan.", true},
		{"Terminate my membership, please.", true},
		{"I want to renew my plan for another year.", false},
		{"I will not renew my plan.", true}, // a negated opposite
		{"Keep my subscription going, please.", false},
		{"Pause my account instead of cancelling it.", false},
	}
	for _, tt := range tests {
		p := *one(t, tt.state, q).Noul
		if tt.yes && p <= 0.5 || !tt.yes && p >= 0.5 {
			t.Errorf("%q: cancel = %.3f, want %s 0.5", tt.state, p, map[bool]string{true: ">", false: "<"}[tt.yes])
		}
	}
	mood := `{"type": "choice", "instructions": "How does the customer feel?",
	    "criteria": {"happy": "happy and satisfied", "unhappy": "unhappy and dissatisfied"}}`
	wantChoices(t, mood, map[string]string{
		"I am happy with the service.":         "happy",
		"I am unhappy with the service.":       "unhappy",
		"I am not happy with the service.":     "unhappy",
		"I am dissatisfied with your service.": "unhappy",
		"I am not dissatisfied at all.":        "happy",
	})
}

// Stronger words and intensifiers move the expected level further along
// the scale, in order.
func TestIntensityLevelsOrdered(t *testing.T) {
	scales := []struct {
		question string
		states   []string // from the lowest expected score to the highest
	}{
		{`{"type": "score", "instructions": "How satisfied is the customer?",
		   "criteria": ["very dissatisfied", "dissatisfied", "neutral", "satisfied", "very satisfied"]}`,
			[]string{"I am extremely unhappy, it is terrible.", "I am very unhappy with it.", "It is okay.",
				"I am happy with it.", "I am extremely happy with it!"}},
		{`{"type": "score", "instructions": "How upset is the customer?",
		   "criteria": ["not at all upset", "slightly upset", "upset", "very upset", "extremely upset"]}`,
			[]string{"I am not upset at all.", "I am slightly annoyed.", "I am annoyed.", "I am very annoyed.", "I am extremely annoyed!"}},
	}
	for _, sc := range scales {
		prev := math.Inf(-1)
		for _, s := range sc.states {
			got := *one(t, s, sc.question).Score
			if got <= prev {
				t.Errorf("%q scores %.3f, not above the previous state's %.3f", s, got, prev)
			}
			prev = got
		}
	}
	// The ends of a scale land near its ends.
	sat := scales[0].question
	if s := *one(t, "Absolutely terrible, the worst service ever.", sat).Score; s > 1 {
		t.Errorf("terrible: %.2f, want ≤ 1", s)
	}
	if s := *one(t, "Wonderful, I love it, excellent work.", sat).Score; s < 3 {
		t.Errorf("wonderful: %.2f, want ≥ 3", s)
	}
}

func TestNoEvidence(t *testing.T) {
	a := one(t, "The weather is fine.", `{"type": "noul", "instructions": "Is the customer asking for a refund?"}`)
	// With no evidence the answer leans to no (noulBias: some similarity
	// between a question and any text is normal), but is not a confident no.
	if p := *a.Noul; p >= 0.5 || p < 0.15 {
		t.Errorf("noul with no evidence = %.3f, want a lean to no in [0.15, 0.5)", p)
	}
	c := one(t, "Qwzx.", `{"type": "choice", "instructions": "x", "criteria": {"b": "refunds", "a": "crashes"}}`)
	if c.Probabilities["a"] != 0.5 || *c.Confidence != 0 || c.Choice != "a" {
		t.Errorf("choice with no evidence = %+v, want uniform, confidence 0, the tie to the smallest name", c)
	}
}

func TestConcurrentUse(t *testing.T) {
	want := enginetest.Ask(t, engine(), enginetest.Decode(t, ticket))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				got, err := engine().Ask(context.Background(), enginetest.Decode(t, ticket))
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("concurrent answer differs: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestTokens(t *testing.T) {
	got := tokens(nil, "I'm NOT very happy at all, but really pleased!", nil)
	want := []token{
		{word: "happy", negated: true, intensity: 2},
		{word: "pleased", intensity: 1.5 * 1.25},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tokens = %+v, want %+v", got, want)
	}
}

func TestLemmaAndOpposite(t *testing.T) {
	for in, want := range map[string]string{"cancelling": "cancel", "cancelled": "cancel", "renews": "renew", "stopped": "stop", "go": "go"} {
		if got := lemma(in); got != want {
			t.Errorf("lemma(%q) = %q, want %q", in, got, want)
		}
	}
	e := engine()
	opp := func(a, b string) bool { return e.terms(b, nil)[0].opposes(e.terms(a, nil)[0]) }
	if !opp("renewing", "cancel") || !opp("cancelled", "renews") || !opp("broken", "working") || opp("cancel", "cancel") || opp("refund", "money") {
		t.Error("opposite pairs wrong")
	}
}

func FuzzAsk(f *testing.F) {
	f.Add("I'm not at all unhappy!!! But… never mind.", "happy, satisfied")
	f.Add("", "")
	f.Add("{\"a\": [1, true, null]}", "un dis in")
	f.Fuzz(func(t *testing.T, state, level string) {
		st, _ := json.Marshal(state)
		req := systemone.Request{State: st, Questions: map[string]systemone.Question{
			"s": {Type: systemone.TypeScore, Instructions: json.RawMessage(`"x"`), Levels: systemone.Texts(level, "calm", "furious")},
			"n": {Type: systemone.TypeNoul, Instructions: st},
		}}
		resp, err := engine().Ask(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if s := *resp.Answers["s"].Score; math.IsNaN(s) || s < 0 || s > 2 {
			t.Fatalf("score %v", s)
		}
		if p := *resp.Answers["n"].Noul; math.IsNaN(p) || p < 0 || p > 1 {
			t.Fatalf("noul %v", p)
		}
	})
}

// BenchmarkAsk reports the time per request, and per question both in
// wall time and in CPU time (docs/semantic.md). Run it with -cpu 1: CPU
// time then counts the engine's own work and its garbage collection.
func BenchmarkAsk(b *testing.B) {
	e := engine()
	for _, n := range []int{1, 3, 10, 100} {
		req := enginetest.Ticket(Alias, n)
		b.Run(fmt.Sprintf("questions=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if _, err := e.Ask(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n)/1e3, "µs/question")
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N*n)/1e3, "cpu-µs/question")
		})
	}
}

// BenchmarkAskNewQuestion asks a 1-question request whose question the
// engine has not seen (its instructions differ by a number, which the
// engine does not read): the cost when no kept question helps.
func BenchmarkAskNewQuestion(b *testing.B) {
	e := engine()
	req := enginetest.Ticket(Alias, 1)
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		n++
		req.Questions["q0"] = systemone.Question{Type: systemone.TypeNoul,
			Instructions: systemone.Text(fmt.Sprintf("Is the customer asking for a refund? (%d)", n))}
		if _, err := e.Ask(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNew is the engine's start-up cost on top of the vectors.
func BenchmarkNew(b *testing.B) {
	vec := wordvec.Default()
	for b.Loop() {
		if _, err := New(vec); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDistinctMergesAndBounds(t *testing.T) {
	e := engine()
	ts := distinct(e.terms("refund refund, not refund; refund!", nil))
	if len(ts) != 3 || ts[0].word != "refund" || ts[1].sign != -1 {
		t.Fatalf("terms %+v", ts)
	}
	one := e.terms("refund", nil)[0]
	if math.Abs(ts[0].weight-2*one.weight) > 1e-12 {
		t.Errorf("two plain mentions weigh %v, want twice %v", ts[0].weight, one.weight)
	}
	// A text of thousands of different words keeps the heaviest, in text order.
	words := wordvec.Default().Words()
	var long []byte
	for i := 0; i < len(words); i += 10 {
		long = append(long, words[i]+" "...)
	}
	ts = distinct(e.terms(string(long), nil))
	if len(ts) != maxStateTerms {
		t.Fatalf("%d terms kept, want %d", len(ts), maxStateTerms)
	}
	for _, t2 := range ts {
		if t2.weight < 0.9 {
			t.Fatalf("kept %q of weight %.3f while rarer words were dropped", t2.word, t2.weight)
		}
	}
}

// BenchmarkLongState is a 2,000-word state (every 25th word of the
// vocabulary) and one question of each type: the cost that maxStateTerms
// bounds.
func BenchmarkLongState(b *testing.B) {
	words := wordvec.Default().Words()
	var long []byte
	for i := 0; i < len(words); i += 25 {
		long = append(long, words[i]+" "...)
	}
	state, _ := json.Marshal(string(long))
	req := enginetest.Ticket(Alias, 3)
	req.State = state
	e := engine()
	for b.Loop() {
		if _, err := e.Ask(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

func TestConformance(t *testing.T) { enginetest.Run(t, engine()) }

func TestCoherence(t *testing.T) {
	enginetest.RunCoherence(t, engine(), enginetest.Coherence{Apart: true})
}
