package jobdesc

import (
	"testing"
)

// A product manager's interview against a pasted advertisement: a
// requirement is covered only where an answer says something about it.
const pmAdvert = `Senior Product Manager, Payments
About the role: you will own the checkout experience end to end.
Requirements:
- 5+ years of product management experience in B2B SaaS
- Able to write crisp PRDs and user stories
- Strong analytical skills: SQL, funnels and A/B testing
- Experience prioritising a roadmap with engineering and design
- Excellent stakeholder communication with sales and support
- Familiarity with payments, billing or fintech
- Comfortable defining success metrics and OKRs
- Experience running customer discovery interviews`

var pmAnswers = []string{
	// How would you prioritise a roadmap when sales, support and engineering all want different things?
	"I would start from the company goals for the quarter and score each request with RICE, so sales, support and engineering " +
		"all see why one ranks above another. I would walk the sales and support leads through the ranking before it is final, " +
		"and then revisit the roadmap with engineering and design every month.",
	// Tell me about a time you influenced a decision without having authority.
	"At my last company I wrote a one-page summary of the support tickets for the engineering lead. The story that convinced " +
		"him was a customer who churned after three failed payments. Users kept telling us the same thing. We agreed to fix " +
		"retries first, and churn dropped by a fifth over the next quarter.",
	// What metrics would you track for a new mobile app?
	"For a new app I would track activation, week-one retention and the share of users who complete a purchase. I would " +
		"set a target for each with the team and review the funnel every week, and I would run an A/B test before changing " +
		"the onboarding flow.",
}

func TestCoverageNeedsAnAnswerThatSaysIt(t *testing.T) {
	reqs := Requirements(pmAdvert)
	if len(reqs) != 8 {
		t.Fatalf("requirements %q", reqs)
	}
	// "payments, billing or fintech" is left to the reader: the second
	// answer's customer churned after failed payments, which says
	// something about payments.
	want := map[string]bool{
		"write crisp PRDs and user stories":                  false,
		"Comfortable defining success metrics and OKRs":      false,
		"running customer discovery interviews":              false,
		"prioritising a roadmap with engineering and design": true,
		"stakeholder communication with sales and support":   true,
		"analytical skills: SQL, funnels and A/B testing":    true,
	}
	for _, r := range reqs {
		req := Prepare(r)
		covered, best := false, 0.0
		for _, a := range pmAnswers {
			c := Coverage(req, PrepareAnswer(a))
			best = max(best, c)
			covered = covered || Covers(req, PrepareAnswer(a))
		}
		t.Logf("%-50.50s best %.2f", r, best)
		if w, ok := want[r]; ok && covered != w {
			t.Errorf("%q covered %v, want %v (best %.2f)", r, covered, w, best)
		}
	}
}
