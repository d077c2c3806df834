package offline

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/shared/wordvec"
)

// jobDescriptions are four advertisements and the family of the bank each
// one is mostly about.
var jobDescriptions = []struct{ family, text string }{
	{"frontend", `We are hiring a Frontend Engineer to build our customer dashboard.
Requirements:
- 3+ years building web applications with React and TypeScript
- Deep knowledge of HTML, CSS and browser performance
- Accessibility: you care about keyboard navigation and screen readers
- Experience with state management and testing UI components`},
	{"data-engineering", `Data Engineer. You will build batch and streaming pipelines that move billions of events into our warehouse.
You have experience with Spark, Airflow and SQL, data modelling for analytics, and data quality checks. You know partitioning, late-arriving data and idempotent loads.`},
	{"devops-sre", `Site Reliability Engineer: own the reliability of our platform. On-call, incident response and postmortems; SLOs and error budgets; monitoring and alerting with Prometheus; containers and orchestration; infrastructure as code; capacity planning.`},
	{"product-management", `Product Manager for our growth team. Define the roadmap, prioritise features with data, run A/B experiments, talk to customers, write clear requirements and work closely with engineering and design.`},
}

// draw runs an interview of n questions through Open and Next, as the
// service does, and returns the questions.
func draw(t *testing.T, iv *Interviewer, s interview.Setup, n int) []*question {
	t.Helper()
	ctx := context.Background()
	op, err := iv.Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var done []interview.Result
	q := op.Question
	for range n {
		done = append(done, interview.Result{Question: q})
		if len(done) == n {
			break
		}
		if q, err = iv.Next(ctx, s, done); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]*question, len(done))
	for i, r := range done {
		out[i] = iv.bank.byID[r.Question.ID]
		if out[i] == nil {
			t.Fatalf("question %q is not in the bank", r.Question.ID)
		}
	}
	return out
}

