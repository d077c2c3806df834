package offline

import (
	"slices"
	"strings"
	"testing"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer"
)

// These tests read the sentences of real answers, the ones a job seeker
// wrote when the rubric misread them and more, and hold the rubric to
// what a person reading them would say.

// A hedge is not a trade-off: "but" joins two clauses of not knowing. A
// trade-off sets one option against another and says what it costs.
func TestHedgesAreNotTradeoffs(t *testing.T) {
	iv := New()
	q := iv.bank.byID["backend-medium-01"] // rate limiter
	for _, hedge := range []string{
		"I'm not totally sure, but I think I would try a few things and see what works. I would limit how many requests each client sends.",
		"It depends on the system, but there are many ways to do it. Probably I would count the requests of each client somehow.",
		"Honestly I don't know this one well, but maybe a limit per client would help here.",
	} {
		a := assess(iv.rd, q.Points, hedge)
		if a.HasTradeoff {
			t.Errorf("a hedge read as a trade-off: %q", hedge)
		}
		if e := evaluate(t, q.ID, hedge); slices.Contains(e.Strengths, "Discussed trade-offs") {
			t.Errorf("a hedge credited as a trade-off: %q: %v", hedge, e.Strengths)
		}
	}
	for _, weighed := range []string{
		"A token bucket lets a client send short bursts, whereas a sliding window log is exact but costs more memory per client.",
		"Keeping the counters in Redis makes every instance agree, at the cost of a network round trip on each request.",
		"A fixed window is simple; however, it lets a client send twice the limit across the boundary of two windows.",
	} {
		if a := assess(iv.rd, q.Points, weighed); !a.HasTradeoff {
			t.Errorf("a trade-off was missed: %q", weighed)
		}
	}
}

// A point is covered where the answer says something about it: naming a
// tool or a framework in a bare sentence only names it, and a word that
// merely sounds like the point ("scoring" beside "goals") covers nothing.
func TestAKeywordIsNotAnExplanation(t *testing.T) {
	iv := New()
	cases := []struct {
		id, answer, point string
		covered           bool
	}{
		{"backend-medium-04", "Use Redis.", "Cache-aside or read-through with a store like Redis", false},
		{"backend-medium-04", "Use Redis. That is what most teams do and it works.", "Cache-aside or read-through with a store like Redis", false},
		{"backend-medium-04", "I would put Redis in front of the database: the endpoint reads from Redis first, and on a miss it loads the row from the database and stores it with a TTL.",
			"Cache-aside or read-through with a store like Redis", true},
		{"product-management-hard-03", "I'd use RICE scoring.", "Anchor on strategy and goals", false},
		{"product-management-hard-03", "I'd use RICE scoring.", "Transparent scoring framework", false},
		{"product-management-hard-03", "I'd use RICE scoring. Then I would share the ranking with everyone who asked for something.", "Anchor on strategy and goals", false},
		{"product-management-hard-03", "I would first tie every request back to the company strategy and this quarter's goals, and drop what serves neither.",
			"Anchor on strategy and goals", true},
		{"product-management-hard-03", "I would score every request with RICE in a shared sheet, so sales, support and engineering all see why one ranks above another.",
			"Transparent scoring framework", true},
	}
	for _, c := range cases {
		q := iv.bank.byID[c.id]
		a := assess(iv.rd, q.Points, c.answer)
		if got := slices.Contains(a.Covered, c.point); got != c.covered {
			t.Errorf("%s %q: %q covered %v, want %v (covered %v, touched or named %v)", c.id, c.answer, c.point, got, c.covered, a.Covered, a.Partly)
		}
	}
	// What only names the point is told so, quoting the name.
	e := evaluate(t, "backend-medium-04", "Use Redis. That is what most teams do and it works.")
	if !strings.Contains(e.Feedback, "Named but not explained: Cache-aside") || slices.Contains(e.Strengths, "Covered: Cache-aside or read-through with a store like Redis") {
		t.Errorf("feedback %q, strengths %v", e.Feedback, e.Strengths)
	}
}

// incident is a strong STAR story, dated, with a blameless post-mortem and
// a number in its first sentence that sets the scene.
const incident = "In March 2023 our checkout service started failing for about 4 percent of card payments right after a database upgrade. " +
	"I was the on-call engineer, so I had to get payments working again before anything else. " +
	"I rolled the upgrade back within twenty minutes, posted an update in the incident channel every fifteen minutes and told support what to say to customers. " +
	"Afterwards I ran a blameless post-mortem, and we added an alert on pool saturation and a load test to the release checklist. " +
	"Failed payments went back down to under 0.1 percent that afternoon, and the problem has not come back since."

func TestStrongSTARStory(t *testing.T) {
	e := evaluate(t, "behavioural-medium-04", incident) // a production incident
	if e.Star == nil || !e.Star.Situation || !e.Star.Task || !e.Star.Action || !e.Star.Result {
		t.Fatalf("STAR %+v", e.Star)
	}
	if !slices.Contains(e.Strengths, "Covered: Postmortem and follow-up actions") || strings.Contains(e.Feedback, "Missed: ") && strings.Contains(e.Feedback, "Postmortem") {
		t.Errorf("the blameless post-mortem was missed: %s", e.Feedback)
	}
	if strings.Contains(e.Feedback, "No concrete example") || !assess(New().rd, nil, incident).HasExample {
		t.Errorf("a dated story is a concrete example: %s", e.Feedback)
	}
	quote := func(point string) string {
		for _, ev := range e.Evidence {
			if ev.Point == point {
				return ev.Quote
			}
		}
		return ""
	}
	if q := quote("Gave the outcome (STAR: result)"); !strings.HasPrefix(q, "Failed payments went back down") {
		t.Errorf("the result quotes %q, want the sentence that reports the outcome", q)
	}
	if e.Score < 75 {
		t.Errorf("a strong story scored %d: %s", e.Score, e.Feedback)
	}
}

