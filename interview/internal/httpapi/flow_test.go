package httpapi_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/interview"
)

type answered struct {
	Evaluation        interview.Evaluation `json:"evaluation"`
	NextQuestion      *interview.Question  `json:"nextQuestion"`
	IsLastQuestion    bool                 `json:"isLastQuestion"`
	AnsweredQuestions int                  `json:"answeredQuestions"`
}

type sessionBody struct {
	SessionID       string              `json:"sessionId"`
	Status          string              `json:"status"`
	CandidateName   string              `json:"candidateName"`
	Role            string              `json:"role"`
	Experience      string              `json:"experience"`
	Difficulty      string              `json:"difficulty"`
	TotalQuestions  int                 `json:"totalQuestions"`
	CurrentQuestion *interview.Question `json:"currentQuestion"`
	QuestionResults []interview.Result  `json:"questionResults"`
	Report          *interview.Report   `json:"report"`
}

func TestWholeFlow(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	r := must(t, c.do("POST", "/api/auth/register", map[string]string{"fullName": " Ada Lovelace ", "email": "Ada@Example.COM", "password": "analytical engine"}), http.StatusCreated)
	var u struct {
		User struct {
			ID       string `json:"_id"`
			FullName string `json:"fullName"`
			Email    string `json:"email"`
		} `json:"user"`
	}
	r.json(t, &u)
	if u.User.ID == "" || u.User.FullName != "Ada Lovelace" || u.User.Email != "ada@example.com" {
		t.Fatalf("user %+v", u.User)
	}
	setCookie := r.header.Get("Set-Cookie")
	for _, attr := range []string{"session=", "HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=3600"} {
		if !strings.Contains(setCookie, attr) {
			t.Fatalf("Set-Cookie %q lacks %s", setCookie, attr)
		}
	}
	if strings.Contains(setCookie, "Secure") {
		t.Fatal("Secure cookie outside production")
	}
	must(t, c.do("GET", "/api/auth/me", nil), http.StatusOK)
	must(t, c.do("POST", "/api/auth/logout", nil), http.StatusNoContent)
	if code := must(t, c.do("GET", "/api/auth/me", nil), http.StatusUnauthorized).errCode(t); code != "unauthenticated" {
		t.Fatalf("code %s", code)
	}
	must(t, c.do("POST", "/api/auth/login", map[string]string{"email": "ADA@example.com", "password": "analytical engine"}), http.StatusOK)

	s := c.start(3)
	if s.SessionID == "" || s.Question != question(1) || s.Welcome != "Welcome, Ada" || s.Mode != "fake" {
		t.Fatalf("start %+v", s)
	}
	answers := []string{strings.Repeat("a", 80), strings.Repeat("b", 61), strings.Repeat("c", 70)}
	q := s.Question
	for i, text := range answers {
		var a answered
		// The client's question text must not matter: the stored one is evaluated.
		body := map[string]string{"sessionId": s.SessionID, "questionId": q.ID, "answer": text, "question": "IGNORE ME"}
		must(t, c.do("POST", "/api/interview/answer", body), http.StatusOK).json(t, &a)
		if a.Evaluation.Score != len(text) {
			t.Fatalf("answer %d: evaluation %+v", i, a.Evaluation)
		}
		last := i == len(answers)-1
		if a.IsLastQuestion != last || (a.NextQuestion == nil) != last {
			t.Fatalf("answer %d: next %v last %v", i, a.NextQuestion, a.IsLastQuestion)
		}
		if !last {
			q = *a.NextQuestion
		}
	}
	for i, got := range e.iv.evaluated {
		if got != question(i+1) {
			t.Fatalf("evaluated %+v, want stored %+v", got, question(i+1))
		}
	}
	var sess sessionBody
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
	if sess.Status != interview.InProgress || sess.CurrentQuestion != nil || len(sess.QuestionResults) != 3 || sess.Report != nil {
		t.Fatalf("session before finish %+v", sess)
	}

	var rep interview.Report
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusOK).json(t, &rep)
	// (80+61+70)/3 = 70.33 → 70; technical (40+30+35)/3 = 35; communication 90.
	if score(rep.OverallScore) != 70 || score(rep.TechnicalAccuracy) != 35 || score(rep.CommunicationScore) != 90 || len(rep.QuestionResults) != 3 || rep.Feedback != "summary of 3 answers" {
		t.Fatalf("report %+v", rep)
	}
	var again interview.Report
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusOK).json(t, &again)
	if score(again.OverallScore) != score(rep.OverallScore) || again.Feedback != rep.Feedback || len(again.QuestionResults) != 3 || e.iv.summaries.Load() != 1 {
		t.Fatalf("second finish %+v (summaries %d)", again, e.iv.summaries.Load())
	}
	if code := must(t, c.answer(s.SessionID, "q3", "late"), http.StatusConflict).errCode(t); code != "conflict" {
		t.Fatalf("answer after finish: %s", code)
	}
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
	if sess.Status != interview.Completed || sess.Report == nil || score(sess.Report.OverallScore) != 70 {
		t.Fatalf("session after finish %+v", sess)
	}

	// History: newest first, date = completed_at.
	s2 := c.start(1)
	must(t, c.answer(s2.SessionID, s2.Question.ID, "short"), http.StatusOK)
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s2.SessionID}), http.StatusOK)
	c.start(2) // in progress: not in history
	var hist []struct {
		ID           string    `json:"_id"`
		Role         string    `json:"role"`
		OverallScore int       `json:"overallScore"`
		Date         time.Time `json:"date"`
	}
	must(t, c.do("GET", "/api/interview/history", nil), http.StatusOK).json(t, &hist)
	if len(hist) != 2 || hist[0].ID != s2.SessionID || hist[1].ID != s.SessionID || hist[1].OverallScore != 70 || !hist[0].Date.After(hist[1].Date) {
		t.Fatalf("history %+v", hist)
	}
}

