// Package harness starts what `make run` starts (a Postgres, the judge and
// interview binaries, Caddy with deploy/Caddyfile) on free loopback ports,
// for the deploy module's test suites and its load program. The processes
// are shared/proctest's: each keeps its whole output, so callers can read
// the logs, and can be killed and started again on the same address.
package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/judgeworks/shared/proctest"
)

// Config says what to start. Env entries are KEY=VALUE; later entries win
// over the defaults Start sets, so a caller can override any of them.
type Config struct {
	// Root is the checkout holding deploy/Caddyfile.
	Root string
	// JudgeBin and InterviewBin are the binaries to run: tests build them
	// from source with proctest.Build, the load program takes bin/.
	JudgeBin, InterviewBin string
	// Work is the processes' working directory (the interview service keeps
	// its development secret under .data/ there).
	Work string
	// DatabaseURL is the interview service's DATABASE_URL.
	DatabaseURL string
	// JudgeKeys is JUDGE_API_KEYS; the interview service gets the first key.
	JudgeKeys string
	// JudgeEnv and InterviewEnv are added to each service's environment.
	JudgeEnv, InterviewEnv []string
	// NoCaddy leaves the proxy out.
	NoCaddy bool
}

// Stack is the running judge, interview service and Caddy.
type Stack struct {
	Judge, Interview, Caddy *proctest.Proc
	// JudgeURL and InterviewURL reach the services directly; URL is Caddy.
	JudgeURL, InterviewURL, URL string
}

// Start starts the judge, the interview service and Caddy, like make run,
// and waits for each to answer its health check. On error, whatever was
// started is stopped.
func Start(ctx context.Context, cfg Config) (s *Stack, err error) {
	for _, b := range []string{cfg.JudgeBin, cfg.InterviewBin} {
		if _, err := os.Stat(b); err != nil {
			return nil, fmt.Errorf("binary %q: %w", b, err)
		}
	}
	s = &Stack{}
	defer func() {
		if err != nil {
			s.Close()
			s = nil
		}
	}()
	judgePort, err := proctest.FreePort()
	if err != nil {
		return s, err
	}
	interviewPort, err := proctest.FreePort()
	if err != nil {
		return s, err
	}
	firstKey, _, _ := strings.Cut(cfg.JudgeKeys, ",")
	firstKey, _, _ = strings.Cut(firstKey, ":")
	s.JudgeURL = fmt.Sprintf("http://127.0.0.1:%d", judgePort)
	s.InterviewURL = fmt.Sprintf("http://127.0.0.1:%d", interviewPort)

	env := append(proctest.BaseEnv(cfg.Work), fmt.Sprintf("JUDGE_ADDR=127.0.0.1:%d", judgePort), "JUDGE_API_KEYS="+cfg.JudgeKeys)
	if s.Judge, err = proctest.Start(proctest.Cmd{Name: "judge", Path: cfg.JudgeBin, Dir: cfg.Work, Env: append(env, cfg.JudgeEnv...)}); err != nil {
		return s, err
	}
	env = append(proctest.BaseEnv(cfg.Work), fmt.Sprintf("INTERVIEW_ADDR=127.0.0.1:%d", interviewPort),
		"DATABASE_URL="+cfg.DatabaseURL, "DATA_DIR="+filepath.Join(cfg.Work, ".data"),
		"JUDGE_URL="+s.JudgeURL, "JUDGE_API_KEY="+firstKey)
	if s.Interview, err = proctest.Start(proctest.Cmd{Name: "interview", Path: cfg.InterviewBin, Dir: cfg.Work, Env: append(env, cfg.InterviewEnv...)}); err != nil {
		return s, err
	}
	if err = proctest.WaitOK(ctx, s.JudgeURL+"/healthz", s.Judge); err != nil {
		return s, err
	}
	if err = proctest.WaitOK(ctx, s.InterviewURL+"/healthz", s.Interview); err != nil {
		return s, err
	}
	if cfg.NoCaddy {
		return s, nil
	}
	caddyBin, err := exec.LookPath("caddy")
	if err != nil {
		return s, errors.New("caddy is not installed: run make deps")
	}
	caddyPort, err := proctest.FreePort()
	if err != nil {
		return s, err
	}
	// A bare port, as make run and compose give: a host in the site address
	// would become a host matcher.
	s.Caddy, err = proctest.Start(proctest.Cmd{Name: "caddy", Path: caddyBin, Dir: cfg.Work,
		Args: []string{"run", "--config", filepath.Join(cfg.Root, "deploy/Caddyfile"), "--adapter", "caddyfile"},
		Env: append(proctest.BaseEnv(cfg.Work), fmt.Sprintf("CADDY_ADDR=:%d", caddyPort),
			fmt.Sprintf("JUDGE_UPSTREAM=127.0.0.1:%d", judgePort),
			fmt.Sprintf("INTERVIEW_UPSTREAM=127.0.0.1:%d", interviewPort))})
	if err != nil {
		return s, err
	}
	s.URL = fmt.Sprintf("http://127.0.0.1:%d", caddyPort)
	return s, proctest.WaitOK(ctx, s.URL+"/healthz", s.Caddy, s.Judge, s.Interview)
}

// Procs are the started processes, proxy first, so Close stops traffic
// before the services.
func (s *Stack) Procs() []*proctest.Proc {
	var out []*proctest.Proc
	for _, p := range []*proctest.Proc{s.Caddy, s.Interview, s.Judge} {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// Close stops every process gracefully (SIGTERM, then SIGKILL after 15 s).
func (s *Stack) Close() {
	for _, p := range s.Procs() {
		_ = p.Stop(syscall.SIGTERM, 15*time.Second)
	}
}

// RepoRoot finds the checkout from the working directory: the nearest
// parent holding go.work.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.work above the working directory")
		}
		dir = parent
	}
}
