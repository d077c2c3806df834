package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviews"
	"github.com/judgeworks/shared/pgtest"
)

// outage makes the env's database refuse every connection, its open ones
// cut, as a Postgres that went away would; the returned function ends it.
func (e *env) outage() (end func()) {
	e.t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pgtest.URL(e.t))
	if err != nil {
		e.t.Fatal(err)
	}
	db := e.pool.Config().ConnConfig.Database
	if _, err := admin.Exec(ctx, `ALTER DATABASE `+pgx.Identifier{db}.Sanitize()+` ALLOW_CONNECTIONS false`); err != nil {
		e.t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, db); err != nil {
		e.t.Fatal(err)
	}
	return func() {
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, `ALTER DATABASE `+pgx.Identifier{db}.Sanitize()+` ALLOW_CONNECTIONS true`); err != nil {
			e.t.Error(err)
		}
	}
}

// The database goes away while an answer is being evaluated and comes back
// a second later: the evaluation, already paid for, is stored all the same.
func TestShortOutageAtStoreTimeLosesNothing(t *testing.T) {
	limits := interviews.DefaultLimits()
	limits.StoreWait = 30 * time.Second
	e := newEnvWith(t, nil, nil, limits)
	c := e.signUp()
	s := c.start(2)
	e.iv.onEvaluate = func(int32, interview.Question, string) error {
		end := e.outage()
		time.AfterFunc(time.Second, end)
		return nil
	}
	must(t, c.answer(s.SessionID, "q1", "answered during an outage"), http.StatusOK)
	var iv struct {
		QuestionResults []map[string]any `json:"questionResults"`
	}
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &iv)
	if len(iv.QuestionResults) != 1 {
		t.Fatalf("%d results stored, want the one evaluated", len(iv.QuestionResults))
	}
}

// The database stays away longer than an evaluation is kept: the user is
// told it was not saved and to send it again, and once the database is
// back the claim is released and the calls it spent are given back, so
// sending it again works at once and costs what one answer costs.
func TestLongOutageAtStoreTimeSaysResend(t *testing.T) {
	limits := interviews.DefaultLimits()
	limits.StoreWait = time.Second
	e := newEnvWith(t, nil, nil, limits)
	c := e.signUp()
	s := c.start(2)
	var end func()
	e.iv.onEvaluate = func(n int32, _ interview.Question, _ string) error {
		if n == 1 {
			end = e.outage()
		}
		return nil
	}
	r := must(t, c.answer(s.SessionID, "q1", "answered during an outage"), http.StatusServiceUnavailable)
	if r.errCode(t) != "unavailable" || !strings.Contains(string(r.body), "could not be saved") ||
		!strings.Contains(string(r.body), "again") || r.header.Get("Retry-After") == "" {
		t.Fatalf("the refusal does not say what happened: %s (Retry-After %q)", r.body, r.header.Get("Retry-After"))
	}
	end()

	deadline := time.Now().Add(60 * time.Second)
	for {
		r = c.answer(s.SessionID, "q1", "sent again")
		if r.status == http.StatusOK {
			break
		}
		if r.status != http.StatusConflict || time.Now().After(deadline) {
			t.Fatalf("sending the answer again: %d %s", r.status, r.body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The start's one call and this answer's two (evaluation, next
	// question); the lost evaluation's were given back.
	var used int
	if err := e.pool.QueryRow(context.Background(), `SELECT used FROM quota_days WHERE name = 'model_calls'`).Scan(&used); err != nil {
		t.Fatal(err)
	}
	if used != 3 {
		t.Fatalf("%d calls counted, want 3", used)
	}
}