// nearness is the cosine of the mean word vectors of the description and
// of the question's text and key point labels, stop words left out: not
// the measure the questions were drawn by (the description's key terms'
// best matches among the question's words and keywords), so the test does
// not grade its own homework.
func nearness(jd string, q *question) float64 {
	t := wordvec.Default()
	text := q.Text
	for _, p := range q.Points {
		text += " " + p.Label
	}
	return wordvec.Cosine(t.Embed(content(jd)), t.Embed(content(text)))
}

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or of to in on at for from by with as is are be been do does you your we our
		i it its this that these those what which how why when where would should can could will not no all any each
		about into over than then so but if own us`) {
		stop[w] = true
	}
}

func content(s string) []string {
	var out []string
	for _, w := range wordvec.Words(s) {
		if !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

// Questions drawn for a job description are nearer to it than questions
// drawn at random from the bank, and mostly of the family it is about,
// even when the role names another family.
func TestJobQuestionsAreNearerThanRandomOnes(t *testing.T) {
	iv := New()
	var all []*question
	for _, q := range iv.bank.byID {
		all = append(all, q)
	}
	slices.SortFunc(all, func(a, b *question) int { return strings.Compare(a.ID, b.ID) })
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 5
	margins := 0.0
	for _, jd := range jobDescriptions {
		s := interview.Setup{CandidateName: "Ada", Role: "Software engineer", Experience: "3 years", Difficulty: "medium",
			TotalQuestions: n, JobDescription: jd.text}
		got := draw(t, iv, s, n)
		drawn, family := 0.0, 0
		for _, q := range got {
			drawn += nearness(jd.text, q) / n
			if q.Family == jd.family {
				family++
			}
		}
		// The mean of 200 random draws of n questions.
		random := 0.0
		for range 200 {
			for range n {
				random += nearness(jd.text, all[rng.IntN(len(all))]) / n / 200
			}
		}
		texts := make([]string, len(got))
		for i, q := range got {
			texts[i] = q.ID
		}
		t.Logf("%s: drawn %.3f, random %.3f, %d of %d from the family: %s", jd.family, drawn, random, family, n, strings.Join(texts, ", "))
		// Measured: margins of 0.05 (the reliability advertisement, whose
		// words the vectors mostly lack) to 0.17.
		if drawn < random+0.03 {
			t.Errorf("%s: drawn questions %.3f near the description, random ones %.3f", jd.family, drawn, random)
		}
		margins += (drawn - random) / float64(len(jobDescriptions))
		if family < 4 {
			t.Errorf("%s: %d of %d questions from the family", jd.family, family, n)
		}
	}
	if margins < 0.08 {
		t.Errorf("drawn questions are on average %.3f nearer than random ones, want at least 0.08", margins)
	}
}

func TestJobQuestionsFollowTheDifficulty(t *testing.T) {
	iv := New()
	for _, d := range []string{"easy", "hard"} {
		s := interview.Setup{Role: "Frontend developer", Difficulty: d, TotalQuestions: 5, JobDescription: jobDescriptions[0].text}
		same := 0
		for _, q := range draw(t, iv, s, 5) {
			if q.Difficulty == d {
				same++
			}
		}
		if same < 3 {
			t.Errorf("%s: %d of 5 questions at that difficulty", d, same)
		}
	}
}

func TestWithoutJobDescriptionNothingChanges(t *testing.T) {
	iv := New()
	s := interview.Setup{Role: "Frontend developer", Difficulty: "easy", TotalQuestions: 3}
	for _, q := range draw(t, iv, s, 3) {
		if q.Family != "frontend" || q.Difficulty != "easy" {
			t.Fatalf("question %s for an easy frontend interview", q.ID)
		}
	}
	reqs, err := iv.Requirements(context.Background(), s)
	if err != nil || reqs == nil || len(reqs) != 0 {
		t.Fatalf("requirements without a description: %q, %v", reqs, err)
	}
	s.JobDescription = jobDescriptions[0].text
	reqs, err = iv.Requirements(context.Background(), s)
	if err != nil || !slices.Contains(reqs, "Accessibility: you care about keyboard navigation and screen readers") {
		t.Fatalf("requirements %q, %v", reqs, err)
	}
}

func TestOpeningSaysWhatPracticeDoes(t *testing.T) {
	iv := New()
	op, err := iv.Open(context.Background(), interview.Setup{CandidateName: "Ada", Role: "Frontend developer", Difficulty: "easy",
		TotalQuestions: 3, FollowUps: 1, JobDescription: "- React"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(op.Welcome, "job description") || !strings.Contains(op.Welcome, "follow-up") {
		t.Fatalf("welcome %q", op.Welcome)
	}
	op, _ = iv.Open(context.Background(), interview.Setup{CandidateName: "Ada", Role: "Frontend developer", Difficulty: "easy", TotalQuestions: 3})
	if strings.Contains(op.Welcome, "job description") || strings.Contains(op.Welcome, "follow-up") {
		t.Fatalf("welcome %q", op.Welcome)
	}
}

func followUpOn(t *testing.T, iv *Interviewer, q interview.Question, answers ...string) (string, bool) {
	t.Helper()
	thread := []interview.Result{{Question: q, Answer: answers[0]}}
	for i, a := range answers[1:] {
		// Earlier follow-ups were asked with the texts FollowUp gave.
		prev, ok, err := iv.FollowUp(context.Background(), interview.Setup{}, thread)
		if err != nil || !ok {
			t.Fatalf("follow-up %d: %v %v", i+1, ok, err)
		}
		thread = append(thread, interview.Result{Question: interview.Question{Text: prev.Text, Kind: interview.FollowUp, ParentID: q.ID}, Answer: a})
	}
	f, ok, err := iv.FollowUp(context.Background(), interview.Setup{}, thread)
	if err != nil {
		t.Fatal(err)
	}
	return f.Text, ok
}

func TestFollowUpsOnBehaviouralAnswers(t *testing.T) {
	iv := New()
	q := interview.Question{ID: "q1", Text: "Tell me about a time you improved the performance of a service."}
	cases := []struct {
		name, answer, want string
	}{
		{"no result", "The API was slow, so I profiled it and added a cache in front of the database.", "What was the result?"},
		{"no number", "The API was slow, so I profiled it and added a cache; as a result pages loaded much faster.", "put a number on it"},
		{"we, never I", "The API was slow. We profiled it, we added a cache, and as a result latency fell by 80 percent.", "What did you do yourself"},
	}
	for _, c := range cases {
		got, ok := followUpOn(t, iv, q, c.answer)
		if !ok || !strings.Contains(got, c.want) {
			t.Errorf("%s: follow-up %q (%v), want one containing %q", c.name, got, ok, c.want)
		}
	}
	complete := "Our checkout API took 2 seconds. I profiled it, found an N+1 query and added a cache; as a result p95 latency fell to 300 ms."
	if got, ok := followUpOn(t, iv, q, complete); ok {
		t.Errorf("a complete answer got a follow-up: %q", got)
	}
	// The follow-up's answer fills the gap: the next gap is asked, never
	// the same one twice.
	got, ok := followUpOn(t, iv, q, "I profiled it and added a cache.", "In the end the page got faster and customers stopped complaining.")
	if !ok || !strings.Contains(got, "put a number on it") {
		t.Errorf("second follow-up %q (%v), want the number", got, ok)
	}
	if _, ok := followUpOn(t, iv, q, "   "); ok {
		t.Error("an empty answer got a follow-up")
	}
}

func TestFollowUpsOnTechnicalAnswers(t *testing.T) {
	iv := New()
	bq := iv.bank.byID["backend-easy-01"] // GET and POST
	q := interview.Question{ID: bq.ID, Text: bq.Text}
	got, ok := followUpOn(t, iv, q, "It depends on what you need, both are fine.")
	if !ok || !strings.Contains(got, "did not reach") || !strings.Contains(got, strings.ToLower(bq.Points[0].Label[:1])+bq.Points[0].Label[1:]) && !strings.Contains(got, bq.Points[0].Label) {
		t.Errorf("vague answer: follow-up %q (%v), want the first missed point %q", got, ok, bq.Points[0].Label)
	}
	covered := "GET reads a resource without side effects, its parameters go in the URL query string, and responses can be cached. " +
		"POST creates or changes state and sends its data in the body."
	got, ok = followUpOn(t, iv, q, covered)
	if !ok || !strings.Contains(got, "trade-offs") {
		t.Errorf("no trade-off: follow-up %q (%v)", got, ok)
	}
	if got, ok := followUpOn(t, iv, q, covered+" However, a GET is idempotent and bookmarkable while a POST is not."); ok {
		t.Errorf("a complete answer got a follow-up: %q", got)
	}
}

func TestPronouns(t *testing.T) {
	for _, c := range []struct {
		s     string
		we, i int
	}{
		{"We shipped it; our team and us.", 3, 0},
		{"I'm sure my fix and I, myself", 0, 4},
		{"We've done it, then I did mine", 1, 2},
	} {
		if we, i := pronouns(c.s); we != c.we || i != c.i {
			t.Errorf("pronouns(%q) = %d, %d; want %d, %d", c.s, we, i, c.we, c.i)
		}
	}
}

// BenchmarkJobOrder is the offline cost a job description adds to every
// question asked: ranking the whole bank against it.
func BenchmarkJobOrder(b *testing.B) {
	iv := New()
	s := interview.Setup{Role: "Software engineer", Difficulty: "medium", JobDescription: jobDescriptions[0].text}
	iv.jobOrder(s) // prepares the bank's texts once
	for b.Loop() {
		iv.jobOrder(s)
	}
}
