package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/judgeworks/interview"
)

// A typed answer sent with the length of a dictation that heard nothing
// (one second for a paragraph) was not spoken: no delivery figures.
func TestImplausibleRecordingHasNoDelivery(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(1)
	typed := strings.Repeat("A token bucket per key refills at a fixed rate and the counters live in Redis. ", 12)
	body := map[string]any{"sessionId": s.SessionID, "questionId": s.Question.ID, "answer": typed, "recordingSeconds": 1}
	var a answered
	must(t, c.do("POST", "/api/interview/answer", body), http.StatusOK).json(t, &a)
	if a.Evaluation.Delivery != nil {
		t.Fatalf("a %d-word answer 'spoken' in 1 s has delivery %+v", len(strings.Fields(typed)), a.Evaluation.Delivery)
	}
	var got sessionBody
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &got)
	if d := got.QuestionResults[0].Evaluation.Delivery; d != nil {
		t.Fatalf("stored delivery %+v", d)
	}
}

// Answers that were not scored are left out of the averages; an interview
// with none scored has no overall score, in its report and in the history.
func TestUnscoredAnswersAreLeftOut(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(3)
	a60 := strings.Repeat("x", 60)
	a80 := strings.Repeat("y", 80)
	var a answered
	must(t, c.answer(s.SessionID, s.Question.ID, a60), http.StatusOK).json(t, &a)
	must(t, c.answer(s.SessionID, a.NextQuestion.ID, unscorableMarker+" gibberish"), http.StatusOK).json(t, &a)
	if a.Evaluation.Scorable {
		t.Fatalf("marked answer scored: %+v", a.Evaluation)
	}
	must(t, c.answer(s.SessionID, a.NextQuestion.ID, a80), http.StatusOK).json(t, &a)
	var rep interview.Report
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusOK).json(t, &rep)
	// (60 + 80) / 2; the 0 of the unscored answer is not a score.
	if score(rep.OverallScore) != 70 || score(rep.TechnicalAccuracy) != 35 || score(rep.CommunicationScore) != 90 || rep.Scored != 2 || rep.Questions != 3 {
		t.Fatalf("report %v/%v/%v over %d of %d", score(rep.OverallScore), score(rep.TechnicalAccuracy), score(rep.CommunicationScore), rep.Scored, rep.Questions)
	}

	s2 := c.start(1)
	must(t, c.answer(s2.SessionID, s2.Question.ID, unscorableMarker+" asdf qwer"), http.StatusOK)
	raw := must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s2.SessionID}), http.StatusOK).body
	if !strings.Contains(string(raw), `"overallScore":null`) || !strings.Contains(string(raw), `"scoredQuestions":0`) {
		t.Fatalf("report with nothing scored: %s", raw)
	}
	var sess sessionBody
	must(t, c.do("GET", "/api/interview/"+s2.SessionID, nil), http.StatusOK).json(t, &sess)
	if sess.Report == nil || sess.Report.OverallScore != nil {
		t.Fatalf("stored report %+v", sess.Report)
	}
	var hist []struct {
		ID           string `json:"_id"`
		OverallScore *int   `json:"overallScore"`
	}
	must(t, c.do("GET", "/api/interview/history", nil), http.StatusOK).json(t, &hist)
	if len(hist) != 2 || hist[0].ID != s2.SessionID || hist[0].OverallScore != nil || score(hist[1].OverallScore) != 70 {
		t.Fatalf("history %+v", hist)
	}
}

// Requirements of the job description that no answer touched are
// weaknesses and suggested topics of the report.
func TestUntouchedRequirementsAreWeaknesses(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.startWith(map[string]any{"totalQuestions": 1, "followUps": 0,
		"jobDescription": "Backend engineer.\n- Design REST APIs in Go\n- Kubernetes operations\n- PostgreSQL query optimisation"})
	must(t, c.answer(s.SessionID, s.Question.ID, "I designed REST APIs in Go for a payments service, with versioned endpoints."), http.StatusOK)
	var rep interview.Report
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusOK).json(t, &rep)
	joined := strings.Join(rep.Weaknesses, " | ")
	if !strings.Contains(joined, "2 of the job description's 3 requirements") || !strings.Contains(joined, "Kubernetes operations") {
		t.Fatalf("weaknesses %q (requirements %+v)", rep.Weaknesses, rep.Requirements)
	}
	if len(rep.SuggestedTopics) < 2 || rep.SuggestedTopics[0] != "Kubernetes operations" || rep.SuggestedTopics[1] != "PostgreSQL query optimisation" {
		t.Fatalf("suggested topics %q", rep.SuggestedTopics)
	}
}

