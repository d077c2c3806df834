package offline

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer"
)

func TestBankShape(t *testing.T) {
	b, err := loadBank(bankFiles)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.families) < 8 {
		t.Fatalf("%d families, want at least 8", len(b.families))
	}
	ids, texts := map[string]bool{}, map[string]bool{}
	for _, f := range b.families {
		for _, d := range difficulties {
			qs := f.questions[d]
			if len(qs) < 10 {
				t.Errorf("%s/%s: %d questions, want at least 10", f.ID, d, len(qs))
			}
			for _, q := range qs {
				if ids[q.ID] {
					t.Errorf("duplicate id %s", q.ID)
				}
				if texts[normText(q.Text)] {
					t.Errorf("duplicate text %q", q.Text)
				}
				ids[q.ID], texts[normText(q.Text)] = true, true
				if n := len(q.Points); n < 3 || n > 6 {
					t.Errorf("%s: %d points", q.ID, n)
				}
				for _, p := range q.Points {
					if p.Label == "" || len(p.phrases) == 0 {
						t.Errorf("%s: empty point %+v", q.ID, p)
					}
				}
			}
		}
	}
}

func TestLoadBankRejectsBadPoint(t *testing.T) {
	for _, raw := range []string{"no separator here", " = kw", "Label = | |"} {
		if _, err := parsePoint(raw); err == nil {
			t.Errorf("parsePoint(%q) accepted", raw)
		}
	}
}

func TestResolveFamilies(t *testing.T) {
	b, _ := loadBank(bankFiles)
	cases := []struct {
		role    string
		want    []string
		matched bool
	}{
		{"Senior Backend Engineer", []string{"backend"}, true},
		{"Full-stack developer", []string{"backend", "frontend"}, true},
		{"React developer", []string{"frontend"}, true},
		{"Data Engineer", []string{"data-engineering"}, true},
		{"data scientist", []string{"machine-learning"}, true},
		{"Site Reliability Engineer", []string{"devops-sre"}, true},
		{"Android developer", []string{"mobile"}, true},
		{"Product Manager", []string{"product-management"}, true},
		{"QA automation engineer", []string{"qa-testing"}, true},
		{"Data analyst", []string{"data-engineering", "machine-learning"}, true},
		{"Senior data analyst", []string{"data-engineering", "machine-learning"}, true},
		{"Business intelligence developer", []string{"data-engineering"}, true},
		{"Cloud architect", []string{"devops-sre"}, true},
		{"Head of data", []string{"data-engineering", "machine-learning"}, true},
		{"Financial analyst", []string{"behavioural"}, false},
		{"Registered nurse", []string{"behavioural"}, false},
		{"Pastry chef", []string{"behavioural"}, false},
		{"Engineer", []string{"behavioural"}, false},
		{"", []string{"behavioural"}, false},
	}
	for _, c := range cases {
		fams, matched := b.resolveFamilies(c.role)
		var got []string
		for _, f := range fams {
			got = append(got, f.ID)
		}
		if !slices.Equal(got, c.want) || matched != c.matched {
			t.Errorf("%q: got %v %v, want %v %v", c.role, got, matched, c.want, c.matched)
		}
	}
}