func TestConcurrentSubmitsEvaluateOnce(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(3)
	// Hold the evaluation so every request arrives while the claim is live.
	release := make(chan struct{})
	e.iv.onEvaluate = func(int32, interview.Question, string) error { <-release; return nil }
	const n = 20
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { statuses <- c.answer(s.SessionID, s.Question.ID, "the same answer").status })
	}
	// Nineteen 409s arrive while the one evaluation is held.
	conflicts := 0
	for range n - 1 {
		if st := <-statuses; st == http.StatusConflict {
			conflicts++
		} else {
			t.Errorf("status %d while the claim was live", st)
		}
	}
	close(release)
	wg.Wait()
	close(statuses)
	if st := <-statuses; st != http.StatusOK {
		t.Fatalf("the claiming request got %d", st)
	}
	if conflicts != n-1 || e.iv.evals.Load() != 1 {
		t.Fatalf("%d conflicts, %d evaluations; want %d and 1", conflicts, e.iv.evals.Load(), n-1)
	}
	var sess sessionBody
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
	if len(sess.QuestionResults) != 1 {
		t.Fatalf("%d results stored", len(sess.QuestionResults))
	}
}

// holdEvaluation makes evaluation number n block until the returned release
// is called; entered is closed when it starts. With fail, it then errors.
func holdEvaluation(e *env, n int32, fail bool) (entered chan struct{}, release func()) {
	entered, gate := make(chan struct{}), make(chan struct{})
	prev := e.iv.onEvaluate
	e.iv.mu.Lock()
	e.iv.onEvaluate = func(k int32, q interview.Question, a string) error {
		if k != n {
			if prev != nil {
				return prev(k, q, a)
			}
			return nil
		}
		close(entered)
		<-gate
		if fail {
			return errModel
		}
		return nil
	}
	e.iv.mu.Unlock()
	return entered, sync.OnceFunc(func() { close(gate) })
}

func TestAbandonedClaimAfterTwoMinutes(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(2)
	entered, release := holdEvaluation(e, 1, false)
	defer release()
	late := make(chan response, 1)
	go func() { late <- c.answer(s.SessionID, "q1", "slow first attempt") }()
	<-entered

	if r := must(t, c.answer(s.SessionID, "q1", "second attempt"), http.StatusConflict); !strings.Contains(string(r.body), "already being evaluated") {
		t.Fatalf("second attempt: %s", r.body)
	}
	// The database's clock decides: a claim aged to just under the limit
	// is live, just over it is abandoned.
	e.ageClaim(s.SessionID, interview.ClaimTTL-30*time.Second)
	must(t, c.answer(s.SessionID, "q1", "second attempt"), http.StatusConflict)
	if e.iv.evals.Load() != 1 {
		t.Fatalf("%d evaluations while the claim was live", e.iv.evals.Load())
	}
	e.ageClaim(s.SessionID, 31*time.Second)
	var a answered
	must(t, c.answer(s.SessionID, "q1", "third attempt"), http.StatusOK).json(t, &a)
	if a.NextQuestion == nil || a.NextQuestion.ID != "q2" {
		t.Fatalf("next %+v", a.NextQuestion)
	}
	// The abandoned request finishes late and must not append a second result.
	release()
	if r := <-late; r.status != http.StatusConflict {
		t.Fatalf("late completion: %d %s", r.status, r.body)
	}
	var sess sessionBody
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
	if len(sess.QuestionResults) != 1 || sess.QuestionResults[0].Answer != "third attempt" || sess.CurrentQuestion.ID != "q2" {
		t.Fatalf("session %+v", sess)
	}
}

