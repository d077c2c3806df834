package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/account"
	"github.com/judgeworks/interview/internal/auth"
	"github.com/judgeworks/interview/internal/httpapi"
	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/interviews"
	"github.com/judgeworks/interview/internal/postgres"
	"github.com/judgeworks/interview/internal/postgres/dbtest"
	"github.com/judgeworks/interview/internal/scorer"
	"github.com/judgeworks/interview/internal/voice"
	"github.com/judgeworks/shared/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var testSecret = []byte("test-secret-test-secret-test-secret!")

// fakeInterviewer is an instant interviewer that counts calls. Hooks, when
// set, run inside the call so tests can hold an evaluation or a summary
// open at a chosen moment.
type fakeInterviewer struct {
	opens, evals, nexts, summaries, followUps, requirements atomic.Int32

	mu         sync.Mutex
	onEvaluate func(n int32, q interview.Question, answer string) error
	onSummary  func(n int32) error
	evaluated  []interview.Question
	// answers are the answers evaluated, as the interviewer saw them, and
	// earlier what each was given as context.
	answers []string
	earlier [][]interview.Result
	// summarized are the results the last summary was written from.
	summarized []interview.Result
}

// finishHeld starts finishing interview id with its first summary held
// open: it returns once that summary is being written; release lets it go
// on, and done yields the finish's response.
func (c *client) finishHeld(e *env, id string) (release func(), done <-chan response) {
	entered, gate := make(chan struct{}), make(chan struct{})
	e.iv.onSummary = func(n int32) error {
		if n == 1 {
			close(entered)
			<-gate
		}
		return nil
	}
	out := make(chan response, 1)
	go func() { out <- c.do("POST", "/api/interview/finish", map[string]string{"sessionId": id}) }()
	<-entered
	return func() { close(gate) }, out
}

func (f *fakeInterviewer) Mode() string { return "fake" }

func (f *fakeInterviewer) Open(ctx context.Context, s interview.Setup) (interview.Opening, error) {
	f.opens.Add(1)
	return interview.Opening{Welcome: "Welcome, " + s.CandidateName, Question: question(1)}, nil
}

func question(n int) interview.Question {
	return interview.Question{ID: fmt.Sprintf("q%d", n), Text: fmt.Sprintf("Stored question %d?", n), Kind: interview.Main}
}

func (f *fakeInterviewer) Evaluate(ctx context.Context, s interview.Setup, q interview.Question, earlier []interview.Result, answer string) (interview.Evaluation, error) {
	n := f.evals.Add(1)
	f.mu.Lock()
	f.evaluated = append(f.evaluated, q)
	f.answers = append(f.answers, answer)
	f.earlier = append(f.earlier, earlier)
	hook := f.onEvaluate
	f.mu.Unlock()
	if hook != nil {
		if err := hook(n, q, answer); err != nil {
			return interview.Evaluation{}, err
		}
	}
	// As a model client would after waiting on the network: a cancelled
	// call returns nothing.
	if err := ctx.Err(); err != nil {
		return interview.Evaluation{}, err
	}
	if strings.Contains(answer, unscorableMarker) {
		return interviewer.NotScorable("the answer is noise."), nil
	}
	// Scores derived from the answer length so averages are checkable.
	score := min(len(answer), 100)
	return interview.Evaluation{Scorable: true, OffTopic: strings.Contains(answer, offTopicMarker), Score: score,
		TechnicalAccuracy: score / 2, Communication: 90, Feedback: "ok",
		Strengths: []string{"clear"}, Improvements: []string{"depth"}}, nil
}

func (f *fakeInterviewer) Next(ctx context.Context, s interview.Setup, done []interview.Result) (interview.Question, error) {
	f.nexts.Add(1)
	return question(len(done) + 1), nil
}

func (f *fakeInterviewer) Summarize(ctx context.Context, s interview.Setup, results []interview.Result) (interview.Summary, error) {
	n := f.summaries.Add(1)
	f.mu.Lock()
	hook := f.onSummary
	f.summarized = results
	f.mu.Unlock()
	if hook != nil {
		if err := hook(n); err != nil {
			return interview.Summary{}, err
		}
	}
	return interview.Summary{Strengths: []string{"s"}, Weaknesses: []string{"w"}, SuggestedTopics: []string{"t"},
		Feedback: fmt.Sprintf("summary of %d answers", len(results))}, nil
}

