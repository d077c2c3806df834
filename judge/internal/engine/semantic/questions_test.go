package semantic

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/wordvec"
)

// keptCases are questions of every type and shape the cache must keep
// apart, and states to ask them of.
func keptCases() ([]systemone.Question, []string) {
	text := systemone.Text
	qs := []systemone.Question{
		{Type: systemone.TypeNoul, Instructions: text("Is the customer asking for a refund?")},
		{Type: systemone.TypeNoul, Instructions: text("Is the customer asking for a refund?"),
			Noul: &systemone.NoulCriteria{True: text("money back"), False: text("a replacement")}},
		{Type: systemone.TypeNoul, Instructions: text("Is the customer asking for a refund?"),
			Noul: &systemone.NoulCriteria{}},
		{Type: systemone.TypeNoul, Instructions: json.RawMessage(`{"ask": "Does it crash?", "or": ["freeze", null]}`)},
		{Type: systemone.TypeNoul},
		{Type: systemone.TypeChoice, Instructions: text("Which team?"), Options: []systemone.Option{
			{Name: "billing", Description: text("Payments, invoices, refunds and charges")},
			{Name: "technical", Description: text("Bugs, errors, crashes and login problems")},
			{Name: "sales", Description: json.RawMessage(`null`)},
		}},
		// The same texts under other names and in another order.
		{Type: systemone.TypeChoice, Instructions: text("Which team?"), Options: []systemone.Option{
			{Name: "technical", Description: text("Payments, invoices, refunds and charges")},
			{Name: "sales", Description: text("Bugs, errors, crashes and login problems")},
			{Name: "billing"},
		}},
		{Type: systemone.TypeScore, Instructions: text("How angry?"),
			Levels: systemone.Texts("calm", "mildly annoyed", "annoyed", "angry", "furious")},
		{Type: systemone.TypeScore, Instructions: text("How severe?"),
			Levels: []json.RawMessage{text("cosmetic"), nil, text("minor"), text("major"), text("critical")}},
		{Type: systemone.TypeScore, Levels: systemone.Texts("very dissatisfied", "neutral", "very satisfied")},
		// Longer than keptQuestions.KeyBytes: read on every request.
		{Type: systemone.TypeNoul, Instructions: text(strings.Repeat("Does the parcel arrive late or broken? ", 120))},
	}
	states := []string{
		"I was charged twice and I am furious! Refund me today.",
		"The app crashes at login; it is not a billing question.",
		"Thanks, all good, very happy with the service?",
		"",
	}
	return qs, states
}

func askOne(t testing.TB, e *Engine, state string, q systemone.Question) systemone.Answer {
	t.Helper()
	st, _ := json.Marshal(state)
	resp, err := e.Ask(context.Background(), systemone.Request{State: st, Questions: map[string]systemone.Question{"q": q}})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Answers["q"]
}

// A kept question answers to the bit as one read afresh: each answer of an
// engine that has seen every question before is compared with the answer
// of a new engine, whose cache is empty.
func TestKeptQuestionsAnswerAsFresh(t *testing.T) {
	qs, states := keptCases()
	warm := engine()
	for round := range 2 {
		for _, state := range states {
			for i, q := range qs {
				fresh, err := New(wordvec.Default())
				if err != nil {
					t.Fatal(err)
				}
				got, want := askOne(t, warm, state, q), askOne(t, fresh, state, q)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("round %d, question %d, %q: kept %+v, fresh %+v", round, i, state, got, want)
				}
			}
		}
	}
	sc := new(scratch)
	for i, q := range qs {
		kept := warm.asked(q, sc)
		if read := warm.readQuestion(q); !reflect.DeepEqual(kept, read) {
			t.Errorf("question %d: kept %+v, read %+v", i, kept, read)
		}
	}
	// The bounds of what is kept are keep.Map's, tested there; here the
	// long question only has to be long enough not to be kept.
	last := qs[len(qs)-1]
	if key := last.AppendKey(nil); len(key) <= keptQuestions.KeyBytes {
		t.Fatalf("the long question's key is %d bytes, not over %d", len(key), keptQuestions.KeyBytes)
	}
}

// Requests asked at once share the kept questions and the pooled working
// memory without mixing them: every answer is the one asked alone (run
// with -race).
func TestKeptQuestionsConcurrent(t *testing.T) {
	qs, states := keptCases()
	e, err := New(wordvec.Default())
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := New(wordvec.Default())
	if err != nil {
		t.Fatal(err)
	}
	want := make([][]systemone.Answer, len(states))
	for i, s := range states {
		for _, q := range qs {
			want[i] = append(want[i], askOne(t, fresh, s, q))
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for n := range 60 {
				i, j := (g+n)%len(states), (g*7+n)%len(qs)
				if got := askOne(t, e, states[i], qs[j]); !reflect.DeepEqual(got, want[i][j]) {
					t.Errorf("state %d, question %d: %+v, want %+v", i, j, got, want[i][j])
				}
			}
		})
	}
	wg.Wait()
}
