package lexical

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"

	"github.com/judgeworks/judge/internal/engine/enginetest"
	"github.com/judgeworks/shared/systemone"
)

// keyQuestions are questions of every type and form compile reads.
func keyQuestions() []systemone.Question {
	qs := []systemone.Question{
		{Type: systemone.TypeNoul, Instructions: systemone.Text("Does the customer want to leave?"),
			Noul: &systemone.NoulCriteria{True: systemone.Text("cancel the account, close it"), False: json.RawMessage(`["stay", {"or": "renew"}]`)}},
		{Type: systemone.TypeNoul, Instructions: json.RawMessage(`{"ask": "Is it not urgent?", "context": ["refund"]}`)},
		{Type: systemone.TypeChoice, Instructions: systemone.Text("Which team?"), Options: []systemone.Option{
			{Name: "billing", Description: systemone.Text("refunds, invoices, charges")},
			{Name: "technical_support"}, {Name: "sales", Description: json.RawMessage(`null`)},
			{Name: "other", Description: json.RawMessage(`{"about": "anything else, not billing"}`)}}},
		{Type: systemone.TypeScore, Instructions: systemone.Text("How angry?"),
			Levels: []json.RawMessage{nil, systemone.Text("annoyed"), json.RawMessage(`["furious", "livid"]`)}},
	}
	for _, q := range enginetest.Ticket(Alias, 3).Questions {
		qs = append(qs, q)
	}
	return qs
}

// A kept question answers exactly as one compiled afresh, on the first
// request that asks it and on every later one.
func TestKeptQuestionsAgree(t *testing.T) {
	states := []string{
		"I was charged twice and I am furious. Please refund me, this is not urgent.",
		"I will stay and renew; the app crashes at login, which is NOT acceptable.",
		"The weather is fine.",
	}
	for _, text := range states {
		state := stateTerms(text)
		for i, q := range keyQuestions() {
			fresh, err := compile(q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := systemone.BuildAnswer(q, fresh.weights(state, nil))
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				got, err := Engine{unmixed: true}.answer(state, q)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("question %d on %q: kept %+v, afresh %+v", i, text, got, want)
				}
			}
		}
	}
}

// A question compile refuses is refused again each time, never kept (the
// bounds of what is kept are keep.Map's, tested there).
func TestRefusedNotKept(t *testing.T) {
	q := systemone.Question{Type: "essay", Instructions: systemone.Text("Is it about a refund?")}
	for range 2 {
		if _, err := kept(q); err == nil {
			t.Fatal("an unknown type gave no error")
		}
	}
	if _, ok := questions.Lookup(q.AppendKey(nil)); ok {
		t.Error("a question of an unknown type was kept")
	}
}

// Requests asked at once share the kept compiled questions, which none
// changes, and get the answers asked alone (run with -race).
func TestConcurrentAsks(t *testing.T) {
	req := enginetest.Ticket(Alias, 9)
	want := enginetest.Ask(t, Engine{}, req)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				got, err := Engine{}.Ask(context.Background(), req)
				if err != nil {
					t.Error(err)
					return
				}
				if !reflect.DeepEqual(got.Answers, want.Answers) {
					t.Errorf("answers differ when asked at once: %+v, %+v", got.Answers, want.Answers)
				}
			}
		})
	}
	wg.Wait()
}

// stateTerms reads as terms does, term for term in order.
func TestStateTermsMatchTerms(t *testing.T) {
	for _, text := range []string{"I was charged twice, not refunded; the charges are NOT ok.", "Nothing", ""} {
		b := bag{}
		for _, tk := range stateTerms(text) {
			tm := tk.Word
			if tk.Negated {
				tm = negPrefix + tm
			}
			b[tm]++
		}
		if want := terms(text); !reflect.DeepEqual(b, want) {
			t.Errorf("stateTerms(%q) counts %v, terms %v", text, b, want)
		}
	}
}
