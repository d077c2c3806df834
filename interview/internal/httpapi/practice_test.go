package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/httpapi"
	"github.com/judgeworks/interview/internal/interviewer/offline"
	"github.com/judgeworks/interview/internal/interviews"
	"github.com/judgeworks/interview/internal/postgres"
	"github.com/judgeworks/interview/internal/throttle"
)

type retried struct {
	Evaluation    interview.Evaluation `json:"evaluation"`
	PreviousScore int                  `json:"previousScore"`
	NextQuestion  *interview.Question  `json:"nextQuestion"`
}

type practiceSession struct {
	sessionBody
	QuestionNumber    int      `json:"questionNumber"`
	AnsweredQuestions int      `json:"answeredQuestions"`
	FollowUps         int      `json:"followUps"`
	Requirements      []string `json:"requirements"`
	Shared            bool     `json:"shared"`
}

func (c *client) retry(sessionID, questionID, text string) response {
	return c.do("POST", "/api/interview/retry", map[string]string{"sessionId": sessionID, "questionId": questionID, "answer": text})
}

func (c *client) session(id string) practiceSession {
	c.e.t.Helper()
	var s practiceSession
	must(c.e.t, c.do("GET", "/api/interview/"+id, nil), http.StatusOK).json(c.e.t, &s)
	return s
}