// The same story's parts, each read where it is told: a number that sets
// the scene is not a result, and a dated opening is a situation.
func TestStoryParts(t *testing.T) {
	iv := New()
	cases := []struct {
		story string
		want  [4]int // sentence of situation, task, action, result
	}{
		{incident, [4]int{0, 1, 2, 4}},
		{"Two years ago our signup conversion was stuck at 3 percent. My goal was to raise it before the summer launch. " +
			"I interviewed ten users and cut the form from nine fields to four. Conversion rose to 5 percent within a month.", [4]int{0, 1, 2, 3}},
		{"Errors were at 12 percent of requests. I added retries with backoff. They dropped to 2 percent.", [4]int{-1, -1, 1, 2}},
	}
	for _, c := range cases {
		if got := assess(iv.rd, nil, c.story).storyParts(); got != c.want {
			t.Errorf("%.50q…: parts %v, want %v", c.story, got, c.want)
		}
	}
}

// Words are read one way whatever their spelling: British and American,
// plurals, hyphens, words written together or apart. Each answer reaches
// its point only through such a spelling.
func TestSpellingsMeetTheirKeywords(t *testing.T) {
	iv := New()
	cases := []struct{ answer, point string }{
		{"Afterwards we held a blameless post-mortem on the outage with the whole team.", "Postmortem and follow-up actions"},
		{"We would monetise the free tier by moving the heaviest users to the team plan.", "Revenue or conversion"},
		{"We serialise the trained weights together with the scaler and the encoder into one file.", "Package the model with its preprocessing"},
	}
	for _, c := range cases {
		var q *question
		for _, bq := range iv.bank.byID {
			if slices.ContainsFunc(bq.Points, func(p point) bool { return p.Label == c.point }) {
				q = bq
			}
		}
		if q == nil {
			t.Fatalf("no question has the point %q", c.point)
		}
		if a := assess(iv.rd, q.Points, c.answer); !slices.Contains(a.Covered, c.point) {
			t.Errorf("%s %q: %q not covered (covered %v)", q.ID, c.answer, c.point, a.Covered)
		}
	}
}

// An answer about something else is an answer: scored low, said to be
// off-topic, crediting nothing, with the question's points named.
func TestOffTopicAnswerIsScoredLow(t *testing.T) {
	const hiking = "Last summer I hiked the Tour du Mont Blanc with two friends. I booked the mountain huts four months in advance " +
		"because they fill up quickly, and we walked about twenty kilometres a day. The views from the Col de la Seigne were the best part."
	for _, id := range []string{"backend-medium-01", "frontend-easy-04", "product-management-easy-03", "data-engineering-easy-01"} {
		e := evaluate(t, id, hiking)
		if !e.Scorable || !e.OffTopic || e.Score > interviewer.MaxOffTopicScore || len(e.Strengths) != 0 ||
			!strings.HasPrefix(e.Feedback, interviewer.OffTopicLead) || !strings.Contains(e.Feedback, "A good answer would cover") {
			t.Errorf("%s: %+v", id, e)
		}
	}
}

// A follow-up refers to the answer: it quotes a phrase of it, the sentence
// nearest the gap, and names what it left out; a phrase cut short says
// so with an ellipsis.
func TestFollowUpsReferToTheAnswer(t *testing.T) {
	iv := New()
	rate := iv.bank.byID["backend-medium-01"] // rate limiter
	q := interview.Question{ID: rate.ID, Text: rate.Text}
	cases := []struct {
		answers []string
		quote   string // the phrase the follow-up must quote
		asks    string
	}{
		// Names a tool and nothing more: asked to explain what it named.
		{[]string{"Use Redis."}, "“Use Redis”", "touched on a key point without explaining it: shared state for many instances"},
		{[]string{"Use Redis. I would limit each client somehow."}, "“I would limit each client somehow”", "touched on a key point without explaining it: key the limit per user"},
		// Covers points without weighing them: the approach it chose.
		{[]string{"I would use a token bucket per API key, with the counters in Redis so every instance agrees, " +
			"and answer 429 with a Retry-After header when the bucket is empty."}, "“I would use a token bucket per API key, with the counters in Redis…”", "trade-offs"},
	}
	for _, c := range cases {
		got, ok := followUpOn(t, iv, q, c.answers...)
		if !ok || !strings.Contains(got, c.quote) || !strings.Contains(got, c.asks) {
			t.Errorf("after %q: follow-up %q (%v), want it to quote %s and ask about %q", c.answers, got, ok, c.quote, c.asks)
		}
	}
	story := interview.Question{ID: "q1", Text: "Tell me about a time you improved the performance of a service."}
	got, ok := followUpOn(t, iv, story, "The checkout API was slow in 2023. I profiled it and added a cache in front of the database.")
	if !ok || !strings.Contains(got, "“I profiled it and added a cache in front of the database”") || !strings.Contains(got, "What was the result?") {
		t.Errorf("a story without its result: follow-up %q (%v)", got, ok)
	}
}

// A quoted phrase is bounded however the answer is written.
func TestExcerpt(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Use Redis.", "Use Redis"},
		{"one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen", "one two three four five six seven eight nine ten eleven twelve thirteen fourteen…"},
		{strings.Repeat("x", 500), strings.Repeat("x", maxPhraseRunes) + "…"},
		{strings.Repeat("é", 100) + " " + strings.Repeat("é", 100), strings.Repeat("é", 100) + "…"},
	} {
		if got := excerpt(c.in, maxPhraseWords); got != c.want {
			t.Errorf("excerpt(%.30q…) = %q, want %q", c.in, got, c.want)
		}
	}
}