// gapMarker in an answer makes the fake interviewer find a gap in it and
// ask a follow-up.
const gapMarker = "[gap]"

// unscorableMarker in an answer makes the fake interviewer find nothing to
// score in it.
const unscorableMarker = "[unscorable]"

// offTopicMarker in an answer makes the fake interviewer find it off its
// question, with the scores of its length all the same: the service
// holds them to interviewer.MaxOffTopicScore.
const offTopicMarker = "[off-topic]"

// FollowUp asks "Follow-up n on <main question id>?" when the thread's
// last answer holds gapMarker.
func (f *fakeInterviewer) FollowUp(ctx context.Context, s interview.Setup, thread []interview.Result) (interview.Question, bool, error) {
	f.followUps.Add(1)
	if !strings.Contains(thread[len(thread)-1].Best().Answer, gapMarker) {
		return interview.Question{}, false, nil
	}
	return interview.Question{ID: "ignored", Text: fmt.Sprintf("Follow-up %d on %s?", len(thread), thread[0].Question.ID)}, true, nil
}

// Requirements are the description's lines that start with "- ".
func (f *fakeInterviewer) Requirements(ctx context.Context, s interview.Setup) ([]string, error) {
	f.requirements.Add(1)
	var out []string
	for line := range strings.SplitSeq(s.JobDescription, "\n") {
		if r, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			out = append(out, r)
		}
	}
	return out, nil
}

type env struct {
	t     *testing.T
	srv   *httptest.Server
	pool  *pgxpool.Pool
	store *postgres.Store
	iv    *fakeInterviewer
	// router is the service's echo instance, behind srv.
	router *echo.Echo
	// onRequest, when set, sees every request before the router does.
	onRequest atomic.Pointer[func(*http.Request)]
}

// envOption adjusts the router's dependencies; the pool is the env's own
// database.
type envOption func(*httpapi.Deps, *postgres.Store, *pgxpool.Pool)

func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	return newEnvWrapped(t, nil, opts...)
}

// newEnvWrapped is newEnv with the fake interviewer wrapped by wrap when
// wrap is not nil.
func newEnvWrapped(t *testing.T, wrap func(interview.Interviewer) interview.Interviewer, opts ...envOption) *env {
	t.Helper()
	return newEnvWith(t, wrap, nil, interviews.DefaultLimits(), opts...)
}

// newEnvWith is newEnvWrapped scoring answers with judge (nil: the
// interviewer's numbers) and holding users to limits instead of the
// defaults.
func newEnvWith(t *testing.T, wrap func(interview.Interviewer) interview.Interviewer, judge *scorer.Judge, limits interviews.Limits, opts ...envOption) *env {
	t.Helper()
	pool, _ := dbtest.New(t, 40)
	return serveEnv(t, pool, wrap, judge, limits, opts...)
}

// serveEnv serves one instance of the service on pool: two of them on one
// pool are two replicas on one database.
func serveEnv(t *testing.T, pool *pgxpool.Pool, wrap func(interview.Interviewer) interview.Interviewer, judge *scorer.Judge, limits interviews.Limits, opts ...envOption) *env {
	t.Helper()
	store := postgres.NewStore(pool)
	iv := &fakeInterviewer{}
	var used interview.Interviewer = iv
	if wrap != nil {
		used = wrap(iv)
	}
	tokens, err := auth.NewTokens(testSecret, "interview", time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := httpapi.Deps{
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Accounts:   account.NewService(store, nil),
		Interviews: interviews.NewService(store, used, judge, limits).ScreenWith(noScreen),
		Tokens:     tokens,
		Ready:      pool.Ping,
		Registry:   prometheus.NewRegistry(),
		Voice:      voice.New(voice.Config{}, postgres.NewVoiceAllowance(pool), nil),
	}
	for _, o := range opts {
		o(&d, store, pool)
	}
	e := httpapi.New(d)
	en := &env{t: t, pool: pool, store: store, iv: iv, router: e}
	en.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hook := en.onRequest.Load(); hook != nil {
			(*hook)(r)
		}
		e.ServeHTTP(w, r)
	}))
	t.Cleanup(en.srv.Close)
	return en
}