func (c *client) finish(id string) interview.Report {
	c.e.t.Helper()
	var rep interview.Report
	must(c.e.t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": id}), http.StatusOK).json(c.e.t, &rep)
	return rep
}

func (c *client) mustAnswer(sessionID, questionID, text string) answered {
	c.e.t.Helper()
	var a answered
	must(c.e.t, c.answer(sessionID, questionID, text), http.StatusOK).json(c.e.t, &a)
	return a
}

func (c *client) userID() string {
	c.e.t.Helper()
	var me struct {
		User struct {
			ID string `json:"_id"`
		} `json:"user"`
	}
	must(c.e.t, c.do("GET", "/api/auth/me", nil), http.StatusOK).json(c.e.t, &me)
	return me.User.ID
}

// A follow-up is the stored current question: the claim rules hold for it
// unchanged, it is evaluated with its parent, and it does not count toward
// totalQuestions.
func TestFollowUpIsTheCurrentQuestion(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.startWith(map[string]any{"totalQuestions": 2}) // followUps absent: the default, one
	if s.Question.Kind != interview.Main || s.Question.ParentID != "" {
		t.Fatalf("first question %+v", s.Question)
	}
	a := c.mustAnswer(s.SessionID, "q1", "We sped it up "+gapMarker)
	f := a.NextQuestion
	if f == nil || a.IsLastQuestion || f.Kind != interview.FollowUp || f.ParentID != "q1" || f.ID != "q1-f1" || f.Text != "Follow-up 1 on q1?" || a.AnsweredQuestions != 1 {
		t.Fatalf("after a gap: next %+v, last %v, answered %d", f, a.IsLastQuestion, a.AnsweredQuestions)
	}
	sess := c.session(s.SessionID)
	if *sess.CurrentQuestion != *f || sess.QuestionNumber != 1 || sess.AnsweredQuestions != 1 || sess.FollowUps != interviews.DefaultFollowUps {
		t.Fatalf("session: current %+v, number %d, answered %d, followUps %d", sess.CurrentQuestion, sess.QuestionNumber, sess.AnsweredQuestions, sess.FollowUps)
	}

	// The stored question rules: neither the answered main question nor the
	// next one can be answered now.
	for _, qid := range []string{"q1", "q2"} {
		if code := must(t, c.answer(s.SessionID, qid, "out of turn"), http.StatusConflict).errCode(t); code != "conflict" {
			t.Fatalf("answering %s during the follow-up: %s", qid, code)
		}
	}
	// A process claims the follow-up and dies: the claim blocks until it
	// is two minutes old, on the database's clock.
	if _, err := e.store.Claim(t.Context(), c.userID(), s.SessionID, f.ID); err != nil {
		t.Fatal(err)
	}
	must(t, c.answer(s.SessionID, f.ID, "too early"), http.StatusConflict)
	e.ageClaim(s.SessionID, interview.ClaimTTL+time.Second)

	// Concurrent submits of the follow-up's answer: one evaluation.
	release := make(chan struct{})
	e.iv.mu.Lock()
	e.iv.onEvaluate = func(int32, interview.Question, string) error { <-release; return nil }
	e.iv.mu.Unlock()
	const n = 8
	statuses := make(chan int, n)
	evalsBefore := e.iv.evals.Load()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { statuses <- c.answer(s.SessionID, f.ID, "It went from 900 ms to 120 ms.").status })
	}
	for range n - 1 {
		if st := <-statuses; st != http.StatusConflict {
			t.Errorf("status %d while the follow-up's claim was live", st)
		}
	}
	close(release)
	wg.Wait()
	if st := <-statuses; st != http.StatusOK || e.iv.evals.Load() != evalsBefore+1 {
		t.Fatalf("claiming request %d, %d evaluations", st, e.iv.evals.Load()-evalsBefore)
	}
	e.iv.mu.Lock()
	e.iv.onEvaluate = nil
	// Evaluated as its own answer to the follow-up, with the main
	// question's result as context.
	gotQ, gotA, gotE := e.iv.evaluated[len(e.iv.evaluated)-1], e.iv.answers[len(e.iv.answers)-1], e.iv.earlier[len(e.iv.earlier)-1]
	e.iv.mu.Unlock()
	if gotQ.ID != f.ID || gotA != "It went from 900 ms to 120 ms." || len(gotE) != 1 || gotE[0].Question.ID != "q1" || gotE[0].Answer != "We sped it up "+gapMarker {
		t.Fatalf("the follow-up was evaluated as %q against %+v, with %+v as context", gotA, gotQ, gotE)
	}

	// The follow-up's answer has no gap: the next main question, number 2.
	sess = c.session(s.SessionID)
	if sess.CurrentQuestion == nil || sess.CurrentQuestion.ID != "q2" || sess.CurrentQuestion.Kind != interview.Main || sess.QuestionNumber != 2 || sess.AnsweredQuestions != 1 {
		t.Fatalf("after the follow-up: %+v number %d, answered %d: the follow-up counted as a question", sess.CurrentQuestion, sess.QuestionNumber, sess.AnsweredQuestions)
	}
	var active []struct {
		QuestionNumber    int  `json:"questionNumber"`
		AnsweredQuestions int  `json:"answeredQuestions"`
		FollowUp          bool `json:"followUp"`
	}
	must(t, c.do("GET", "/api/interview/active", nil), http.StatusOK).json(t, &active)
	if len(active) != 1 || active[0].AnsweredQuestions != 1 || active[0].QuestionNumber != 2 || active[0].FollowUp {
		t.Fatalf("active %+v: the follow-up counted as a question", active)
	}
	// Two main questions were asked for; three answers later the interview
	// is done.
	a = c.mustAnswer(s.SessionID, "q2", "A complete answer.")
	if !a.IsLastQuestion || a.NextQuestion != nil || a.AnsweredQuestions != 2 {
		t.Fatalf("after q2 of 2: %+v", a)
	}
	rep := c.finish(s.SessionID)
	if len(rep.QuestionResults) != 3 || rep.QuestionResults[1].Question.Kind != interview.FollowUp {
		t.Fatalf("report results %+v", rep.QuestionResults)
	}
	var hist []struct {
		TotalQuestions    int `json:"totalQuestions"`
		AnsweredQuestions int `json:"answeredQuestions"`
	}
	must(t, c.do("GET", "/api/interview/history", nil), http.StatusOK).json(t, &hist)
	if len(hist) != 1 || hist[0].TotalQuestions != 2 || hist[0].AnsweredQuestions != 2 {
		t.Fatalf("history %+v", hist)
	}
}

