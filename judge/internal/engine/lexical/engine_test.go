package lexical

import (
	"context"
	"fmt"
	"github.com/judgeworks/judge/internal/engine/enginetest"
	"testing"
)

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

// The engine must read the words: each case's text points one way.
func TestAnswersFollowTheText(t *testing.T) {
	req := enginetest.Decode(t, ticket)
	resp := enginetest.Ask(t, Engine{}, req)
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

func TestNegation(t *testing.T) { enginetest.RunNegationScope(t, Engine{}) }

func TestNegationInChoice(t *testing.T) {
	req := enginetest.Decode(t, `{"model": "m",
	  "state": "It is not a billing or payment question; the app crashes with an error.",
	  "questions": {"team": {"type": "choice", "instructions": "Which team?",
	    "criteria": {"billing": "billing and payment", "technical": "crashes and errors"}}}}`)
	if got := enginetest.Ask(t, Engine{}, req).Answers["team"].Choice; got != "technical" {
		t.Errorf("team = %q, want technical: billing was negated", got)
	}
}

func TestNoEvidenceIsUndecided(t *testing.T) {
	req := enginetest.Decode(t, `{"model": "m", "state": "The weather is fine.",
	  "questions": {
	    "q": {"type": "noul", "instructions": "Is the customer asking for a refund?"},
	    "c": {"type": "choice", "instructions": "x", "criteria": {"b": "refunds", "a": "crashes"}}}}`)
	resp := enginetest.Ask(t, Engine{}, req)
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
	if p := *enginetest.Ask(t, Engine{}, enginetest.Decode(t, body("Please cancel my account."))).Answers["q"].Noul; p <= 0.5 {
		t.Errorf("cancel: noul = %v, want > 0.5", p)
	}
	if p := *enginetest.Ask(t, Engine{}, enginetest.Decode(t, body("I will renew and keep my plan."))).Answers["q"].Noul; p >= 0.5 {
		t.Errorf("renew: noul = %v, want < 0.5", p)
	}
}

func TestStructuredState(t *testing.T) {
	req := enginetest.Decode(t, `{"model": "m",
	  "state": {"subject": "Refund", "messages": ["I was charged twice", {"note": "invoice attached"}]},
	  "questions": {"team": {"type": "choice", "instructions": "Which team?",
	    "criteria": {"billing": "refunds, invoices, charges", "technical": ["bugs", "crashes"]}}}}`)
	if got := enginetest.Ask(t, Engine{}, req).Answers["team"].Choice; got != "billing" {
		t.Errorf("team = %q, want billing", got)
	}
}

func BenchmarkAsk(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		req := enginetest.Ticket(Alias, n)
		b.Run(fmt.Sprintf("questions=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := (Engine{}).Ask(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestConformance(t *testing.T) { enginetest.Run(t, Engine{}) }

func TestCoherence(t *testing.T) {
	enginetest.RunCoherence(t, Engine{}, enginetest.Coherence{Apart: true})
}
