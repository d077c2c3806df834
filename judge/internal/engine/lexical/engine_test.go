package lexical

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/judgeworks/shared/systemone"
)

func decode(t testing.TB, body string) systemone.Request {
	t.Helper()
	req, err := systemone.DecodeRequest([]byte(body))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if err := req.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	return req
}

func ask(t testing.TB, req systemone.Request) *systemone.Response {
	t.Helper()
	resp, err := Engine{}.Ask(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

const ticket = `{"model": "local/lexical-latest",
 "state": "I was charged twice for my subscription and I am furious. Please refund me today!",
 "questions": {
  "urgent": {"type": "noul", "instructions": "Is the customer asking for a refund?"},
  "team": {"type": "choice", "instructions": "Which team should handle it?",
           "criteria": {"billing": "Payments, invoices, refunds and charges",
                        "technical": "Bugs, errors, crashes and login problems",
                        "sales": {"about": "pricing questions and upgrades"}}},
  "anger": {"type": "score", "instructions": "How angry is the customer?",
            "criteria": ["calm", "annoyed", "furious"]}}}`

func TestAnswersAreWellFormed(t *testing.T) {
	req := decode(t, ticket)
	resp := ask(t, req)
	if resp.Model != Name {
		t.Errorf("model = %q, want %q", resp.Model, Name)
	}
	if len(resp.Answers) != len(req.Questions) {
		t.Fatalf("%d answers for %d questions", len(resp.Answers), len(req.Questions))
	}
	for name, a := range resp.Answers {
		if a.Type != req.Questions[name].Type {
			t.Errorf("%s: type %q, want %q", name, a.Type, req.Questions[name].Type)
		}
		if a.Type == systemone.TypeNoul {
			if a.Noul == nil || *a.Noul < 0 || *a.Noul > 1 || a.Confidence != nil {
				t.Errorf("%s: bad noul answer %+v", name, a)
			}
			continue
		}
		sum := 0.0
		for _, p := range a.Probabilities {
			sum += p
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("%s: probabilities sum to %v", name, sum)
		}
		if a.Confidence == nil || *a.Confidence < 0 || *a.Confidence > 1 {
			t.Errorf("%s: confidence %v out of [0, 1]", name, a.Confidence)
		}
	}
	anger := resp.Answers["anger"]
	if anger.Score == nil || *anger.Score < 0 || *anger.Score > 2 {
		t.Errorf("anger score %v out of [0, 2]", anger.Score)
	}
}

// The engine must read the words: each case's text points one way.
func TestAnswersFollowTheText(t *testing.T) {
	req := decode(t, ticket)
	resp := ask(t, req)
	if got := resp.Answers["team"].Choice; got != "billing" {
		t.Errorf("team = %q, want billing (refund, charged)", got)
	}
	if p := *resp.Answers["urgent"].Noul; p <= 0.5 {
		t.Errorf("asking for a refund: noul = %v, want > 0.5", p)
	}
	if s := *resp.Answers["anger"].Score; s <= 1.5 {
		t.Errorf("furious customer: anger score = %v, want > 1.5", s)
	}
}

func TestNegation(t *testing.T) {
	q := `{"type": "noul", "instructions": "Is the request urgent?"}`
	tests := []struct {
		state string
		yes   bool // want noul > 0.5, else < 0.5
	}{
		{"This is urgent.", true},
		{"Urgent: the server is down.", true},
		{"This is not urgent.", false},
		{"It isn't urgent at all.", false},
		{"No urgency here, whenever you have time.", false},
		{"Never urgent, this one.", false},
		{"Not a problem for me, but it is urgent.", true}, // "but" ends the negation
		{"Not now. Urgent!", true},                        // so does a full stop
	}
	for _, tt := range tests {
		state, _ := json.Marshal(tt.state)
		req := decode(t, fmt.Sprintf(`{"model": "m", "state": %s, "questions": {"q": %s}}`, state, q))
		p := *ask(t, req).Answers["q"].Noul
		if tt.yes && p <= 0.5 || !tt.yes && p >= 0.5 {
			t.Errorf("%q: noul = %.3f, want %s 0.5", tt.state, p, map[bool]string{true: ">", false: "<"}[tt.yes])
		}
	}
}

func TestNegationInChoice(t *testing.T) {
	req := decode(t, `{"model": "m",
	  "state": "It is not a billing or payment question; the app crashes with an error.",
	  "questions": {"team": {"type": "choice", "instructions": "Which team?",
	    "criteria": {"billing": "billing and payment", "technical": "crashes and errors"}}}}`)
	if got := ask(t, req).Answers["team"].Choice; got != "technical" {
		t.Errorf("team = %q, want technical: billing was negated", got)
	}
}

func TestNoEvidenceIsUndecided(t *testing.T) {
	req := decode(t, `{"model": "m", "state": "The weather is fine.",
	  "questions": {
	    "q": {"type": "noul", "instructions": "Is the customer asking for a refund?"},
	    "c": {"type": "choice", "instructions": "x", "criteria": {"b": "refunds", "a": "crashes"}}}}`)
	resp := ask(t, req)
	if p := *resp.Answers["q"].Noul; p != 0.5 {
		t.Errorf("noul with no evidence = %v, want 0.5", p)
	}
	c := resp.Answers["c"]
	if c.Probabilities["a"] != 0.5 || *c.Confidence != 0 {
		t.Errorf("choice with no evidence = %+v, want uniform with confidence 0", c)
	}
	if c.Choice != "a" {
		t.Errorf("a tie chose %q, want the smallest name a", c.Choice)
	}
}

func TestNoulCriteria(t *testing.T) {
	body := func(state string) string {
		return fmt.Sprintf(`{"model": "m", "state": %q, "questions": {"q": {"type": "noul",
		  "instructions": "Does the customer want to leave?",
		  "criteria": {"true": "cancel the account, close it, quit", "false": "stay, keep, renew"}}}}`, state)
	}
	if p := *ask(t, decode(t, body("Please cancel my account."))).Answers["q"].Noul; p <= 0.5 {
		t.Errorf("cancel: noul = %v, want > 0.5", p)
	}
	if p := *ask(t, decode(t, body("I will renew and keep my plan."))).Answers["q"].Noul; p >= 0.5 {
		t.Errorf("renew: noul = %v, want < 0.5", p)
	}
}

func TestStructuredState(t *testing.T) {
	req := decode(t, `{"model": "m",
	  "state": {"subject": "Refund", "messages": ["I was charged twice", {"note": "invoice attached"}]},
	  "questions": {"team": {"type": "choice", "instructions": "Which team?",
	    "criteria": {"billing": "refunds, invoices, charges", "technical": ["bugs", "crashes"]}}}}`)
	if got := ask(t, req).Answers["team"].Choice; got != "billing" {
		t.Errorf("team = %q, want billing", got)
	}
}

func TestDeterministic(t *testing.T) {
	req := decode(t, ticket)
	first := ask(t, req)
	for range 20 {
		if again := ask(t, decode(t, ticket)); !reflect.DeepEqual(first, again) {
			t.Fatalf("answers differ between runs:\n%+v\n%+v", first, again)
		}
	}
}

func TestOptionOrderDoesNotMatter(t *testing.T) {
	req := decode(t, ticket)
	want := ask(t, req).Answers["team"]
	opts := req.Questions["team"].Options
	// Every rotation and the reversal of the three options.
	perms := [][]int{{1, 2, 0}, {2, 0, 1}, {2, 1, 0}, {0, 2, 1}, {1, 0, 2}}
	for _, perm := range perms {
		q := req.Questions["team"]
		q.Options = make([]systemone.Option, len(opts))
		for i, j := range perm {
			q.Options[i] = opts[j]
		}
		r := systemone.Request{Model: req.Model, State: req.State, Questions: map[string]systemone.Question{"team": q}}
		if got := ask(t, r).Answers["team"]; !reflect.DeepEqual(got, want) {
			t.Errorf("order %v: %+v, want %+v", perm, got, want)
		}
	}
}

func TestAloneEqualsBatchAndNamesDoNotMatter(t *testing.T) {
	req := decode(t, ticket)
	batch := ask(t, req)
	for name, q := range req.Questions {
		for _, alias := range []string{name, "renamed_" + name, "x"} {
			alone := systemone.Request{Model: req.Model, State: req.State, Questions: map[string]systemone.Question{alias: q}}
			got := ask(t, alone).Answers[alias]
			if !reflect.DeepEqual(got, batch.Answers[name]) {
				t.Errorf("%s asked alone as %q: %+v, in the batch: %+v", name, alias, got, batch.Answers[name])
			}
		}
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Engine{}).Ask(ctx, decode(t, ticket)); err == nil {
		t.Fatal("a cancelled request was answered")
	}
}

// request builds a request with n questions cycling through the three types.
func request(n int) systemone.Request {
	req := systemone.Request{
		Model:     Alias,
		State:     json.RawMessage(`"I was charged twice for my subscription and I am furious. The app also crashed twice during checkout, which is not acceptable. Please refund me today and tell me whether the login bug is fixed."`),
		Questions: map[string]systemone.Question{},
	}
	for i := range n {
		var q systemone.Question
		switch i % 3 {
		case 0:
			q = systemone.Question{Type: systemone.TypeNoul, Instructions: json.RawMessage(`"Is the customer asking for a refund?"`)}
		case 1:
			q = systemone.Question{Type: systemone.TypeChoice, Instructions: json.RawMessage(`"Which team?"`), Options: []systemone.Option{
				{Name: "billing", Description: json.RawMessage(`"Payments, invoices, refunds and charges"`)},
				{Name: "technical", Description: json.RawMessage(`"Bugs, errors, crashes and login problems"`)},
				{Name: "sales", Description: json.RawMessage(`"Pricing questions and upgrades"`)},
			}}
		case 2:
			q = systemone.Question{Type: systemone.TypeScore, Instructions: json.RawMessage(`"How angry?"`),
				Levels: []string{"calm", "mildly annoyed", "annoyed", "angry", "furious"}}
		}
		req.Questions[fmt.Sprintf("q%d", i)] = q
	}
	return req
}

func BenchmarkAsk(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		req := request(n)
		b.Run(fmt.Sprintf("questions=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := (Engine{}).Ask(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