// The report counts each main question once, with the best of its
// evaluations: the follow-up's (of its own answer) against the main
// answer's. The interviewer writes its summary from those, with what was
// said on the question up to the counted answer.
func TestFollowUpCountsForItsMainQuestion(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.startWith(map[string]any{"totalQuestions": 2, "followUps": 1})
	short := "x " + gapMarker // scored by length: 7
	a := c.mustAnswer(s.SessionID, "q1", short)
	// The follow-up is scored on its own answer.
	fu := c.mustAnswer(s.SessionID, a.NextQuestion.ID, strings.Repeat("y", 50))
	if fu.Evaluation.Score != 50 {
		t.Fatalf("follow-up score %d, want its own answer's 50", fu.Evaluation.Score)
	}
	c.mustAnswer(s.SessionID, "q2", strings.Repeat("z", 40))
	rep := c.finish(s.SessionID)
	// (50 + 40) / 2 = 45: the main answer's 7 does not count.
	if score(rep.OverallScore) != 45 {
		t.Fatalf("overall %d, want 45", score(rep.OverallScore))
	}
	counted := []string{rep.QuestionResults[0].Counted, rep.QuestionResults[1].Counted, rep.QuestionResults[2].Counted}
	if strings.Join(counted, ",") != ",answer,answer" {
		t.Fatalf("counted %q: the follow-up should count for q1", counted)
	}
	e.iv.mu.Lock()
	sum := e.iv.summarized
	e.iv.mu.Unlock()
	if len(sum) != 2 || sum[0].Question.ID != "q1" || sum[0].Evaluation.Score != 50 || sum[0].Answer != short+"\n\n"+strings.Repeat("y", 50) {
		t.Fatalf("the summary was written from %+v", sum)
	}
}

func TestFollowUpsSetting(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	// None: a gap does not bring a follow-up, and the interviewer is not asked.
	s := c.startWith(map[string]any{"totalQuestions": 2, "followUps": 0})
	if a := c.mustAnswer(s.SessionID, "q1", "vague "+gapMarker); a.NextQuestion.ID != "q2" || e.iv.followUps.Load() != 0 {
		t.Fatalf("followUps 0: next %+v after %d follow-up checks", a.NextQuestion, e.iv.followUps.Load())
	}
	// Two: two follow-ups on one question, then the next main question
	// however many gaps remain.
	s = c.startWith(map[string]any{"totalQuestions": 2, "followUps": 2})
	q := s.Question
	var ids []string
	for range 3 {
		a := c.mustAnswer(s.SessionID, q.ID, "still vague "+gapMarker)
		q = *a.NextQuestion
		ids = append(ids, q.ID)
	}
	if strings.Join(ids, ",") != "q1-f1,q1-f2,q2" {
		t.Fatalf("questions %v, want two follow-ups of q1 then q2", ids)
	}
	if sess := c.session(s.SessionID); sess.FollowUps != 2 {
		t.Fatalf("followUps stored as %d", sess.FollowUps)
	}
	// The last main question can have its follow-up too.
	a := c.mustAnswer(s.SessionID, "q2", "last "+gapMarker)
	if a.IsLastQuestion || a.NextQuestion == nil || a.NextQuestion.ID != "q2-f1" {
		t.Fatalf("after the last main question: %+v", a)
	}
	if a = c.mustAnswer(s.SessionID, "q2-f1", "complete"); !a.IsLastQuestion {
		t.Fatalf("after the last follow-up: %+v", a)
	}
	for _, bad := range []any{3, -1, "one", 1.5} {
		r := c.do("POST", "/api/interview/start", map[string]any{"candidateName": "Ada", "role": "r", "experience": "e",
			"difficulty": "easy", "totalQuestions": 1, "followUps": bad})
		if r.status != http.StatusBadRequest || r.errCode(t) != "invalid_argument" {
			t.Fatalf("followUps %v: %d %s", bad, r.status, r.body)
		}
	}
}

