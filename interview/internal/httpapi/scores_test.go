package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/interviewer/offline"
)

// Scores a job seeker can act on, through the API on a real database: an
// answer off its question counts, a follow-up's evaluation is of its own
// answer, and nothing follows an answer that missed its question.

// hiking is about a hiking trip, and no interview question's answer.
const hiking = "Last summer I hiked the Tour du Mont Blanc with two friends. I booked the mountain huts four months in advance " +
	"because they fill up quickly, and we walked about twenty kilometres a day. The views from the Col de la Seigne were the best part."

func newOfflineEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWrapped(t, func(interview.Interviewer) interview.Interviewer { return offline.New() }, screened)
}

// An off-topic answer is an answer: scored at most 35, said to be off its
// question, and counted in the report's averages and the history; the
// report never rises because an answer missed its question.
func TestOffTopicAnswerCounts(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(2)
	strong := strings.Repeat("s", 90) // the stand-in scores an answer by its length
	c.mustAnswer(s.SessionID, "q1", strong)
	off := c.mustAnswer(s.SessionID, "q2", offTopicMarker+" "+strings.Repeat("h", 90))
	ev := off.Evaluation
	if !ev.Scorable || !ev.OffTopic || ev.Score != interviewer.MaxOffTopicScore || ev.TechnicalAccuracy > interviewer.MaxOffTopicScore ||
		ev.Communication > interviewer.MaxOffTopicScore || len(ev.Strengths) != 0 || !strings.HasPrefix(ev.Feedback, interviewer.OffTopicLead) {
		t.Fatalf("off-topic evaluation %+v", ev)
	}
	rep := c.finish(s.SessionID)
	// (90 + 35) / 2 = 62.5, rounded half up.
	if score(rep.OverallScore) != 63 || rep.Scored != 2 || score(rep.OverallScore) >= 90 {
		t.Fatalf("overall %d over %d scored, want 63 over 2", score(rep.OverallScore), rep.Scored)
	}
	var hist []struct {
		OverallScore       *int `json:"overallScore"`
		TechnicalAccuracy  *int `json:"technicalAccuracy"`
		CommunicationScore *int `json:"communicationScore"`
	}
	must(t, c.do("GET", "/api/interview/history", nil), http.StatusOK).json(t, &hist)
	if len(hist) != 1 || score(hist[0].OverallScore) != 63 || score(hist[0].TechnicalAccuracy) != *rep.TechnicalAccuracy ||
		score(hist[0].CommunicationScore) != *rep.CommunicationScore {
		t.Fatalf("history %+v, report %d/%d/%d", hist, score(rep.OverallScore), score(rep.TechnicalAccuracy), score(rep.CommunicationScore))
	}
}

// The offline interviewer finds the hiking trip off every question: it is
// scored and counted, it is not followed up, and it can be tried again.
func TestOfflineOffTopicAnswer(t *testing.T) {
	e := newOfflineEnv(t)
	c := e.signUp()
	s := c.startWith(map[string]any{"totalQuestions": 2, "followUps": 2})
	a := c.mustAnswer(s.SessionID, s.Question.ID, hiking)
	ev := a.Evaluation
	if !ev.Scorable || !ev.OffTopic || ev.Score > interviewer.MaxOffTopicScore || len(ev.Strengths) != 0 || len(ev.Evidence) != 0 ||
		!strings.HasPrefix(ev.Feedback, interviewer.OffTopicLead) {
		t.Fatalf("evaluation of the hiking trip %+v", ev)
	}
	// Nothing of it to probe: the next main question, not a follow-up.
	if a.NextQuestion == nil || a.NextQuestion.Kind != interview.Main {
		t.Fatalf("after an off-topic answer: %+v", a.NextQuestion)
	}
	rep := c.finish(s.SessionID)
	if rep.Scored != 1 || rep.OverallScore == nil || *rep.OverallScore != ev.Score {
		t.Fatalf("report over %d scored, overall %v; want the off-topic answer's %d", rep.Scored, rep.OverallScore, ev.Score)
	}
}

