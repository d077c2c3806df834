// Command stackload starts what make run starts (a throwaway Postgres, the
// judge and interview binaries from bin/, which make bench builds just
// before, Caddy with deploy/Caddyfile) on free loopback ports, then runs
// simulated interview users through Caddy: each registers, starts an
// interview, answers every question, finishes and reads its history. It
// prints latency percentiles per step and overall, and throughput, and
// exits 1 on any error.
//
//	go run ./deploy/cmd/stackload -users 100 -questions 3
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/judgeworks/deploy/harness"
)

func main() {
	users := flag.Int("users", 100, "simulated users, all at once")
	questions := flag.Int("questions", 3, "questions per interview (1-20)")
	judgeRPM := flag.Int("judge-rpm", 1_000_000, "JUDGE_RATE_LIMIT_RPM: users without think time answer faster than one key's default 1,200/min")
	timeout := flag.Duration("timeout", 5*time.Minute, "bound on the whole run")
	flag.Parse()
	if err := run(*users, *questions, *judgeRPM, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "stackload:", err)
		os.Exit(1)
	}
}

func run(users, questions, judgeRPM int, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	root, err := harness.RepoRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "stackload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	pg, err := harness.StartPostgres(ctx, "")
	if err != nil {
		return err
	}
	defer pg.Close()
	s, err := harness.Start(ctx, harness.Config{
		Root: root, Work: work, DatabaseURL: pg.URL, JudgeKeys: "load-key",
		JudgeBin: filepath.Join(root, "bin/judge"), InterviewBin: filepath.Join(root, "bin/interview"),
		JudgeEnv: []string{fmt.Sprintf("JUDGE_RATE_LIMIT_RPM=%d", judgeRPM)},
		// Every simulated user comes from 127.0.0.1: the per-address
		// sign-in limit would refuse the 11th registration.
		InterviewEnv: []string{"AUTH_THROTTLE=off"},
	})
	if err != nil {
		return err
	}
	defer s.Close()

	fmt.Printf("stack through Caddy, offline engines, %d CPUs, loopback; %d users at once, %d questions each\n",
		runtime.NumCPU(), users, questions)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		lat  = map[string][]time.Duration{}
		errs []error
	)
	record := func(step string, d time.Duration) {
		mu.Lock()
		lat[step] = append(lat[step], d)
		mu.Unlock()
	}
	start := time.Now()
	for i := range users {
		wg.Go(func() {
			if err := user(ctx, s.URL, i, questions, record); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("user %d: %w", i, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)

	var all []time.Duration
	for _, step := range []string{"register", "start", "answer", "finish", "history"} {
		all = append(all, lat[step]...)
		printStats(step, lat[step])
	}
	printStats("all", all)
	fmt.Printf("%d requests in %.2f s: %.0f requests/s, %.1f interviews/s; errors: %d\n",
		len(all), wall.Seconds(), float64(len(all))/wall.Seconds(), float64(users-len(errs))/wall.Seconds(), len(errs))
	if len(errs) > 0 {
		for _, e := range errs[:min(5, len(errs))] {
			fmt.Fprintln(os.Stderr, e)
		}
		return fmt.Errorf("%d of %d users failed", len(errs), users)
	}
	return nil
}

func printStats(step string, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	pct := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	fmt.Printf("  %-8s n=%-5d p50 %-9v p99 %-9v max %v\n", step, len(d),
		pct(0.50).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), d[len(d)-1].Round(10*time.Microsecond))
}

// user runs one interview from registration to history.
func user(ctx context.Context, base string, i, questions int, record func(string, time.Duration)) error {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 60 * time.Second}
	do := func(step, method, path string, body, out any, want int) error {
		start := time.Now()
		err := send(ctx, c, method, base+path, body, out, want)
		record(step, time.Since(start))
		if err != nil {
			return fmt.Errorf("%s: %w", step, err)
		}
		return nil
	}
	email := fmt.Sprintf("load-%d-%d@example.com", i, time.Now().UnixNano())
	if err := do("register", http.MethodPost, "/api/auth/register",
		map[string]string{"fullName": "Load User", "email": email, "password": "correct horse battery staple"}, nil, http.StatusCreated); err != nil {
		return err
	}
	var started struct {
		SessionID string `json:"sessionId"`
		Question  struct {
			ID string `json:"id"`
		} `json:"question"`
	}
	if err := do("start", http.MethodPost, "/api/interview/start", map[string]any{"candidateName": "Load User",
		"role": "Backend Engineer", "experience": "3 years", "difficulty": "medium", "totalQuestions": questions,
		// One answer per question, so that every user does the same work.
		"followUps": 0}, &started, http.StatusCreated); err != nil {
		return err
	}
	qid := started.Question.ID
	for n := 1; n <= questions; n++ {
		var ans struct {
			NextQuestion *struct {
				ID string `json:"id"`
			} `json:"nextQuestion"`
			IsLastQuestion bool `json:"isLastQuestion"`
		}
		if err := do("answer", http.MethodPost, "/api/interview/answer", map[string]string{"sessionId": started.SessionID,
			"questionId": qid, "answer": "I would measure p99 latency per endpoint, find the slow query with EXPLAIN ANALYZE, " +
				"add the missing index, and load test before rolling out behind a feature flag."}, &ans, http.StatusOK); err != nil {
			return err
		}
		if ans.IsLastQuestion != (n == questions) || (ans.NextQuestion == nil) != (n == questions) {
			return fmt.Errorf("answer %d of %d: isLastQuestion %v", n, questions, ans.IsLastQuestion)
		}
		if ans.NextQuestion != nil {
			qid = ans.NextQuestion.ID
		}
	}
	var report struct {
		QuestionResults []json.RawMessage `json:"questionResults"`
	}
	if err := do("finish", http.MethodPost, "/api/interview/finish", map[string]string{"sessionId": started.SessionID}, &report, http.StatusOK); err != nil {
		return err
	}
	if len(report.QuestionResults) != questions {
		return fmt.Errorf("report has %d results, want %d", len(report.QuestionResults), questions)
	}
	var history []struct {
		ID string `json:"_id"`
	}
	if err := do("history", http.MethodGet, "/api/interview/history", nil, &history, http.StatusOK); err != nil {
		return err
	}
	if len(history) != 1 || history[0].ID != started.SessionID {
		return fmt.Errorf("history %+v, want the one finished interview", history)
	}
	return nil
}

func send(ctx context.Context, c *http.Client, method, url string, body, out any, want int) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return errors.Join(fmt.Errorf("%s %s: not the expected JSON", method, url), err)
		}
	}
	return nil
}
