package semantic

import (
	"context"
	"encoding/json"
	"fmt"
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
		// Longer than keptKeyBytes: read on every request.
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
	last := qs[len(qs)-1]
	if key := last.AppendKey(nil); len(key) <= keptKeyBytes {
		t.Fatalf("the long question's key is %d bytes, not over %d", len(key), keptKeyBytes)
	} else if _, ok := warm.questions.kept[string(key)]; ok {
		t.Error("a question longer than keptKeyBytes was kept")
	}
}

// Whatever callers ask, the cache keeps at most keptQuestions questions
// and keptQuestionBytes of keys and terms, and keeps new questions when
// full by starting again.
func TestKeptQuestionsBounded(t *testing.T) {
	e, err := New(wordvec.Default())
	if err != nil {
		t.Fatal(err)
	}
	sc := new(scratch)
	check := func(after string) {
		t.Helper()
		c := &e.questions
		if len(c.kept) > keptQuestions || c.bytes > keptQuestionBytes {
			t.Fatalf("after %s: %d questions, %d bytes kept; bounds %d and %d", after, len(c.kept), c.bytes, keptQuestions, keptQuestionBytes)
		}
	}
	for i := range keptQuestions + 10 {
		e.asked(systemone.Question{Type: systemone.TypeNoul, Instructions: systemone.Text(fmt.Sprintf("refund number %d?", i))}, sc)
		check(fmt.Sprintf("%d short questions", i+1))
	}
	if n := len(e.questions.kept); n != 10 {
		t.Errorf("%d questions kept after %d, want the 10 asked since it was full", n, keptQuestions+10)
	}
	// Questions of many words fill the bytes first.
	vocab := wordvec.Default().Words()
	startedOver := false
	for i := range 40 {
		before := e.questions.bytes
		var b strings.Builder
		for j := 0; b.Len() < keptKeyBytes-100; j++ {
			b.WriteString(vocab[(i*1000+j)%len(vocab)])
			b.WriteByte(' ')
		}
		e.asked(systemone.Question{Type: systemone.TypeNoul, Instructions: systemone.Text(b.String())}, sc)
		check(fmt.Sprintf("%d long questions", i+1))
		startedOver = startedOver || e.questions.bytes < before
	}
	if !startedOver {
		t.Errorf("40 long questions kept in %d bytes without starting over", e.questions.bytes)
	}
	// A question asked again after the cache started over is kept again.
	q := systemone.Question{Type: systemone.TypeNoul, Instructions: systemone.Text("refund number 0?")}
	e.asked(q, sc)
	if _, ok := e.questions.kept[string(q.AppendKey(nil))]; !ok {
		t.Error("a question asked after the cache started over is not kept")
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