// A second try at the question just evaluated: kept with the first, once,
// and the better one counted.
func TestSecondTry(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(3)
	first := strings.Repeat("a", 20)
	c.mustAnswer(s.SessionID, "q1", first)
	var r retried
	must(t, c.retry(s.SessionID, "q1", strings.Repeat("b", 70)), http.StatusOK).json(t, &r)
	if r.Evaluation.Score != 70 || r.PreviousScore != 20 {
		t.Fatalf("second try %+v", r)
	}
	if r3 := must(t, c.retry(s.SessionID, "q1", "third"), http.StatusConflict); r3.errCode(t) != "conflict" || !strings.Contains(string(r3.body), "already had a second try") {
		t.Fatalf("third try: %s", r3.body)
	}
	// The question being asked has nothing to try again.
	must(t, c.retry(s.SessionID, "q2", "not answered yet"), http.StatusConflict)
	c.mustAnswer(s.SessionID, "q2", strings.Repeat("c", 90))
	// q1 is no longer the question just evaluated.
	r1 := must(t, c.retry(s.SessionID, "q1", "too late"), http.StatusConflict)
	if !strings.Contains(string(r1.body), "just evaluated") {
		t.Fatalf("older question: %s", r1.body)
	}
	must(t, c.retry(s.SessionID, "q2", "worse"), http.StatusOK).json(t, &r)
	if r.Evaluation.Score != 5 || r.PreviousScore != 90 {
		t.Fatalf("second try at q2 %+v", r)
	}
	for _, bad := range []map[string]string{
		{"sessionId": s.SessionID, "questionId": "q2", "answer": "   "},
		{"sessionId": s.SessionID, "questionId": "", "answer": "x"},
		{"sessionId": s.SessionID, "questionId": "q2", "answer": strings.Repeat("x", interviews.MaxAnswerChars+1)},
	} {
		must(t, c.do("POST", "/api/interview/retry", bad), http.StatusBadRequest)
	}
	evals := e.iv.evals.Load()
	sess := c.session(s.SessionID)
	if len(sess.QuestionResults) != 2 || sess.QuestionResults[0].Answer != first || sess.QuestionResults[0].Retry == nil ||
		sess.QuestionResults[0].Retry.Answer != strings.Repeat("b", 70) || sess.QuestionResults[0].Retry.Evaluation.Score != 70 {
		t.Fatalf("both answers are not kept: %+v", sess.QuestionResults)
	}
	rep := c.finish(s.SessionID)
	// q1 counts its second try (70), q2 its first answer (90).
	if score(rep.OverallScore) != 80 || rep.QuestionResults[0].Counted != interview.CountedRetry || rep.QuestionResults[1].Counted != interview.CountedAnswer {
		t.Fatalf("report %d, counted %q %q", score(rep.OverallScore), rep.QuestionResults[0].Counted, rep.QuestionResults[1].Counted)
	}
	if r := must(t, c.retry(s.SessionID, "q2", "after the end"), http.StatusConflict); !strings.Contains(string(r.body), "already finished") {
		t.Fatalf("after the end: %s", r.body)
	}
	if e.iv.evals.Load() != evals {
		t.Fatal("a refused second try reached the interviewer")
	}
}

func TestSecondTryTakesTheClaim(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(2)
	c.mustAnswer(s.SessionID, "q1", "first")
	entered, release := holdEvaluation(e, 2, false)
	defer release()
	held := make(chan response, 1)
	go func() { held <- c.retry(s.SessionID, "q1", "second") }()
	<-entered
	// While the second try is evaluated: another try, an answer and
	// finishing all wait.
	if r := must(t, c.retry(s.SessionID, "q1", "again"), http.StatusConflict); !strings.Contains(string(r.body), "an answer is being evaluated") {
		t.Fatalf("another try: %s", r.body)
	}
	must(t, c.answer(s.SessionID, "q2", "meanwhile"), http.StatusConflict)
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusConflict)
	release()
	if r := <-held; r.status != http.StatusOK {
		t.Fatalf("held second try: %d %s", r.status, r.body)
	}
	if e.iv.evals.Load() != 2 {
		t.Fatalf("%d evaluations, want 2", e.iv.evals.Load())
	}
	// A failing second try releases the claim and stores nothing.
	s2 := c.start(2)
	c.mustAnswer(s2.SessionID, "q1", "first")
	e.iv.onEvaluate = func(int32, interview.Question, string) error { return errModel }
	must(t, c.retry(s2.SessionID, "q1", "second"), http.StatusBadGateway)
	e.iv.onEvaluate = nil
	must(t, c.retry(s2.SessionID, "q1", "second"), http.StatusOK)
}