// screened makes the service screen answers with its own rule, for tests
// of the real interviewers through the API.
func screened(d *httpapi.Deps, _ *postgres.Store, _ *pgxpool.Pool) {
	d.Interviews.ScreenWith(interviews.Screen)
}

// noScreen lets every answer through to the stand-in interviewer, whose
// answers are tokens of the tests ("attempt A", a row of one letter whose
// length is its score). Screening is the service's, tested with its own
// rule in package interviews and, through the API, with the offline
// interviewer (practice_test.go).
func noScreen(string) string { return "" }

// ageClaim makes the claim on interview id older by d, as the database's
// clock would after d: claims are aged by the database, not by a clock of
// the test's.
func (e *env) ageClaim(id string, d time.Duration) {
	e.t.Helper()
	tag, err := e.pool.Exec(context.Background(),
		`UPDATE interviews SET answer_claimed_at = answer_claimed_at - make_interval(secs => $2) WHERE id = $1 AND claim_token IS NOT NULL`,
		id, d.Seconds())
	if err != nil || tag.RowsAffected() != 1 {
		e.t.Fatalf("aging the claim on %s: %v (%d rows)", id, err, tag.RowsAffected())
	}
}

// client is one browser: its own cookie jar.
type client struct {
	e    *env
	http *http.Client
}

func (e *env) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{e: e, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
}

// errCode returns the code of a pinned error body, failing on another shape.
func (r response) errCode(t *testing.T) string {
	t.Helper()
	var b struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	r.json(t, &b)
	if b.Error.Code == "" || b.Error.Message == "" {
		t.Fatalf("error body %s lacks code or message", r.body)
	}
	return b.Error.Code
}

func (c *client) do(method, path string, body any) response {
	c.e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			c.e.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.e.srv.URL+path, rd)
	if err != nil {
		c.e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: raw}
}

// must fails the test unless r has status want.
func must(t *testing.T, r response, want int) response {
	t.Helper()
	if r.status != want {
		t.Fatalf("status %d, want %d; body %s", r.status, want, r.body)
	}
	return r
}

var userSeq atomic.Int32

// signUp registers a fresh user on a new client.
func (e *env) signUp() *client {
	e.t.Helper()
	c := e.client()
	n := userSeq.Add(1)
	must(e.t, c.do("POST", "/api/auth/register", map[string]string{
		"fullName": fmt.Sprintf("User %d", n), "email": fmt.Sprintf("user%d@example.com", n), "password": "long enough password",
	}), http.StatusCreated)
	return c
}

type started struct {
	SessionID string             `json:"sessionId"`
	Welcome   string             `json:"welcome"`
	Question  interview.Question `json:"question"`
	Mode      string             `json:"mode"`
}

// start starts an interview of total questions without follow-ups.
func (c *client) start(total int) started {
	c.e.t.Helper()
	return c.startWith(map[string]any{"totalQuestions": total, "followUps": 0})
}

// startWith starts an interview with the fields of extra over a default
// setup.
func (c *client) startWith(extra map[string]any) started {
	c.e.t.Helper()
	body := map[string]any{"candidateName": "Ada", "role": "Backend engineer", "experience": "5 years", "difficulty": "medium", "totalQuestions": 3}
	maps.Copy(body, extra)
	var s started
	must(c.e.t, c.do("POST", "/api/interview/start", body), http.StatusCreated).json(c.e.t, &s)
	return s
}

func (c *client) answer(sessionID, questionID, text string) response {
	return c.do("POST", "/api/interview/answer", map[string]string{"sessionId": sessionID, "questionId": questionID, "answer": text})
}

var errModel = errors.New("model unavailable")

// score is a report's average, or -1 when none was scored.
func score(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}
