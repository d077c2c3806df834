package httpapi_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviews"
)

// retryAfter reads a refusal's Retry-After, failing unless it is a whole
// number of seconds from 1 to most.
func retryAfter(t *testing.T, r response, most time.Duration) time.Duration {
	t.Helper()
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || secs < 1 || time.Duration(secs)*time.Second > most {
		t.Fatalf("Retry-After %q, want 1 s to %v", r.header.Get("Retry-After"), most)
	}
	return time.Duration(secs) * time.Second
}

// answerUntilRefused answers an interview's questions one after another
// until a refusal, at most n times; it returns the accepted count and the
// refusal.
func (c *client) answerUntilRefused(s started, n int) (int, response) {
	c.e.t.Helper()
	q := s.Question
	for i := range n {
		r := c.answer(s.SessionID, q.ID, strings.Repeat("a", 40))
		if r.status != http.StatusOK {
			return i, r
		}
		var a answered
		r.json(c.e.t, &a)
		if a.NextQuestion == nil {
			c.e.t.Fatalf("ran out of questions after %d answers", i+1)
		}
		q = *a.NextQuestion
	}
	c.e.t.Fatalf("no refusal in %d answers", n)
	return n, response{}
}

// One user's flood of answers is refused with 429 once their bucket is
// empty; another user's answer is still scored.
func TestAnswerFloodIsLimitedPerUser(t *testing.T) {
	e := newEnv(t)
	flooder, other := e.signUp(), e.signUp()
	s := flooder.start(interviews.MaxQuestions)
	began := time.Now()
	accepted, refused := flooder.answerUntilRefused(s, interviews.MaxQuestions-1)
	// The burst, plus what refilled meanwhile.
	most := interviews.DefaultAnswer.Burst + 1 + int(time.Since(began)*time.Duration(interviews.DefaultAnswer.PerHour)/time.Hour)
	if accepted < interviews.DefaultAnswer.Burst || accepted > most {
		t.Fatalf("%d answers accepted before the refusal, want %d to %d", accepted, interviews.DefaultAnswer.Burst, most)
	}
	must(t, refused, http.StatusTooManyRequests)
	if refused.errCode(t) != "rate_limited" || !strings.Contains(string(refused.body), "answers") {
		t.Fatalf("refusal %s", refused.body)
	}
	retryAfter(t, refused, time.Minute)
	if got := e.iv.evals.Load(); got != int32(accepted) {
		t.Fatalf("%d evaluations for %d accepted answers: the refused one reached the model", got, accepted)
	}
	// The refusal released the claim: nothing is held, nothing stored.
	var sess sessionBody
	must(t, flooder.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
	if len(sess.QuestionResults) != accepted {
		t.Fatalf("%d results stored, want %d", len(sess.QuestionResults), accepted)
	}

	o := other.start(2)
	var a answered
	must(t, other.answer(o.SessionID, o.Question.ID, strings.Repeat("b", 77)), http.StatusOK).json(t, &a)
	if a.Evaluation.Score != 77 {
		t.Fatalf("the other user's evaluation %+v", a.Evaluation)
	}
}

// ageAnswerBucket makes the user's answer bucket older by d, as the
// database's clock would after d.
func (e *env) ageAnswerBucket(userID string, d time.Duration) {
	e.t.Helper()
	if _, err := e.pool.Exec(context.Background(),
		`UPDATE quota_buckets SET updated_at = updated_at - make_interval(secs => $2) WHERE user_id = $1 AND name = 'model_answer'`,
		userID, d.Seconds()); err != nil {
		e.t.Fatal(err)
	}
}

// A person answering every 10 seconds, for as long as they practise
// (here three interviews of 20 questions, an hour of it at the pace of
// a person who reads a question and answers at once), is never refused;
// a script sending answers back to back is, once the burst is spent.
func TestAnsweringEveryTenSecondsIsNeverRefused(t *testing.T) {
	e := newEnv(t)
	person := e.signUp()
	for n := range 3 {
		s := person.startWith(map[string]any{"totalQuestions": interviews.MaxQuestions, "followUps": 0})
		q := s.Question
		for i := range interviews.MaxQuestions {
			e.ageAnswerBucket(person.userID(), 10*time.Second)
			r := person.answer(s.SessionID, q.ID, strings.Repeat("a", 40))
			if r.status != http.StatusOK {
				t.Fatalf("interview %d, answer %d, 10 s after the last: %d %s", n+1, i+1, r.status, r.body)
			}
			var a answered
			r.json(t, &a)
			if a.NextQuestion != nil {
				q = *a.NextQuestion
			}
		}
	}

	script := e.signUp()
	s := script.start(interviews.MaxQuestions)
	began := time.Now()
	accepted, refused := script.answerUntilRefused(s, interviews.MaxQuestions-1)
	most := interviews.DefaultAnswer.Burst + 1 + int(time.Since(began)*time.Duration(interviews.DefaultAnswer.PerHour)/time.Hour)
	if accepted > most {
		t.Fatalf("a script's back-to-back answers: %d accepted, want at most %d", accepted, most)
	}
	must(t, refused, http.StatusTooManyRequests)
	retryAfter(t, refused, 10*time.Second)
}

// At most MaxInProgress interviews in progress; the list shows them for
// resuming or discarding, and discarding frees the slot.
func TestInProgressCapAndDiscard(t *testing.T) {
	limits := interviews.DefaultLimits()
	limits.Start = interview.Rate{Burst: 20, PerHour: 20} // the cap, not the bucket, is under test
	e := newEnvWith(t, nil, nil, limits)
	c, other := e.signUp(), e.signUp()
	var ids []string
	for range limits.MaxInProgress {
		ids = append(ids, c.start(3).SessionID)
	}
	r := must(t, c.do("POST", "/api/interview/start", map[string]any{
		"candidateName": "Ada", "role": "Backend engineer", "experience": "5 years", "difficulty": "medium", "totalQuestions": 3,
	}), http.StatusTooManyRequests)
	if r.errCode(t) != "rate_limited" || !strings.Contains(string(r.body), "in progress") {
		t.Fatalf("refusal %s", r.body)
	}
	retryAfter(t, r, interview.CapRetryAfter)
	if n := e.iv.opens.Load(); n != int32(limits.MaxInProgress) {
		t.Fatalf("%d openings asked of the model, want %d: the refused start reached it", n, limits.MaxInProgress)
	}
	must(t, c.answer(ids[0], "q1", "first answer"), http.StatusOK)

	type activeItem struct {
		ID                string    `json:"_id"`
		Role              string    `json:"role"`
		Experience        string    `json:"experience"`
		Difficulty        string    `json:"difficulty"`
		TotalQuestions    int       `json:"totalQuestions"`
		QuestionNumber    int       `json:"questionNumber"`
		AnsweredQuestions int       `json:"answeredQuestions"`
		CreatedAt         time.Time `json:"createdAt"`
	}
	var active []activeItem
	must(t, c.do("GET", "/api/interview/active", nil), http.StatusOK).json(t, &active)
	if len(active) != 3 || active[0].ID != ids[2] || active[2].ID != ids[0] {
		t.Fatalf("active %+v, want %v newest first", active, ids)
	}
	first := active[2]
	if first.QuestionNumber != 2 || first.AnsweredQuestions != 1 || first.TotalQuestions != 3 || first.Role != "Backend engineer" ||
		first.Difficulty != "medium" || first.CreatedAt.IsZero() || active[0].QuestionNumber != 1 {
		t.Fatalf("active items %+v", active)
	}
	var none []activeItem
	must(t, other.do("GET", "/api/interview/active", nil), http.StatusOK).json(t, &none)
	if len(none) != 0 {
		t.Fatalf("another user sees %d interviews in progress", len(none))
	}

	// Another user cannot discard it: the same 404 as a missing one.
	missing := must(t, other.do("DELETE", "/api/interview/"+ids[1], nil), http.StatusNotFound)
	must(t, other.do("DELETE", "/api/interview/00000000-0000-4000-8000-000000000000", nil), http.StatusNotFound)
	if again := must(t, other.do("DELETE", "/api/interview/not-a-uuid", nil), http.StatusNotFound); string(again.body) != string(missing.body) {
		t.Fatalf("bodies differ: %s vs %s", again.body, missing.body)
	}
	must(t, c.do("DELETE", "/api/interview/"+ids[1], nil), http.StatusNoContent)
	must(t, c.do("GET", "/api/interview/"+ids[1], nil), http.StatusNotFound)
	must(t, c.do("DELETE", "/api/interview/"+ids[1], nil), http.StatusNotFound)
	must(t, c.do("GET", "/api/interview/active", nil), http.StatusOK).json(t, &active)
	if len(active) != 2 {
		t.Fatalf("%d in progress after discarding one", len(active))
	}
	c.start(1) // the slot is free

	// A completed interview is history, not a slot: 409, and it stays.
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": ids[0]}), http.StatusOK)
	r = must(t, c.do("DELETE", "/api/interview/"+ids[0], nil), http.StatusConflict)
	if r.errCode(t) != "conflict" {
		t.Fatalf("discarding a completed interview: %s", r.body)
	}
	must(t, c.do("GET", "/api/interview/"+ids[0], nil), http.StatusOK)
}

// The daily budget counts interviewer calls (start 1, answer 2, the last
// answer 1, report 1); a refusal takes nothing from the operation's bucket.
func TestDailyModelCallBudget(t *testing.T) {
	limits := interviews.DefaultLimits()
	limits.DailyCalls = 4
	e := newEnvWith(t, nil, nil, limits)
	c := e.signUp()
	s := c.start(2)                                                     // 1
	must(t, c.answer(s.SessionID, "q1", "first answer"), http.StatusOK) // 3
	must(t, c.answer(s.SessionID, "q2", "last answer"), http.StatusOK)  // 4
	r := must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusTooManyRequests)
	if r.errCode(t) != "rate_limited" || !strings.Contains(string(r.body), "today") {
		t.Fatalf("refusal %s", r.body)
	}
	retryAfter(t, r, 24*time.Hour)
	if n := e.iv.summaries.Load(); n != 0 {
		t.Fatalf("%d summaries asked for beyond the budget", n)
	}
	var finishTokens int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM quota_buckets WHERE name = 'model_finish'`).Scan(&finishTokens); err != nil {
		t.Fatal(err)
	}
	if finishTokens != 0 {
		t.Fatal("the refused report took a token from the finish bucket")
	}
	// Another day (the database's): the budget is whole again.
	if _, err := e.pool.Exec(context.Background(), `UPDATE quota_days SET day = day - 1 WHERE name = 'model_calls'`); err != nil {
		t.Fatal(err)
	}
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusOK)
}

// A client that goes away while its answer is evaluated loses nothing: the
// evaluation finishes, is stored, and the reload shows it.
func TestDisconnectMidEvaluationKeepsTheEvaluation(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(2)
	entered, release := holdEvaluation(e, 1, false)
	defer release()
	seen := make(chan context.Context, 1)
	hook := func(r *http.Request) {
		if r.URL.Path == "/api/interview/answer" {
			seen <- r.Context()
		}
	}
	e.onRequest.Store(&hook)

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "POST", e.srv.URL+"/api/interview/answer",
		strings.NewReader(`{"sessionId":"`+s.SessionID+`","questionId":"q1","answer":"`+strings.Repeat("z", 64)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	gone := make(chan error, 1)
	go func() {
		resp, err := c.http.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		gone <- err
	}()
	serverCtx := <-seen
	e.onRequest.Store(nil)
	<-entered
	cancel()
	if err := <-gone; err == nil {
		t.Fatal("the cancelled request got a response")
	}
	// Wait until the server has seen the client go, then let the model answer.
	select {
	case <-serverCtx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the server never noticed the client leaving")
	}
	release()

	var sess sessionBody
	deadline := time.Now().Add(30 * time.Second)
	for {
		must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
		if len(sess.QuestionResults) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(sess.QuestionResults) != 1 || sess.QuestionResults[0].Evaluation.Score != 64 || sess.CurrentQuestion == nil || sess.CurrentQuestion.ID != "q2" {
		t.Fatalf("after the disconnect: %+v", sess)
	}
	// Resending the answer is not evaluated (or paid) a second time.
	must(t, c.answer(s.SessionID, "q1", strings.Repeat("z", 64)), http.StatusConflict)
	if n := e.iv.evals.Load(); n != 1 {
		t.Fatalf("%d evaluations, want 1", n)
	}
}

// Finishing while an answer holds a live claim is 409: the report would
// leave that answer out. Once the answer is stored, finishing works.
func TestFinishDuringLiveClaimIsConflict(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(3)
	must(t, c.answer(s.SessionID, "q1", strings.Repeat("x", 50)), http.StatusOK)
	entered, release := holdEvaluation(e, 2, false)
	defer release()
	late := make(chan response, 1)
	go func() { late <- c.answer(s.SessionID, "q2", strings.Repeat("y", 70)) }()
	<-entered

	r := must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusConflict)
	if r.errCode(t) != "conflict" || !strings.Contains(string(r.body), "being evaluated") {
		t.Fatalf("finish during a live claim: %s", r.body)
	}
	if n := e.iv.summaries.Load(); n != 0 {
		t.Fatalf("%d summaries written while an answer was evaluated", n)
	}
	release()
	must(t, <-late, http.StatusOK)
	var rep struct {
		OverallScore    int   `json:"overallScore"`
		QuestionResults []any `json:"questionResults"`
	}
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusOK).json(t, &rep)
	if len(rep.QuestionResults) != 2 || rep.OverallScore != 60 {
		t.Fatalf("report %+v, want both answers (mean of 50 and 70)", rep)
	}

	// An abandoned claim (older than ClaimTTL) does not block finishing.
	s2 := c.start(3)
	must(t, c.answer(s2.SessionID, "q1", "one"), http.StatusOK)
	me := c.me()
	if _, err := e.store.Claim(context.Background(), me.User.ID, s2.SessionID, "q2"); err != nil {
		t.Fatal(err)
	}
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s2.SessionID}), http.StatusConflict)
	e.ageClaim(s2.SessionID, interview.ClaimTTL+time.Second)
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s2.SessionID}), http.StatusOK)
}