func TestLateFailureCannotClearNewerClaim(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(2)
	enteredA, releaseA := holdEvaluation(e, 1, true)
	defer releaseA()
	lateA := make(chan response, 1)
	go func() { lateA <- c.answer(s.SessionID, "q1", "attempt A") }()
	<-enteredA
	e.ageClaim(s.SessionID, interview.ClaimTTL+time.Second)

	enteredB, releaseB := holdEvaluation(e, 2, false)
	defer releaseB()
	lateB := make(chan response, 1)
	go func() { lateB <- c.answer(s.SessionID, "q1", "attempt B") }()
	<-enteredB

	// A fails now and releases "its" claim: B's claim must survive.
	releaseA()
	if r := <-lateA; r.status != http.StatusBadGateway || r.errCode(t) != "upstream_failed" {
		t.Fatalf("A: %d %s", r.status, r.body)
	}
	must(t, c.answer(s.SessionID, "q1", "attempt C"), http.StatusConflict)
	releaseB()
	if r := <-lateB; r.status != http.StatusOK {
		t.Fatalf("B: %d %s", r.status, r.body)
	}
	if e.iv.evals.Load() != 2 {
		t.Fatalf("%d evaluations, want 2 (A and B)", e.iv.evals.Load())
	}
}

func TestModelFailureReleasesClaim(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(2)
	e.iv.onEvaluate = func(n int32, _ interview.Question, _ string) error {
		if n == 1 {
			return errModel
		}
		return nil
	}
	r := must(t, c.answer(s.SessionID, "q1", "my answer"), http.StatusBadGateway)
	if strings.Contains(string(r.body), errModel.Error()) {
		t.Fatalf("internal error text leaked: %s", r.body)
	}
	// No clock advance needed: the claim was released.
	must(t, c.answer(s.SessionID, "q1", "my answer"), http.StatusOK)
}

func TestKilledMidEvaluationLosesNothing(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(2)
	must(t, c.answer(s.SessionID, "q1", "first"), http.StatusOK)
	var me struct {
		User struct {
			ID string `json:"_id"`
		} `json:"user"`
	}
	must(t, c.do("GET", "/api/auth/me", nil), http.StatusOK).json(t, &me)
	// A process claims q2 and dies before completing: nothing but the claim
	// was written.
	if _, err := e.store.Claim(t.Context(), me.User.ID, s.SessionID, "q2"); err != nil {
		t.Fatal(err)
	}
	must(t, c.answer(s.SessionID, "q2", "retry"), http.StatusConflict)
	e.ageClaim(s.SessionID, interview.ClaimTTL+time.Second)
	var a answered
	must(t, c.answer(s.SessionID, "q2", "retry"), http.StatusOK).json(t, &a)
	if !a.IsLastQuestion {
		t.Fatal("q2 of 2 not last")
	}
	var sess sessionBody
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
	if len(sess.QuestionResults) != 2 || sess.QuestionResults[0].Answer != "first" || sess.QuestionResults[1].Answer != "retry" {
		t.Fatalf("results %+v", sess.QuestionResults)
	}
}

func TestFinishRacingAnswerRebuildsReport(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(3)
	must(t, c.answer(s.SessionID, "q1", strings.Repeat("x", 40)), http.StatusOK)

	// Finish builds from one answer; while its summary is being written a
	// second answer lands; the stored report must count both.
	release, done := c.finishHeld(e, s.SessionID)
	must(t, c.answer(s.SessionID, "q2", strings.Repeat("y", 80)), http.StatusOK)
	release()
	var rep interview.Report
	must(t, <-done, http.StatusOK).json(t, &rep)
	if len(rep.QuestionResults) != 2 || score(rep.OverallScore) != 60 || rep.Feedback != "summary of 2 answers" || e.iv.summaries.Load() != 2 {
		t.Fatalf("report %+v after %d summaries", rep, e.iv.summaries.Load())
	}
	var sess sessionBody
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
	if sess.Report == nil || score(sess.Report.OverallScore) != 60 || len(sess.Report.QuestionResults) != 2 {
		t.Fatalf("stored report %+v", sess.Report)
	}
}

func TestFinishWithoutAnswersIsConflict(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(2)
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusConflict)
}

func TestOtherUsersInterviewIsNotFound(t *testing.T) {
	e := newEnv(t)
	a, b := e.signUp(), e.signUp()
	s := a.start(2)
	missing := "00000000-0000-4000-8000-000000000000"
	for _, id := range []string{s.SessionID, missing, "not-a-uuid"} {
		r1 := must(t, b.do("GET", "/api/interview/"+id, nil), http.StatusNotFound)
		r2 := must(t, b.answer(id, "q1", "stolen"), http.StatusNotFound)
		r3 := must(t, b.do("POST", "/api/interview/finish", map[string]string{"sessionId": id}), http.StatusNotFound)
		for _, r := range []response{r2, r3} {
			if string(r.body) != string(r1.body) {
				t.Fatalf("bodies differ: %s vs %s", r.body, r1.body)
			}
		}
	}
	var hist []any
	must(t, b.do("GET", "/api/interview/history", nil), http.StatusOK).json(t, &hist)
	if len(hist) != 0 || e.iv.evals.Load() != 0 {
		t.Fatalf("B saw %d history items, %d evaluations", len(hist), e.iv.evals.Load())
	}
	// A's interview is untouched.
	must(t, a.answer(s.SessionID, "q1", "mine"), http.StatusOK)
}
