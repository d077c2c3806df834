// Command answerload measures the interview answer path without a model:
// the real router and Postgres store with an instant interviewer, many
// users answering at once over loopback HTTP. It prints answers per second
// and latency percentiles. Run by deploy/bench.d/interview-answer.sh.
//
// It uses TEST_DATABASE_URL when set, else starts a throwaway local Postgres.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/account"
	"github.com/judgeworks/interview/internal/auth"
	"github.com/judgeworks/interview/internal/config"
	"github.com/judgeworks/interview/internal/httpapi"
	"github.com/judgeworks/interview/internal/interviews"
	"github.com/judgeworks/interview/internal/postgres"
	"github.com/judgeworks/shared/pgtest"
)

func main() {
	users := flag.Int("users", 50, "concurrent users")
	duration := flag.Duration("duration", 10*time.Second, "measured time")
	questions := flag.Int("questions", 20, "questions per interview")
	conns := flag.Int("conns", int(config.DefaultDBMaxConns()), "database pool size (default: the service's)")
	think := flag.Duration("think", 0, "pause of each user between answers (0: answer back to back, saturating the service)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the measured run to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "answerload:", err)
			os.Exit(1)
		}
		defer f.Close()
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if err := run(*users, *duration, *questions, int32(*conns), *think); err != nil {
		fmt.Fprintln(os.Stderr, "answerload:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// instant answers at once, so the figures are the service's own cost.
type instant struct{}

func (instant) Mode() string { return "instant" }
func (instant) Open(context.Context, interview.Setup) (interview.Opening, error) {
	return interview.Opening{Welcome: "hi", Question: interview.Question{ID: "q1", Text: "Question 1"}}, nil
}
func (instant) Evaluate(_ context.Context, _ interview.Setup, _ interview.Question, _ []interview.Result, a string) (interview.Evaluation, error) {
	return interview.Evaluation{Score: 70, TechnicalAccuracy: 65, Communication: 80, Feedback: "fine",
		Strengths: []string{"clear"}, Improvements: []string{"depth"}}, nil
}
func (instant) Next(_ context.Context, _ interview.Setup, done []interview.Result) (interview.Question, error) {
	n := len(done) + 1
	return interview.Question{ID: fmt.Sprintf("q%d", n), Text: fmt.Sprintf("Question %d", n)}, nil
}
func (instant) Summarize(context.Context, interview.Setup, []interview.Result) (interview.Summary, error) {
	return interview.Summary{Feedback: "done"}, nil
}
func (instant) FollowUp(context.Context, interview.Setup, []interview.Result) (interview.Question, bool, error) {
	return interview.Question{}, false, nil
}
func (instant) Requirements(context.Context, interview.Setup) ([]string, error) {
	return []string{}, nil
}

func run(users int, duration time.Duration, questions int, conns int32, think time.Duration) error {
	ctx := context.Background()
	admin := os.Getenv(pgtest.EnvURL)
	if admin == "" {
		u, stop, err := pgtest.Start()
		if err != nil {
			return err
		}
		defer stop()
		admin = u
	}
	dbURL, drop, err := pgtest.CreateDatabase(ctx, admin)
	if err != nil {
		return err
	}
	defer drop(context.Background())
	pool, err := postgres.OpenMigrated(ctx, dbURL, conns)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := postgres.NewStore(pool)
	tokens, err := auth.NewTokens([]byte("load-test-secret-load-test-secret"), "interview", 0, nil)
	if err != nil {
		return err
	}
	// No per-user limits: the program measures the answer path, with each
	// user answering far faster than any limit allows.
	e := httpapi.New(httpapi.Deps{
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Accounts:   account.NewService(store, nil),
		Interviews: interviews.NewService(store, instant{}, nil, interviews.Limits{}),
		Tokens:     tokens,
		Ready:      pool.Ping,
		Registry:   prometheus.NewRegistry(),
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: e}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	transport := &http.Transport{MaxIdleConnsPerHost: users * 2}

	// Sign everyone up first: bcrypt is not what is measured.
	clients := make([]*loadClient, users)
	for i := range clients {
		jar, _ := cookiejar.New(nil)
		clients[i] = &loadClient{base: base, http: &http.Client{Jar: jar, Transport: transport, Timeout: 30 * time.Second}}
		if _, err := clients[i].post("/api/auth/register", map[string]string{
			"fullName": "Load", "email": fmt.Sprintf("load%d@example.com", i), "password": "load test password",
		}, http.StatusCreated); err != nil {
			return err
		}
	}

	deadline := time.Now().Add(duration)
	var wg sync.WaitGroup
	lat := make([][]time.Duration, users)
	errs := make([]int, users)
	start := time.Now()
	for i, c := range clients {
		wg.Go(func() { lat[i], errs[i] = c.loop(questions, deadline, think) })
	}
	wg.Wait()
	elapsed := time.Since(start)

	all := slices.Concat(lat...)
	slices.Sort(all)
	failed := 0
	for _, n := range errs {
		failed += n
	}
	if len(all) == 0 {
		return errors.New("no answers completed")
	}
	pct := func(p float64) string {
		return fmt.Sprintf("%.2fms", float64(all[int(p*float64(len(all)-1))].Microseconds())/1000)
	}
	fmt.Printf("interview answer path: %d users, think %s, %s, instant interviewer, pool %d, Postgres on loopback\n", users, think, duration, conns)
	fmt.Printf("answers %d  errors %d  answers/s %.0f  p50 %s  p95 %s  p99 %s  max %s\n",
		len(all), failed, float64(len(all))/elapsed.Seconds(), pct(0.50), pct(0.95), pct(0.99), pct(1))
	return nil
}

type loadClient struct {
	base string
	http *http.Client
}

// loop answers questions one at a time until the deadline, pausing think
// between answers and starting a new interview whenever one runs out of
// questions.
func (c *loadClient) loop(questions int, deadline time.Time, think time.Duration) ([]time.Duration, int) {
	var lat []time.Duration
	failed := 0
	for time.Now().Before(deadline) {
		var st struct {
			SessionID string             `json:"sessionId"`
			Question  interview.Question `json:"question"`
		}
		raw, err := c.post("/api/interview/start", map[string]any{
			"candidateName": "Load", "role": "Backend engineer", "experience": "3 years", "difficulty": "medium", "totalQuestions": questions,
		}, http.StatusCreated)
		if err != nil || json.Unmarshal(raw, &st) != nil {
			failed++
			continue
		}
		q := &st.Question
		for q != nil && time.Now().Before(deadline) {
			t0 := time.Now()
			raw, err := c.post("/api/interview/answer", map[string]string{
				"sessionId": st.SessionID, "questionId": q.ID, "answer": "I would measure first, then change one thing at a time.",
			}, http.StatusOK)
			d := time.Since(t0)
			var a struct {
				NextQuestion *interview.Question `json:"nextQuestion"`
			}
			if err != nil || json.Unmarshal(raw, &a) != nil {
				failed++
				break
			}
			lat = append(lat, d)
			q = a.NextQuestion
			time.Sleep(think)
		}
	}
	return lat, failed
}

func (c *loadClient) post(path string, body any, want int) ([]byte, error) {
	b, _ := json.Marshal(body)
	resp, err := c.http.Post(c.base+path, "application/json", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s: %d %s", path, resp.StatusCode, raw)
	}
	return raw, nil
}
