package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/interview/internal/interviews"
	"github.com/judgeworks/interview/internal/judgetest"
	"github.com/judgeworks/interview/internal/scorer"
)

const judgeKey = "judge-key-for-tests"

// judgedEnv is an environment whose answers are scored by a stand-in judge
// speaking the System One API, through the shared client.
func judgedEnv(t *testing.T, timeout time.Duration) (*env, *judgetest.Server) {
	t.Helper()
	judge := judgetest.New(judgeKey)
	t.Cleanup(judge.Close)
	e := newEnvWith(t, nil, scorer.NewJudge(judge.SystemOneClient(), "local/lexical-latest", timeout), interviews.DefaultLimits())
	return e, judge
}

func TestAnswersScoredByJudge(t *testing.T) {
	e, judge := judgedEnv(t, 0)
	tech := []float64{0, 0, 0, 0.05, 0.1, 0.2, 0.3, 0.25, 0.1, 0}
	comm := []float64{0, 0.1, 0.1, 0.2, 0.3, 0.2, 0.1, 0, 0, 0}
	judge.SetProbabilities(scorer.TechnicalQuestion, tech)
	judge.SetProbabilities(scorer.CommunicationQuestion, comm)
	wantTech, wantComm := judgetest.Expected(tech), judgetest.Expected(comm)
	wantOverall := (7*wantTech + 3*wantComm + 5) / 10

	c := e.signUp()
	s := c.start(2)
	var a answered
	must(t, c.answer(s.SessionID, s.Question.ID, "A B-tree keeps keys sorted, so a range scan walks leaves in order."), http.StatusOK).json(t, &a)
	ev := a.Evaluation
	if ev.TechnicalAccuracy != wantTech || ev.Communication != wantComm || ev.Score != wantOverall {
		t.Fatalf("evaluation %+v, want technical %d communication %d overall %d", ev, wantTech, wantComm, wantOverall)
	}
	if ev.Feedback != "ok" || len(ev.Strengths) != 1 {
		t.Fatalf("the interviewer's prose was lost: %+v", ev)
	}
	// Stored as answered, and the judge read the stored question, not the client's.
	var sess sessionBody
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
	if len(sess.QuestionResults) != 1 || sess.QuestionResults[0].Evaluation.TechnicalAccuracy != wantTech ||
		sess.QuestionResults[0].Evaluation.Communication != wantComm || sess.QuestionResults[0].Evaluation.Score != wantOverall {
		t.Fatalf("stored %+v", sess.QuestionResults)
	}
	reqs := judge.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d judge requests, want 1", len(reqs))
	}
	var st map[string]string
	if err := json.Unmarshal(reqs[0].State, &st); err != nil || st["question"] != question(1).Text || !strings.HasPrefix(st["answer"], "A B-tree") {
		t.Fatalf("judge state %s (%v)", reqs[0].State, err)
	}

	// The report's averages are those of the judged scores.
	must(t, c.answer(s.SessionID, a.NextQuestion.ID, "The second answer explains leaf pages."), http.StatusOK)
	var rep struct {
		TechnicalAccuracy  int `json:"technicalAccuracy"`
		CommunicationScore int `json:"communicationScore"`
		OverallScore       int `json:"overallScore"`
	}
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusOK).json(t, &rep)
	if rep.TechnicalAccuracy != wantTech || rep.CommunicationScore != wantComm || rep.OverallScore != wantOverall {
		t.Fatalf("report %+v", rep)
	}
}

// A judge failure is answered like a model failure: 502, the claim
// released so the user can retry at once, nothing stored from the failed try.
func TestJudgeFailureReleasesClaim(t *testing.T) {
	cases := []struct {
		name    string
		timeout time.Duration
		fail    func(*judgetest.Server)
		heal    func(*judgetest.Server)
	}{
		{"judge answers 500", 0, func(j *judgetest.Server) { j.Fail(http.StatusInternalServerError) }, func(j *judgetest.Server) { j.Fail(0) }},
		{"judge overloaded", 0, func(j *judgetest.Server) { j.Fail(529) }, func(j *judgetest.Server) { j.Fail(0) }},
		// The retry after healing must be scored within the timeout, on a
		// busy machine too.
		{"judge hangs past the timeout", 2 * time.Second, func(j *judgetest.Server) { j.Delay(time.Minute) }, func(j *judgetest.Server) { j.Delay(0) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, judge := judgedEnv(t, tc.timeout)
			judge.SetProbabilities(scorer.TechnicalQuestion, []float64{0, 0, 0, 0, 0, 0, 0, 0, 1, 0})
			judge.SetProbabilities(scorer.CommunicationQuestion, []float64{0, 0, 0, 0, 0, 0, 1, 0, 0, 0})
			c := e.signUp()
			s := c.start(2)
			tc.fail(judge)
			start := time.Now()
			r := must(t, c.answer(s.SessionID, "q1", "My answer uses a sorted index."), http.StatusBadGateway)
			if code := r.errCode(t); code != "upstream_failed" {
				t.Fatalf("code %s", code)
			}
			if strings.Contains(string(r.body), "stand-in") || strings.Contains(string(r.body), judge.URL) {
				t.Fatalf("the judge's error leaked to the client: %s", r.body)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Fatalf("502 after %v", d)
			}
			var sess sessionBody
			must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
			if len(sess.QuestionResults) != 0 || sess.CurrentQuestion == nil || sess.CurrentQuestion.ID != "q1" {
				t.Fatalf("the failed try left something behind: %+v", sess)
			}
			// No clock advance: the claim was released.
			tc.heal(judge)
			var a answered
			must(t, c.answer(s.SessionID, "q1", "My answer uses a sorted index."), http.StatusOK).json(t, &a)
			if a.Evaluation.TechnicalAccuracy != 89 || a.Evaluation.Communication != 67 || a.Evaluation.Score != 82 {
				t.Fatalf("retry evaluation %+v", a.Evaluation)
			}
			must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
			if len(sess.QuestionResults) != 1 || sess.QuestionResults[0].Evaluation.TechnicalAccuracy != 89 {
				t.Fatalf("after retry %+v", sess.QuestionResults)
			}
		})
	}
}