func TestHistoryPages(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	uid := c.me().User.ID
	// 25 completed interviews, an hour apart, plus one in progress and
	// another user's, which never show.
	const total = 25
	if _, err := e.pool.Exec(context.Background(), `
		INSERT INTO interviews (user_id, candidate_name, role, experience, difficulty, total_questions,
			status, completed_at, overall_score, technical_accuracy, communication_score)
		SELECT $1, 'Ada', 'role ' || i, 'e', 'easy', 1, 'completed', now() - i * interval '1 hour', i, i, i
		FROM generate_series(1, $2::int) AS i`, uid, total); err != nil {
		t.Fatal(err)
	}
	c.start(1)
	e.signUp().start(1)

	type item struct {
		ID   string    `json:"_id"`
		Role string    `json:"role"`
		Date time.Time `json:"date"`
	}
	page := func(query string) []item {
		t.Helper()
		var out []item
		must(t, c.do("GET", "/api/interview/history"+query, nil), http.StatusOK).json(t, &out)
		return out
	}
	walk := func(limit string, want []int) {
		t.Helper()
		var roles []string
		before := ""
		for i, n := range want {
			q := "?limit=" + limit
			if limit == "" {
				q = "?"
			}
			if before != "" {
				q += "&before=" + before
			}
			got := page(q)
			if len(got) != n {
				t.Fatalf("limit %q page %d: %d items, want %d", limit, i, len(got), n)
			}
			for _, it := range got {
				roles = append(roles, it.Role)
			}
			if n > 0 {
				before = got[n-1].Date.Format(time.RFC3339Nano)
			}
		}
		if len(roles) != total {
			t.Fatalf("limit %q: %d items over all pages, want %d", limit, len(roles), total)
		}
		for i, r := range roles {
			if r != "role "+strconv.Itoa(i+1) {
				t.Fatalf("limit %q: item %d is %q: not newest first without gaps or repeats (%v)", limit, i, r, roles)
			}
		}
	}
	walk("", []int{interviews.DefaultPage, total - interviews.DefaultPage, 0})
	walk("7", []int{7, 7, 7, 4, 0})
	walk(strconv.Itoa(interviews.MaxPage), []int{total, 0})

	if got := page("?before=2000-01-01"); len(got) != 0 {
		t.Fatalf("%d interviews completed before 2000", len(got))
	}
	// A calendar date means its midnight UTC. The interviews lie 1 to 25
	// hours back, so at least one was completed before today began.
	today := time.Now().UTC().Format(time.DateOnly)
	midnight, _ := time.Parse(time.DateOnly, today)
	older := page("?limit=100&before=" + today)
	if len(older) == 0 {
		t.Fatal("nothing completed before today")
	}
	for _, it := range older {
		if !it.Date.Before(midnight) {
			t.Fatalf("an interview completed %v on the page before %s", it.Date, today)
		}
	}
	for _, bad := range []string{"?limit=0", "?limit=101", "?limit=x", "?before=yesterday", "?before=2026-13-01"} {
		if r := must(t, c.do("GET", "/api/interview/history"+bad, nil), http.StatusBadRequest); r.errCode(t) != "invalid_argument" {
			t.Fatalf("%s: %s", bad, r.body)
		}
	}
}