func TestNormDifficulty(t *testing.T) {
	for in, want := range map[string]string{"Easy": "easy", " hard ": "hard", "senior": "hard", "medium": "medium", "whatever": "medium", "": "medium"} {
		if got := normDifficulty(in); got != want {
			t.Errorf("normDifficulty(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatching(t *testing.T) {
	cases := []struct {
		answer, keyword string
		want            bool
	}{
		{"we cached the result", "cache", true},
		{"caching helps", "cache", true},
		{"the caches", "cache", true},
		{"partitioning by date", "partition", true},
		{"after validation", "validat", true},
		{"we log every request", "log", true},
		{"the login page", "log", false},
		{"node.js services", "node js", true},
		{"an idempotency key per request", "idempotency key", true},
		{"an idempotency token", "idempotency key", false},
		{"key idempotency", "idempotency key", false},
		{"c++ code", "c++", true},
		{"a blameless post-mortem", "postmortem", true},
		{"we optimised the slow queries", "optimiz", true},
		{"their behaviour under load", "behavior", true},
	}
	for _, c := range cases {
		if got := read(c.answer).Has(read(c.keyword)); got != c.want {
			t.Errorf("read(%q).Has(%q) = %v, want %v", c.answer, c.keyword, got, c.want)
		}
	}
}

const goodIdempotency = "Idempotent means repeating the request has the same effect. For example, the client sends an idempotency key " +
	"with each payment; we store the key with the result under a unique constraint in Postgres and return the saved response " +
	"when the same key arrives again. This matters because clients retry after a timeout, and without it a network failure " +
	"leads to a double charge. The trade-off is extra storage and a lookup per request, and keys expire after 24 hours."

// evaluate is the evaluation of answer to bank question id as the service
// stores it (interviewer.Checked).
func evaluate(t *testing.T, id, answer string) interview.Evaluation {
	t.Helper()
	iv := New()
	q := interview.Question{ID: id}
	if bq, ok := iv.bank.byID[id]; ok {
		q.Text = bq.Text
	}
	e, err := iv.Evaluate(context.Background(), interview.Setup{}, q, nil, answer)
	if err != nil {
		t.Fatal(err)
	}
	return interviewer.Checked(e, answer)
}

func TestEvaluateScores(t *testing.T) {
	const id = "backend-medium-02" // idempotent payment endpoint
	cases := []struct {
		name             string
		answer           string
		minScore, maxScr int
		minTech, maxTech int
	}{
		{"empty", "", 0, 0, 0, 0},
		{"whitespace", "  \n\t ", 0, 0, 0, 0},
		{"nonsense", "asdf qwer zxcv lorem ipsum blah blah blah", 0, 15, 0, 0},
		{"dont know", "I don't know, sorry.", 0, 15, 0, 0},
		{"off topic but fluent", "First, I would talk to the team because communication matters. For example, at my last job we used Jira and Kubernetes. " +
			"Then we held weekly meetings, which worked well, but it took time.", 0, 20, 0, 15},
		{"keywords only", "idempotency key retry", 5, 30, 5, 30},
		{"right but terse", "Send an idempotency key; the server stores it with the response and replays that response when a retry repeats the key.", 40, 75, 50, 85},
		{"good", goodIdempotency, 85, 100, 90, 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := evaluate(t, id, c.answer)
			if e.Score < c.minScore || e.Score > c.maxScr || e.TechnicalAccuracy < c.minTech || e.TechnicalAccuracy > c.maxTech {
				t.Errorf("score %d tech %d comm %d, want score %d–%d tech %d–%d (%s)",
					e.Score, e.TechnicalAccuracy, e.Communication, c.minScore, c.maxScr, c.minTech, c.maxTech, e.Feedback)
			}
			for _, s := range []int{e.Score, e.TechnicalAccuracy, e.Communication} {
				if s < 0 || s > 100 {
					t.Errorf("score out of range: %+v", e)
				}
			}
			if e.Feedback == "" || e.Strengths == nil || e.Improvements == nil {
				t.Errorf("empty feedback or nil lists: %+v", e)
			}
		})
	}
}

func TestFeedbackNamesPoints(t *testing.T) {
	e := evaluate(t, "backend-medium-02", "The client sends an idempotency key and the server stores it under a unique constraint.")
	if !strings.Contains(e.Feedback, "Client sends an idempotency key") || !strings.Contains(e.Feedback, "Retries after timeouts are the reason") ||
		!strings.Contains(e.Feedback, "Missed: ") {
		t.Errorf("feedback does not name covered and missed points: %s", e.Feedback)
	}
	if !slices.Contains(e.Strengths, "Covered: Client sends an idempotency key") ||
		!slices.Contains(e.Improvements, "Cover: Retries after timeouts are the reason") {
		t.Errorf("lists: %v / %v", e.Strengths, e.Improvements)
	}
}

// Covering more points must never lower technical accuracy: answers are
// built by adding, one sentence at a time, a keyword of each next point.
func TestCoverageMonotonic(t *testing.T) {
	iv := New()
	for _, f := range iv.bank.families {
		for _, d := range difficulties {
			for _, q := range f.questions[d] {
				answer := "Let me explain how I would approach this in practice."
				prevTech, prevCovered := -1, -1
				for i := 0; i <= len(q.Points); i++ {
					if i > 0 {
						answer += " We should also consider " + q.Points[i-1].Keywords[0] + " here, because it decides how the service behaves under real load."
					}
					a := assess(iv.rd, q.Points, answer)
					if a.Technical < prevTech || len(a.Covered) < prevCovered {
						t.Fatalf("%s: covering point %d lowered technical accuracy %d -> %d", q.ID, i, prevTech, a.Technical)
					}
					if i > 0 && len(a.Covered) < i {
						t.Fatalf("%s: keyword %q of point %q not matched", q.ID, q.Points[i-1].Keywords[0], q.Points[i-1].Label)
					}
					prevTech, prevCovered = a.Technical, len(a.Covered)
				}
				if prevCovered != len(q.Points) {
					t.Fatalf("%s: all points mentioned but %d of %d covered", q.ID, prevCovered, len(q.Points))
				}
			}
		}
	}
}

func TestEvaluateUnknownQuestion(t *testing.T) {
	iv := New()
	bq := iv.bank.byID["frontend-easy-02"]
	// Looked up by text when the id is foreign (for example "q3").
	byText, err := iv.Evaluate(context.Background(), interview.Setup{}, interview.Question{ID: "q3", Text: strings.ToUpper(bq.Text)}, nil,
		"Content, padding, border and margin make the box; box-sizing border-box includes padding in the width.")
	if err != nil || strings.Contains(byText.Feedback, "not in the practice bank") || byText.TechnicalAccuracy == 0 {
		t.Fatalf("lookup by text failed: %+v %v", byText, err)
	}
	foreign, _ := iv.Evaluate(context.Background(), interview.Setup{}, interview.Question{ID: "q9", Text: "How does consistent hashing distribute cache entries?"}, nil,
		"Consistent hashing places nodes on a ring so adding one moves few cache entries; virtual nodes distribute load evenly.")
	if !strings.Contains(foreign.Feedback, "not in the practice bank") || foreign.TechnicalAccuracy < 50 {
		t.Fatalf("foreign question: %+v", foreign)
	}
}

func TestOpen(t *testing.T) {
	iv := New()
	if iv.Mode() != "offline" {
		t.Fatalf("mode %q", iv.Mode())
	}
	s := interview.Setup{CandidateName: "Ada", Role: "Android developer", Experience: "3 years", Difficulty: "easy", TotalQuestions: 5}
	firsts := map[string]bool{}
	for range 40 {
		o, err := iv.Open(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(o.Welcome, "offline practice mode") || !strings.Contains(o.Welcome, "no language model") || !strings.Contains(o.Welcome, "Ada") {
			t.Fatalf("welcome: %s", o.Welcome)
		}
		if !strings.HasPrefix(o.Question.ID, "mobile-easy-") || o.Question.Text != iv.bank.byID[o.Question.ID].Text {
			t.Fatalf("first question %+v not an easy mobile one", o.Question)
		}
		firsts[o.Question.ID] = true
	}
	if len(firsts) < 3 {
		t.Errorf("40 openings gave only %d distinct first questions", len(firsts))
	}
	o, _ := iv.Open(context.Background(), interview.Setup{Role: "Pastry chef", TotalQuestions: 3})
	if !strings.Contains(o.Welcome, "does not match") {
		t.Errorf("unmatched role not explained: %s", o.Welcome)
	}
}

// runInterview plays a whole interview, answering every question with an empty answer.
func runInterview(t *testing.T, iv *Interviewer, s interview.Setup) []string {
	t.Helper()
	ctx := context.Background()
	o, err := iv.Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	done := []interview.Result{{Question: o.Question}}
	for len(done) < s.TotalQuestions {
		q, err := iv.Next(ctx, s, done)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := iv.Next(ctx, s, slices.Clone(done))
		if again != q {
			t.Fatalf("Next not deterministic: %v then %v", q, again)
		}
		done = append(done, interview.Result{Question: q})
	}
	ids := make([]string, len(done))
	for i, r := range done {
		ids[i] = r.Question.ID
	}
	return ids
}

func TestNextNoRepeatsAndDifficultyFirst(t *testing.T) {
	iv := New()
	for _, s := range []interview.Setup{
		{Role: "backend engineer", Difficulty: "medium", TotalQuestions: 20},
		{Role: "full stack developer", Difficulty: "hard", TotalQuestions: 20},
		{Role: "product manager", Difficulty: "easy", TotalQuestions: 20},
		{Role: "unknown role", Difficulty: "", TotalQuestions: 20},
	} {
		ids := runInterview(t, iv, s)
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("%+v: question %s asked twice: %v", s, id, ids)
			}
			seen[id] = true
		}
		d := normDifficulty(s.Difficulty)
		for _, id := range ids[:10] {
			if !strings.Contains(id, "-"+d+"-") {
				t.Errorf("%+v: question %s among the first 10 is not %s", s, id, d)
			}
		}
	}
}

func TestNextOrderVariesWithFirstQuestion(t *testing.T) {
	iv := New()
	s := interview.Setup{Role: "devops", Difficulty: "medium", TotalQuestions: 6}
	a := []interview.Result{{Question: interview.Question{ID: "devops-sre-medium-01"}}}
	b := []interview.Result{{Question: interview.Question{ID: "devops-sre-medium-02"}}}
	ctx := context.Background()
	var seqA, seqB []string
	for range 4 {
		qa, _ := iv.Next(ctx, s, a)
		qb, _ := iv.Next(ctx, s, b)
		a, b = append(a, interview.Result{Question: qa}), append(b, interview.Result{Question: qb})
		seqA, seqB = append(seqA, qa.ID), append(seqB, qb.ID)
	}
	if slices.Equal(seqA, seqB) {
		t.Errorf("different first questions gave the same order %v", seqA)
	}
}

func TestNextExhausted(t *testing.T) {
	iv := New()
	var done []interview.Result
	for _, q := range iv.bank.byID {
		done = append(done, interview.Result{Question: interview.Question{ID: q.ID, Text: q.Text}})
	}
	if _, err := iv.Next(context.Background(), interview.Setup{Role: "qa"}, done); !errors.Is(err, ErrBankExhausted) {
		t.Fatalf("err %v, want ErrBankExhausted", err)
	}
}

func TestSummarize(t *testing.T) {
	iv := New()
	ctx := context.Background()
	good := iv.bank.byID["backend-medium-02"]
	weak := iv.bank.byID["backend-medium-01"] // rate limiter
	// Results as stored: each with its evaluation.
	result := func(q *question, answer string) interview.Result {
		return interview.Result{Question: interview.Question{ID: q.ID, Text: q.Text}, Answer: answer, Evaluation: evaluate(t, q.ID, answer)}
	}
	results := []interview.Result{result(good, goodIdempotency), result(weak, "I would limit requests per user.")}
	sum, err := iv.Summarize(ctx, interview.Setup{}, results)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(sum.Strengths, func(s string) bool { return strings.Contains(s, good.Text) }) {
		t.Errorf("strengths do not name the strong answer: %v", sum.Strengths)
	}
	if !slices.ContainsFunc(sum.Weaknesses, func(s string) bool { return strings.Contains(s, weak.Text) }) {
		t.Errorf("weaknesses do not name the weak answer: %v", sum.Weaknesses)
	}
	// Every suggested topic is a point the weak answer missed.
	a := assess(iv.rd, weak.Points, results[1].Answer)
	if len(sum.SuggestedTopics) == 0 {
		t.Fatal("no suggested topics")
	}
	for _, topic := range sum.SuggestedTopics {
		if !slices.Contains(a.Missed, topic) {
			t.Errorf("topic %q was not missed (missed %v)", topic, a.Missed)
		}
	}
	if slices.Contains(sum.SuggestedTopics, "Client sends an idempotency key") {
		t.Error("a covered point is suggested")
	}
	if !strings.Contains(sum.Feedback, "offline practice mode") {
		t.Errorf("feedback: %s", sum.Feedback)
	}

	// A point missed twice is suggested before one missed once.
	twice := []interview.Result{results[1], results[1], result(good, "Send an idempotency key.")}
	sum, _ = iv.Summarize(ctx, interview.Setup{}, twice)
	if sum.SuggestedTopics[0] != a.Missed[0] {
		t.Errorf("most-missed topic not first: %v", sum.SuggestedTopics)
	}

	// An answer off its question is a weakness, said so, and its habits
	// (a dated story, numbers) are not strengths.
	const hiking = "Last summer I hiked the Tour du Mont Blanc with two friends. I booked the mountain huts four months in advance " +
		"because they fill up quickly, and we walked about twenty kilometres a day. The views from the Col de la Seigne were the best part."
	sum, _ = iv.Summarize(ctx, interview.Setup{}, []interview.Result{result(good, goodIdempotency), result(weak, hiking)})
	if !slices.ContainsFunc(sum.Weaknesses, func(s string) bool { return strings.HasPrefix(s, "Off-topic") && strings.Contains(s, weak.Text) }) ||
		!strings.Contains(sum.Feedback, "One answer did not address its question") {
		t.Errorf("the off-topic answer is not named: %v %s", sum.Weaknesses, sum.Feedback)
	}

	empty, err := iv.Summarize(ctx, interview.Setup{}, nil)
	if err != nil || empty.Feedback == "" || empty.Strengths == nil || empty.SuggestedTopics == nil {
		t.Errorf("empty summary: %+v %v", empty, err)
	}
}

func TestCanceledContext(t *testing.T) {
	iv := New()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := iv.Open(ctx, interview.Setup{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Open: %v", err)
	}
	if _, err := iv.Evaluate(ctx, interview.Setup{}, interview.Question{}, nil, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("Evaluate: %v", err)
	}
	if _, err := iv.Next(ctx, interview.Setup{}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Next: %v", err)
	}
	if _, err := iv.Summarize(ctx, interview.Setup{}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Summarize: %v", err)
	}
}

// The answer is untrusted text: whatever it holds, scores stay integers in
// 0–100 and the overall score lies between its two parts.
func FuzzEvaluate(f *testing.F) {
	for _, s := range []string{"", goodIdempotency, "1. first\n2. then\n- e.g. 10ms", "\xff\xfe", strings.Repeat("cache ", 2000)} {
		f.Add(s)
	}
	iv := New()
	f.Fuzz(func(t *testing.T, answer string) {
		e, err := iv.Evaluate(context.Background(), interview.Setup{}, interview.Question{ID: "backend-easy-04"}, nil, answer)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []int{e.Score, e.TechnicalAccuracy, e.Communication} {
			if s < 0 || s > 100 {
				t.Fatalf("score out of range: %+v", e)
			}
		}
		lo, hi := min(e.TechnicalAccuracy, e.Communication), max(e.TechnicalAccuracy, e.Communication)
		if e.Score < lo || e.Score > hi {
			t.Fatalf("overall %d outside [%d, %d]", e.Score, lo, hi)
		}
		if e.Feedback == "" {
			t.Fatal("empty feedback")
		}
	})
}

// Answers written as a candidate would say them, not from the keyword lists:
// the matching must find every point in natural prose.
func TestNaturalAnswersCoverEveryPoint(t *testing.T) {
	cases := map[string]string{
		"frontend-medium-01":           "JavaScript runs on a single thread with a call stack. When you call setTimeout or fetch, the browser's Web APIs handle it and later push the callback onto the task queue. The event loop takes the next task only when the stack is empty. Promise callbacks go to the microtask queue, which is drained before the next task, so a resolved promise runs before a setTimeout of 0. If a task runs long, for example a heavy loop, it blocks rendering and the page freezes.",
		"devops-sre-medium-04":         "First I would declare the incident and pick an incident commander so roles are clear. The priority is to mitigate: roll back the last deploy or fail over, before hunting the root cause. I post updates on the status page every 30 minutes for stakeholders. Afterwards we write a blameless postmortem with action items and owners.",
		"product-management-medium-01": "I'd start by checking whether the data is right - maybe a tracking change broke an event. Then I'd segment the drop by platform, country and acquisition channel, and look at which funnel step lost users. I'd check what we released last week and any running experiments. Finally I'd consider external causes like a holiday or a competitor campaign.",
		"machine-learning-easy-04":     "Precision is the share of predicted positives that are actually positive, recall is the share of actual positives the model finds. Raising the threshold usually increases precision but lowers recall. F1 is the harmonic mean of the two.",
	}
	for id, answer := range cases {
		e := evaluate(t, id, answer)
		if e.TechnicalAccuracy < 80 || strings.Contains(e.Feedback, "Missed:") {
			t.Errorf("%s: tech %d: %s", id, e.TechnicalAccuracy, e.Feedback)
		}
	}
}
