package offline

import (
	"slices"
	"strings"
	"testing"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer"
)

// webPerformance answers "How do you make a web page load faster?".
const webPerformance = "To make the page fast I would first measure with Lighthouse and look at LCP. Then I would split the JavaScript bundle into chunks so each route loads only its code, and lazy-load images below the fold. I compress assets with brotli and serve them from a CDN with long cache lifetimes. For example, on my last project this cut load time from 4 seconds to 1.5 seconds. The trade-off is more build complexity."

// An answer that addresses another question of the bank is off-topic:
// scored, at most 35, crediting nothing, and the feedback names the
// question it answers.
func TestAnswerToAnotherQuestion(t *testing.T) {
	e := evaluate(t, "frontend-medium-07", webPerformance) // CSR, SSR and static generation
	if !e.Scorable || !e.OffTopic || e.Score > interviewer.MaxOffTopicScore || len(e.Strengths) != 0 ||
		!strings.Contains(e.Feedback, "another question") || !strings.Contains(e.Feedback, "load faster") {
		t.Fatalf("off-topic answer: %+v", e)
	}
	// Its own question scores it.
	if e := evaluate(t, "frontend-easy-08", webPerformance); !e.Scorable || e.Score < 50 {
		t.Fatalf("the same answer to its own question: %+v", e)
	}
}

// Each key point has one state: covered, touched on, or missed.
func TestEachPointHasOneState(t *testing.T) {
	iv := New()
	for _, set := range []map[string]string{hardDev, plainDev, synonymDev, heldoutParaphrases} {
		for id, answer := range set {
			q := iv.bank.byID[id]
			a := assess(iv.rd, q.Points, answer)
			seen := map[string]int{}
			for _, l := range slices.Concat(a.Covered, a.Partly, a.Untouched) {
				seen[l]++
			}
			for _, p := range q.Points {
				if seen[p.Label] != 1 {
					t.Errorf("%s: point %q is in %d states", id, p.Label, seen[p.Label])
				}
			}
			fb := a.feedback(len(q.Points), nil).text
			for _, l := range a.Partly {
				if i := strings.Index(fb, "Missed:"); i >= 0 && strings.Contains(fb[i:], l) {
					t.Errorf("%s: %q both touched on and missed: %s", id, l, fb)
				}
			}
		}
	}
}

// A quote stands under a point only when it carries it, once per
// evaluation.
func TestQuotesCarryTheirPoint(t *testing.T) {
	vague := "We just log errors and return 500. It depends on the situation."
	e := evaluate(t, "backend-medium-06", vague) // handling errors consistently
	for _, ev := range e.Evidence {
		if ev.Point == "Covered: Log with context and a request id" || ev.Point == "Discussed trade-offs" {
			t.Errorf("%q quoted for %q", ev.Quote, ev.Point)
		}
	}
	if slices.Contains(e.Strengths, "Discussed trade-offs") {
		t.Errorf("\"It depends\" credited as trade-offs: %v", e.Strengths)
	}
	iv := New()
	for _, set := range []map[string]string{hardDev, plainDev, synonymDev, heldoutParaphrases, {"frontend-easy-08": webPerformance}} {
		for id, answer := range set {
			e := evaluate(t, id, answer)
			quoted := map[string]string{}
			for _, ev := range e.Evidence {
				if p, ok := quoted[ev.Quote]; ok {
					t.Errorf("%s: %q quoted under %q and %q", id, ev.Quote, p, ev.Point)
				}
				quoted[ev.Quote] = ev.Point
				label, ok := strings.CutPrefix(ev.Point, "Covered: ")
				if !ok {
					continue
				}
				q := iv.bank.byID[id]
				p := q.Points[slices.IndexFunc(q.Points, func(p point) bool { return p.Label == label })]
				if a := assess(iv.rd, []point{p}, ev.Quote); len(a.Covered) != 1 {
					t.Errorf("%s: the quote %q alone does not cover %q", id, ev.Quote, label)
				}
			}
		}
	}
}

// The page names the families the bank covers, and those a role's
// questions come from, before an interview starts; a role the bank does
// not know gets the general behavioural questions, never another
// profession's technical ones.
func TestFamiliesAreNamed(t *testing.T) {
	iv := New()
	names, fallback := iv.Families()
	if len(names) < 5 || !slices.Contains(names, "frontend engineering") || fallback != "behavioural and leadership" {
		t.Fatalf("families %q, fallback %q", names, fallback)
	}
	if got, matched := iv.FamiliesFor("Data analyst"); !matched || !slices.Equal(got, []string{"data engineering", "data science and machine learning"}) {
		t.Errorf("a data analyst's questions come from %q (%v)", got, matched)
	}
	if got, matched := iv.FamiliesFor("Physiotherapist"); matched || !slices.Equal(got, []string{"behavioural and leadership"}) {
		t.Errorf("a physiotherapist's questions come from %q (%v)", got, matched)
	}
}

// An interview for a role the bank does not know asks the general
// behavioural questions and says so; a data analyst's asks data ones.
func TestOpenForRolesOutsideTheBank(t *testing.T) {
	iv := New()
	ctx := t.Context()
	o, err := iv.Open(ctx, interview.Setup{CandidateName: "Ada", Role: "Physiotherapist", Difficulty: "medium", TotalQuestions: 3})
	if err != nil || !strings.HasPrefix(o.Question.ID, "behavioural-") || !strings.Contains(o.Welcome, "general behavioural and leadership") {
		t.Fatalf("physiotherapist: %v %q %q", err, o.Question.ID, o.Welcome)
	}
	s := interview.Setup{CandidateName: "Ada", Role: "Data analyst", Difficulty: "medium", TotalQuestions: 5}
	o, err = iv.Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	done := []interview.Result{{Question: o.Question}}
	for range 4 {
		q, err := iv.Next(ctx, s, done)
		if err != nil {
			t.Fatal(err)
		}
		done = append(done, interview.Result{Question: q})
	}
	for _, r := range done {
		if !strings.HasPrefix(r.Question.ID, "data-engineering-") && !strings.HasPrefix(r.Question.ID, "machine-learning-") {
			t.Errorf("a data analyst was asked %s: %q", r.Question.ID, r.Question.Text)
		}
	}
}