// A follow-up asked on a first try is asked again of the better second
// try: dropped when the second try closed the gap, kept when it did not.
func TestSecondTryReconsidersTheFollowUp(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.startWith(map[string]any{"totalQuestions": 2, "followUps": 1})
	var a answered
	must(t, c.answer(s.SessionID, s.Question.ID, "short "+gapMarker), http.StatusOK).json(t, &a)
	if a.NextQuestion == nil || a.NextQuestion.Kind != interview.FollowUp {
		t.Fatalf("no follow-up on the gap: %+v", a.NextQuestion)
	}
	// The second try says everything: the follow-up gives way to question 2.
	var r retried
	must(t, c.do("POST", "/api/interview/retry", map[string]string{"sessionId": s.SessionID, "questionId": s.Question.ID,
		"answer": "A much longer and complete second try that covers what the first one left out."}), http.StatusOK).json(t, &r)
	if r.NextQuestion == nil || r.NextQuestion.Kind != interview.Main || r.NextQuestion.ID != "q2" {
		t.Fatalf("after the second try: %+v", r.NextQuestion)
	}
	var sess sessionBody
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
	if sess.CurrentQuestion == nil || sess.CurrentQuestion.ID != "q2" {
		t.Fatalf("current question %+v", sess.CurrentQuestion)
	}
	must(t, c.answer(s.SessionID, "q2", "short "+gapMarker), http.StatusOK).json(t, &a)
	if a.NextQuestion == nil || a.NextQuestion.ID != "q2-f1" {
		t.Fatalf("follow-up on q2: %+v", a.NextQuestion)
	}
	// A second try that leaves the gap open keeps the follow-up.
	must(t, c.do("POST", "/api/interview/retry", map[string]string{"sessionId": s.SessionID, "questionId": "q2",
		"answer": "A longer second try that still leaves the gap " + gapMarker}), http.StatusOK).json(t, &r)
	if r.NextQuestion == nil || r.NextQuestion.ID != "q2-f1" || r.NextQuestion.Kind != interview.FollowUp {
		t.Fatalf("the gap is still open: %+v", r.NextQuestion)
	}
	must(t, c.answer(s.SessionID, "q2-f1", "the follow-up answered"), http.StatusOK).json(t, &a)
	if a.NextQuestion != nil || !a.IsLastQuestion {
		t.Fatalf("after the follow-up: %+v", a)
	}
}

// At the cap on interviews in progress the refusal says to discard one;
// after discarding, the next start works at once.
func TestStartAfterDiscardAtTheCap(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	var first started
	for i := range 3 {
		s := c.start(1)
		if i == 0 {
			first = s
		}
	}
	r := must(t, c.do("POST", "/api/interview/start", map[string]any{"candidateName": "Ada", "role": "Backend engineer",
		"experience": "5 years", "difficulty": "medium", "totalQuestions": 1}), http.StatusTooManyRequests)
	if !strings.Contains(string(r.body), "discard one") {
		t.Fatalf("refusal %s", r.body)
	}
	must(t, c.do("DELETE", "/api/interview/"+first.SessionID, nil), http.StatusNoContent)
	c.start(1)
}

// The most common passwords are refused, with a sentence that says why,
// at registration and when changing a password.
func TestCommonPasswordsAreRefused(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	for _, pw := range []string{"password", "Password1", "12345678", "qwertyuiop"} {
		r := must(t, c.do("POST", "/api/auth/register", map[string]string{"fullName": "Ada", "email": "ada.common@example.com", "password": pw}), http.StatusBadRequest)
		if !strings.Contains(string(r.body), "most common") {
			t.Fatalf("%q: %s", pw, r.body)
		}
	}
	u := e.signUp()
	r := must(t, u.do("POST", "/api/auth/password", map[string]string{"currentPassword": "long enough password", "newPassword": "iloveyou"}), http.StatusBadRequest)
	if !strings.Contains(string(r.body), "most common") {
		t.Fatalf("change to a common password: %s", r.body)
	}
	short := must(t, c.do("POST", "/api/auth/register", map[string]string{"fullName": "Ada", "email": "ada.short@example.com", "password": "short"}), http.StatusBadRequest)
	if !strings.Contains(string(short.body), "Choose a password of at least 8 characters") {
		t.Fatalf("short: %s", short.body)
	}
}