// Two instances of the service on one database are two replicas: they
// share sessions, claims and every limit.
func TestTwoInstancesShareClaimsAndLimits(t *testing.T) {
	limits := interviews.Limits{
		Start:         interview.Rate{Burst: 20, PerHour: 20},
		Answer:        interview.Rate{Burst: 4, PerHour: 1},
		DailyCalls:    1000,
		MaxInProgress: 2,
	}
	a := newEnvWith(t, nil, nil, limits)
	b := serveEnv(t, a.pool, nil, nil, limits)
	onA := a.signUp()
	onB := &client{e: b, http: onA.http} // the same browser, the other replica
	onB.me()

	// A claim taken on one replica is live on the other.
	s := onA.start(interviews.MaxQuestions)
	entered, release := holdEvaluation(a, 1, false)
	defer release()
	held := make(chan response, 1)
	go func() { held <- onA.answer(s.SessionID, "q1", "held on A") }()
	<-entered
	r := must(t, onB.answer(s.SessionID, "q1", "sent to B"), http.StatusConflict)
	if !strings.Contains(string(r.body), "already being evaluated") {
		t.Fatalf("B: %s", r.body)
	}
	must(t, onB.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusConflict)
	release()
	must(t, <-held, http.StatusOK)
	if n := b.iv.evals.Load(); n != 0 {
		t.Fatalf("B evaluated %d answers under A's claim", n)
	}

	// One bucket for both: alternating replicas gets the burst, not twice it.
	var sess sessionBody
	must(t, onA.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
	q := *sess.CurrentQuestion
	accepted := 1 // the held answer above
	var refused response
	for i := range 2 * limits.Answer.Burst {
		on := onA
		if i%2 == 0 {
			on = onB
		}
		r := on.answer(s.SessionID, q.ID, "alternating")
		if r.status != http.StatusOK {
			refused = r
			break
		}
		accepted++
		var next answered
		r.json(t, &next)
		q = *next.NextQuestion
	}
	// At most one token refills an hour: the burst, or one more.
	if accepted < limits.Answer.Burst || accepted > limits.Answer.Burst+1 {
		t.Fatalf("%d answers accepted across two replicas, want %d (one bucket)", accepted, limits.Answer.Burst)
	}
	must(t, refused, http.StatusTooManyRequests)

	// The cap holds across replicas, even for starts racing each other.
	racer := a.signUp()
	onOther := &client{e: b, http: racer.http}
	const starts = 6
	statuses := make(chan int, starts)
	var wg sync.WaitGroup
	for i := range starts {
		c := racer
		if i%2 == 1 {
			c = onOther
		}
		wg.Go(func() {
			statuses <- c.do("POST", "/api/interview/start", map[string]any{
				"candidateName": "Ada", "role": "r", "experience": "e", "difficulty": "easy", "totalQuestions": 1,
			}).status
		})
	}
	wg.Wait()
	close(statuses)
	created := 0
	for st := range statuses {
		switch st {
		case http.StatusCreated:
			created++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("racing start: status %d", st)
		}
	}
	var inProgress int
	if err := a.pool.QueryRow(context.Background(), `SELECT count(*) FROM interviews i JOIN users u ON u.id = i.user_id
		WHERE u.email = $1 AND i.status = 'in_progress'`, racer.me().User.Email).Scan(&inProgress); err != nil {
		t.Fatal(err)
	}
	if created != limits.MaxInProgress || inProgress != limits.MaxInProgress {
		t.Fatalf("%d starts succeeded, %d in progress; want %d of each", created, inProgress, limits.MaxInProgress)
	}

	// Signing out everywhere on one replica ends the session on the other.
	token := sessionToken(t, a, onA)
	must(t, onB.do("POST", "/api/auth/logout-all", nil), http.StatusNoContent)
	replay := a.client()
	setToken(a, replay, token)
	must(t, replay.do("GET", "/api/auth/me", nil), http.StatusUnauthorized)
}