// A follow-up is evaluated as its own answer: every quote is a passage of
// it, and the length it is told about is its own, not the thread's.
func TestFollowUpEvaluationIsOfItsAnswer(t *testing.T) {
	e := newOfflineEnv(t)
	c := e.signUp()
	s := c.startWith(map[string]any{"totalQuestions": 1, "followUps": 1})
	// On the question (it repeats it), with an example and numbers, long,
	// and without the key points: a clear gap, so a follow-up.
	main := strings.Repeat(s.Question.Text+" For example, in my last project we served 2000 requests per second from Go services "+
		"in front of Postgres, and I measured everything with Prometheus first. ", 8)
	a := c.mustAnswer(s.SessionID, s.Question.ID, main)
	f := a.NextQuestion
	if f == nil || f.Kind != interview.FollowUp {
		t.Fatalf("no follow-up after a long answer without the key points: %+v (%s)", f, a.Evaluation.Feedback)
	}
	if !strings.Contains(a.Evaluation.Feedback, "words the answer is long") {
		t.Fatalf("the long main answer was not told it is long: %s", a.Evaluation.Feedback)
	}
	// About sixty words, on the follow-up, no example, no number.
	answer := "About your follow-up: " + f.Text + " I would explain it plainly, step by step, and say why it matters for the people " +
		"who use the service and for the team that runs it, and what changes when the system grows and more clients depend on it every day."
	var got answered
	body := map[string]any{"sessionId": s.SessionID, "questionId": f.ID, "answer": answer, "recordingSeconds": 30}
	must(t, c.do("POST", "/api/interview/answer", body), http.StatusOK).json(t, &got)
	ev := got.Evaluation
	if !ev.Scorable || ev.OffTopic {
		t.Fatalf("the follow-up's answer: %+v", ev)
	}
	for _, q := range ev.Evidence {
		if !strings.Contains(answer, q.Quote) {
			t.Errorf("%q quotes %q, which is not in the follow-up's answer", q.Point, q.Quote)
		}
	}
	if strings.Contains(ev.Feedback, "words the answer is long") {
		t.Errorf("the follow-up's feedback describes another answer: %s", ev.Feedback)
	}
	if ev.Delivery == nil || ev.Delivery.Words != len(strings.Fields(answer)) {
		t.Errorf("delivery %+v, want the follow-up's %d words", ev.Delivery, len(strings.Fields(answer)))
	}
}

// The setup page says, before an interview starts, which families of the
// bank a role's questions come from: the nearest family, or the general
// behavioural questions for a role the bank does not know.
func TestQuestionFamiliesOfARole(t *testing.T) {
	e := newOfflineEnv(t)
	c := e.signUp()
	type families struct {
		Families []string `json:"families"`
		General  bool     `json:"general"`
	}
	var f families
	must(t, c.do("GET", "/api/interview/families?role=Data%20analyst", nil), http.StatusOK).json(t, &f)
	if f.General || len(f.Families) != 2 || f.Families[0] != "data engineering" || f.Families[1] != "data science and machine learning" {
		t.Fatalf("data analyst: %+v", f)
	}
	must(t, c.do("GET", "/api/interview/families?role=Pastry%20chef", nil), http.StatusOK).json(t, &f)
	if !f.General || len(f.Families) != 1 || f.Families[0] != "behavioural and leadership" {
		t.Fatalf("pastry chef: %+v", f)
	}
	for _, bad := range []string{"", "role=", "role=%20%20", "role=" + strings.Repeat("x", 101), "role=a%00b"} {
		if code := must(t, c.do("GET", "/api/interview/families?"+bad, nil), http.StatusBadRequest).errCode(t); code != "invalid_argument" {
			t.Errorf("%q: %s", bad, code)
		}
	}
	// The interview then asks what the page said.
	s := c.startWith(map[string]any{"role": "Pastry chef", "followUps": 0})
	if !strings.HasPrefix(s.Question.ID, "behavioural-") || !strings.Contains(s.Welcome, "general behavioural and leadership") {
		t.Fatalf("a pastry chef's interview opens with %s: %q", s.Question.ID, s.Welcome)
	}
	// A language model writes questions for any role: no family to name.
	var lm families
	must(t, newEnv(t).signUp().do("GET", "/api/interview/families?role=Pastry%20chef", nil), http.StatusOK).json(t, &lm)
	if lm.General || lm.Families == nil || len(lm.Families) != 0 {
		t.Fatalf("with another interviewer: %+v", lm)
	}
}
