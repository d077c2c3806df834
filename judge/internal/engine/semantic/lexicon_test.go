package semantic

import (
	"math"
	"reflect"
	"regexp"
	"testing"
)

// The related groups stay a small, legible list of single lower-case
// words, each listed once per group, and every group is reachable.
func TestRelatedGroupsAreSmall(t *testing.T) {
	word := regexp.MustCompile(`^[a-z]+$`)
	total := 0
	for i, g := range related {
		seen := map[string]bool{}
		for _, w := range g {
			if !word.MatchString(w) || seen[w] {
				t.Errorf("group %d: %q is not a new lower-case word", i, w)
			}
			seen[w] = true
			if groupsOf(w)&(1<<i) == 0 {
				t.Errorf("group %d: %q does not find its group", i, w)
			}
		}
		total += len(g)
	}
	if len(related) > 64 || total > 300 {
		t.Errorf("%d groups of %d words: the lexicon is meant to stay small (≤ 64 groups, ≤ 300 words)", len(related), total)
	}
}

func TestGroupsOfInflections(t *testing.T) {
	for _, w := range []string{"deliveries", "delivered", "parcels", "shipped", "crashes", "crashed", "crashing", "invoices"} {
		if groupsOf(w) == 0 {
			t.Errorf("%q is in no group", w)
		}
	}
	if groupsOf("deliveries") != groupsOf("delivery") || groupsOf("shipped") != groupsOf("ship") {
		t.Error("inflected forms not in their base word's groups")
	}
	for _, w := range []string{"weather", "order", "code", "account"} {
		if g := groupsOf(w); g != 0 {
			t.Errorf("%q is in groups %b; words of several common senses are left out", w, g)
		}
	}
}

func TestPhrases(t *testing.T) {
	got := tokens(nil, "I can't log in, and I want to send it back. It stopped working.", nil)
	want := []token{
		{word: "login", negated: true, intensity: 1},
		{word: "want", intensity: 1},
		{word: "send", intensity: 1},
		{word: "back", intensity: 1}, // "it" stands between: not the phrase
		{word: "broken", intensity: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tokens = %+v, want %+v", got, want)
	}
	if got := tokens(nil, "send back the chair", nil); got[0].word != "return" {
		t.Errorf("send back → %+v, want return", got)
	}
}

// Words that news-trained vectors keep apart but support tickets use for
// one thing route a ticket to the team named by none of its words.
func TestRelatedWordsRoute(t *testing.T) {
	q := `{"type": "choice", "instructions": "Which team should handle this ticket?", "criteria": {
		"billing": "payments, invoices, charges, refunds and subscriptions",
		"technical": "bugs, errors, crashes, outages and slow performance",
		"account": "signing in, passwords, profile settings and account access",
		"shipping": "deliveries, parcels, tracking and returns of physical goods"}}`
	wantChoices(t, q, map[string]string{
		"The courier left the package with a neighbour I have never met.": "shipping",
		"The editor keeps freezing whenever I paste a table.":             "technical",
		"I cannot log in since I changed my phone.":                       "account",
		"There is a fee on my bank statement I do not recognise.":         "billing",
		"The export button doesn't work any more.":                        "technical",
	})
}

// A question mark speaks for an option about asking. The option's name
// says nothing once it has a description, so the description says it.
func TestQuestionMark(t *testing.T) {
	q := `{"type": "choice", "instructions": "What does the customer want?", "criteria": {
		"report_problem": "tell us that something is broken", "question": "a question about how to do something"}}`
	if a := one(t, "Is it possible to export to a spreadsheet?", q); a.Choice != "question" {
		t.Errorf("a question: %q (%v)", a.Choice, a.Probabilities)
	}
	if a := one(t, "The export to a spreadsheet won't load.", q); a.Choice != "report_problem" {
		t.Errorf("a problem: %q (%v)", a.Choice, a.Probabilities)
	}
}

// Severity levels carry no sentiment; the severity axis orders reports
// from trivial to grave.
func TestSeverityScale(t *testing.T) {
	q := `{"type": "score", "instructions": "How severe is the reported problem?",
		"criteria": ["cosmetic", "minor", "major", "critical"]}`
	low := *one(t, "The colour of one icon is slightly off.", q).Score
	high := *one(t, "A security breach exposed the passwords of every customer.", q).Score
	if high-low < 1 {
		t.Errorf("breach %.2f, icon colour %.2f: want the breach at least a level higher", high, low)
	}
}

func TestOrdered(t *testing.T) {
	for _, c := range []struct {
		xs     []float64
		lo, hi float64
	}{
		{[]float64{-0.4, -0.2, 0, 0.2, 0.4}, 0.99, 1.01},
		{[]float64{0.1, -0.25, -0.5, -0.4}, -1, -0.8},
		{[]float64{0, -0.25, -0.13, 0}, -0.5, 0.5},
		{[]float64{1, 1, 1}, 0, 0},
	} {
		if got := ordered(c.xs); got < c.lo || got > c.hi || math.IsNaN(got) {
			t.Errorf("ordered(%v) = %.3f, want in [%v, %v]", c.xs, got, c.lo, c.hi)
		}
	}
}