// A second try of a follow-up is evaluated as the follow-up's answer, with
// the main question's result as context.
func TestSecondTryOfAFollowUp(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.startWith(map[string]any{"totalQuestions": 1})
	a := c.mustAnswer(s.SessionID, "q1", "main "+gapMarker)
	c.mustAnswer(s.SessionID, a.NextQuestion.ID, "first")
	// The parent cannot be tried again once its follow-up is answered.
	must(t, c.retry(s.SessionID, "q1", "late"), http.StatusConflict)
	must(t, c.retry(s.SessionID, a.NextQuestion.ID, "second"), http.StatusOK)
	e.iv.mu.Lock()
	gotQ, gotA, gotE := e.iv.evaluated[len(e.iv.evaluated)-1], e.iv.answers[len(e.iv.answers)-1], e.iv.earlier[len(e.iv.earlier)-1]
	e.iv.mu.Unlock()
	if gotQ.ID != a.NextQuestion.ID || gotA != "second" || len(gotE) != 1 || gotE[0].Answer != "main "+gapMarker {
		t.Fatalf("second try of the follow-up evaluated as %q against %+v, with %+v as context", gotA, gotQ, gotE)
	}
}

// A second try spends from the answer limits and the daily budget.
func TestSecondTryIsLimited(t *testing.T) {
	limits := interviews.DefaultLimits()
	limits.DailyCalls = 3
	e := newEnvWith(t, nil, nil, limits)
	c := e.signUp()
	s := c.start(2)                          // 1
	c.mustAnswer(s.SessionID, "q1", "first") // 3: evaluation and next question
	r := must(t, c.retry(s.SessionID, "q1", "second"), http.StatusTooManyRequests)
	if r.errCode(t) != "rate_limited" || !strings.Contains(string(r.body), "today") {
		t.Fatalf("refusal %s", r.body)
	}
	retryAfter(t, r, 24*time.Hour)
	if e.iv.evals.Load() != 1 {
		t.Fatal("the refused second try was evaluated")
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE quota_days SET day = day - 1 WHERE name = 'model_calls'`); err != nil {
		t.Fatal(err)
	}
	// The refusal released the claim and took nothing: it goes through now.
	must(t, c.retry(s.SessionID, "q1", "second"), http.StatusOK)
}

// A second try landing while the report is written makes it rebuild: the
// report never leaves out an answer.
func TestSecondTryDuringFinishRebuildsTheReport(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(2)
	c.mustAnswer(s.SessionID, "q1", strings.Repeat("x", 40))
	release, done := c.finishHeld(e, s.SessionID)
	must(t, c.retry(s.SessionID, "q1", strings.Repeat("y", 80)), http.StatusOK)
	release()
	var rep interview.Report
	must(t, <-done, http.StatusOK).json(t, &rep)
	if score(rep.OverallScore) != 80 || e.iv.summaries.Load() != 2 {
		t.Fatalf("report %d after %d summaries, want the second try's 80 after 2", score(rep.OverallScore), e.iv.summaries.Load())
	}
}

const jobDescription = `Backend engineer, platform team.
- PostgreSQL query optimisation
- Kubernetes operations
- Mentoring junior engineers`

func TestJobDescription(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	body := func(jd string) map[string]any {
		return map[string]any{"candidateName": "Ada", "role": "Backend engineer", "experience": "5 years", "difficulty": "medium",
			"totalQuestions": 2, "followUps": 0, "jobDescription": jd}
	}
	r := must(t, c.do("POST", "/api/interview/start", body(strings.Repeat("é", interviews.MaxJobDescription+1))), http.StatusUnprocessableEntity)
	if r.errCode(t) != "unprocessable_entity" || !strings.Contains(string(r.body), "10000") {
		t.Fatalf("over-long description: %s", r.body)
	}
	must(t, c.do("POST", "/api/interview/start", body("a\x00b")), http.StatusBadRequest)
	if e.iv.opens.Load() != 0 || e.iv.requirements.Load() != 0 {
		t.Fatal("a refused description reached the interviewer")
	}
	// Exactly the limit is fine.
	must(t, c.do("POST", "/api/interview/start", body("- Go\n"+strings.Repeat("é", interviews.MaxJobDescription-5))), http.StatusCreated)

	var s started
	must(t, c.do("POST", "/api/interview/start", body(jobDescription)), http.StatusCreated).json(t, &s)
	sess := c.session(s.SessionID)
	want := []string{"PostgreSQL query optimisation", "Kubernetes operations", "Mentoring junior engineers"}
	if strings.Join(sess.Requirements, "|") != strings.Join(want, "|") {
		t.Fatalf("requirements %q", sess.Requirements)
	}
	// Reading the requirements is a model call of its own: 2 for this start.
	var used int
	if err := e.pool.QueryRow(context.Background(), `SELECT used FROM quota_days WHERE name = 'model_calls'`).Scan(&used); err != nil {
		t.Fatal(err)
	}
	if used != 2+2 { // the start at the limit, with its description, was 2 too
		t.Fatalf("%d model calls counted, want 4", used)
	}

	// Coverage: the first answer covers the database requirement, the
	// second try of the second the Kubernetes one; nothing touches mentoring.
	c.mustAnswer(s.SessionID, "q1", "I tuned slow queries in Postgres with indexes and EXPLAIN ANALYZE.")
	c.mustAnswer(s.SessionID, "q2", "It depends.")
	must(t, c.retry(s.SessionID, "q2", "We ran our services on a kubernetes cluster with helm charts and autoscaling."), http.StatusOK)
	rep := c.finish(s.SessionID)
	covered := map[string]string{}
	for _, req := range rep.Requirements {
		covered[req.Text] = strings.Join(req.CoveredBy, ",")
	}
	if len(rep.Requirements) != 3 || covered[want[0]] != "q1" || covered[want[1]] != "q2" || covered[want[2]] != "" {
		t.Fatalf("coverage %+v", rep.Requirements)
	}
	// The stored report says the same.
	if stored := c.session(s.SessionID).Report; stored == nil || len(stored.Requirements) != 3 || strings.Join(stored.Requirements[1].CoveredBy, ",") != "q2" {
		t.Fatalf("stored coverage %+v", stored)
	}
	// Without a description: no requirements, and no call for them.
	calls := e.iv.requirements.Load()
	s2 := c.start(1)
	if sess := c.session(s2.SessionID); len(sess.Requirements) != 0 || sess.Requirements == nil || e.iv.requirements.Load() != calls {
		t.Fatalf("requirements without a description: %q", sess.Requirements)
	}
}

type sharedBody struct {
	interview.Report
	Interview struct {
		CandidateName string    `json:"candidateName"`
		Role          string    `json:"role"`
		CompletedAt   time.Time `json:"completedAt"`
	} `json:"interview"`
}

func TestShareLinks(t *testing.T) {
	e := newEnv(t)
	owner := e.signUp()
	s := owner.startWith(map[string]any{"totalQuestions": 1, "followUps": 0, "jobDescription": jobDescription})
	// Only a finished interview's report can be shared.
	if code := must(t, owner.do("POST", "/api/interview/"+s.SessionID+"/share", nil), http.StatusConflict).errCode(t); code != "conflict" {
		t.Fatal(code)
	}
	owner.mustAnswer(s.SessionID, "q1", "I tuned slow queries in Postgres with indexes.")
	rep := owner.finish(s.SessionID)

	var link struct {
		Token string `json:"token"`
		URL   string `json:"url"`
	}
	must(t, owner.do("POST", "/api/interview/"+s.SessionID+"/share", nil), http.StatusCreated).json(t, &link)
	if len(link.Token) != 43 || strings.ContainsAny(link.Token, "+/=") || link.URL != e.srv.URL+"/shared/"+link.Token {
		t.Fatalf("link %+v", link)
	}
	if !owner.session(s.SessionID).Shared {
		t.Fatal("the session does not say it is shared")
	}
	// Only the token's digest is stored.
	var stored []byte
	if err := e.pool.QueryRow(context.Background(), `SELECT token_hash FROM interview_shares`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if len(stored) != 32 || strings.Contains(string(stored), link.Token) {
		t.Fatalf("stored %x", stored)
	}

	// Anyone with the link, signed in or not, reads the report and nothing
	// that names the account.
	anon := e.client()
	r := must(t, anon.do("GET", "/api/shared/"+link.Token, nil), http.StatusOK)
	var got sharedBody
	r.json(t, &got)
	if score(got.OverallScore) != score(rep.OverallScore) || len(got.QuestionResults) != 1 || got.Interview.Role != "Backend engineer" ||
		got.Interview.CandidateName != "" || got.Interview.CompletedAt.IsZero() || len(got.Requirements) != 3 {
		t.Fatalf("shared report %s", r.body)
	}
	uid := owner.userID()
	// Not even the name typed at the start: the share panel promises the
	// report and nothing else.
	for _, secret := range []string{uid, s.SessionID, "@example.com", "sessionId", `"_id"`, "jobDescription", "Backend engineer, platform team", "candidateName", `"Ada"`} {
		if strings.Contains(string(r.body), secret) {
			t.Fatalf("the shared report holds %q: %s", secret, r.body)
		}
	}
	for h, want := range map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex"} {
		if got := r.header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	if len(r.header.Values("Set-Cookie")) != 0 {
		t.Fatal("reading a shared report set a cookie")
	}
	// Read-only: no other method does anything to it.
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		if st := anon.do(m, "/api/shared/"+link.Token, map[string]string{"overallScore": "100"}).status; st < 400 {
			t.Fatalf("%s on a shared report: %d", m, st)
		}
	}
	must(t, anon.do("GET", "/api/shared/"+link.Token, nil), http.StatusOK)
	// The link reaches nothing else: not the interview, not its owner's data.
	must(t, anon.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusUnauthorized)

	// Unknown and malformed tokens are the same 404.
	missing := strings.Repeat("A", 43)
	for _, tok := range []string{missing, "short", link.Token + "A", strings.Repeat("*", 43)} {
		if code := must(t, anon.do("GET", "/api/shared/"+tok, nil), http.StatusNotFound).errCode(t); code != "not_found" {
			t.Fatalf("token %q: %s", tok, code)
		}
	}

	// Sharing again replaces the link; the old one stops working.
	old := link.Token
	must(t, owner.do("POST", "/api/interview/"+s.SessionID+"/share", nil), http.StatusCreated).json(t, &link)
	if link.Token == old {
		t.Fatal("sharing again gave the same token")
	}
	must(t, anon.do("GET", "/api/shared/"+old, nil), http.StatusNotFound)
	must(t, anon.do("GET", "/api/shared/"+link.Token, nil), http.StatusOK)

	// Another user cannot share, unshare or learn anything of it: the
	// missing-interview 404, and the link keeps working.
	other := e.signUp()
	notFound := must(t, other.do("GET", "/api/interview/00000000-0000-4000-8000-000000000000", nil), http.StatusNotFound).body
	for _, m := range []string{"POST", "DELETE"} {
		r := must(t, other.do(m, "/api/interview/"+s.SessionID+"/share", nil), http.StatusNotFound)
		if string(r.body) != string(notFound) {
			t.Fatalf("%s share of another user's interview: %s", m, r.body)
		}
	}
	must(t, anon.do("GET", "/api/shared/"+link.Token, nil), http.StatusOK)

	// Revoked: the link stops working at once; revoking again is fine.
	must(t, owner.do("DELETE", "/api/interview/"+s.SessionID+"/share", nil), http.StatusNoContent)
	must(t, anon.do("GET", "/api/shared/"+link.Token, nil), http.StatusNotFound)
	must(t, owner.do("DELETE", "/api/interview/"+s.SessionID+"/share", nil), http.StatusNoContent)
	if owner.session(s.SessionID).Shared {
		t.Fatal("the session still says it is shared")
	}

	// Deleting the account takes its links with it.
	must(t, owner.do("POST", "/api/interview/"+s.SessionID+"/share", nil), http.StatusCreated).json(t, &link)
	must(t, owner.do("DELETE", "/api/auth/me", map[string]string{"password": "long enough password"}), http.StatusNoContent)
	must(t, anon.do("GET", "/api/shared/"+link.Token, nil), http.StatusNotFound)
}

// Lookups of links that do not exist are limited per client network; a
// link that exists costs nothing.
func TestSharedLookupsAreLimited(t *testing.T) {
	e := newEnv(t, func(d *httpapi.Deps, _ *postgres.Store, pool *pgxpool.Pool) {
		d.SharedLookups = throttle.NewLookups(postgres.NewBuckets(pool), throttle.Rule{Burst: 3, Every: time.Hour})
	})
	owner := e.signUp()
	s := owner.start(1)
	owner.mustAnswer(s.SessionID, "q1", "done")
	owner.finish(s.SessionID)
	var link struct {
		Token string `json:"token"`
	}
	must(t, owner.do("POST", "/api/interview/"+s.SessionID+"/share", nil), http.StatusCreated).json(t, &link)
	anon := e.client()
	for range 10 {
		must(t, anon.do("GET", "/api/shared/"+link.Token, nil), http.StatusOK)
	}
	missing := strings.Repeat("B", 43)
	for range 3 {
		must(t, anon.do("GET", "/api/shared/"+missing, nil), http.StatusNotFound)
	}
	// Malformed tokens are refused before the limit and the database.
	must(t, anon.do("GET", "/api/shared/not-a-token", nil), http.StatusNotFound)
	r := must(t, anon.do("GET", "/api/shared/"+missing, nil), http.StatusTooManyRequests)
	if r.errCode(t) != "rate_limited" {
		t.Fatalf("refusal %s", r.body)
	}
	retryAfter(t, r, time.Hour)
}

// The offline interviewer draws questions from the description and reads
// its requirements itself, through the API as the binary runs it.
func TestOfflineInterviewFromAJobDescription(t *testing.T) {
	e := newEnvWrapped(t, func(interview.Interviewer) interview.Interviewer { return offline.New() })
	c := e.signUp()
	jd := `We are hiring a Frontend Engineer for our customer dashboard.
- Web applications with React and TypeScript
- Accessibility: keyboard navigation and screen readers
- Browser performance`
	// The role names the backend family; the description is about frontend work.
	s := c.startWith(map[string]any{"role": "Software engineer", "totalQuestions": 4, "followUps": 0, "jobDescription": jd})
	q := s.Question
	var ids []string
	for range 4 {
		ids = append(ids, q.ID)
		a := c.mustAnswer(s.SessionID, q.ID, "Use semantic HTML, labels and visible focus, and test with a keyboard and a screen reader.")
		if a.NextQuestion != nil {
			q = *a.NextQuestion
		}
	}
	frontend := 0
	for _, id := range ids {
		if strings.HasPrefix(id, "frontend-") {
			frontend++
		}
	}
	if frontend < 3 {
		t.Fatalf("questions %v: %d of 4 from the frontend family", ids, frontend)
	}
	sess := c.session(s.SessionID)
	if len(sess.Requirements) != 3 || sess.Requirements[1] != "Accessibility: keyboard navigation and screen readers" {
		t.Fatalf("requirements %q", sess.Requirements)
	}
	rep := c.finish(s.SessionID)
	if len(rep.Requirements) != 3 || len(rep.Requirements[1].CoveredBy) != 4 || len(rep.Requirements[0].CoveredBy) != 0 {
		t.Fatalf("coverage %+v", rep.Requirements)
	}
}

// An answer with nothing to score is followed up like any other, and the
// follow-up's answer is evaluated as itself.
func TestFollowUpOnAnUnscorableAnswer(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.startWith(map[string]any{"totalQuestions": 2, "followUps": 2})
	a := c.mustAnswer(s.SessionID, "q1", "It depends "+gapMarker+" "+unscorableMarker)
	if a.Evaluation.Scorable {
		t.Fatalf("evaluation %+v, want not scorable", a.Evaluation)
	}
	f := a.NextQuestion
	if f == nil || f.Kind != interview.FollowUp || f.ParentID != "q1" {
		t.Fatalf("after an unscorable answer with a gap: next %+v, want a follow-up on q1", f)
	}
	b := c.mustAnswer(s.SessionID, f.ID, "It went from 900 ms to 120 ms.")
	if !b.Evaluation.Scorable {
		t.Fatalf("the follow-up's answer was judged with its unscorable parent: %+v", b.Evaluation)
	}
}
