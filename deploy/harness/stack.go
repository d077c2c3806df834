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
)

// Config says what to start. Env entries are KEY=VALUE; later entries win
// over the defaults Start sets, so a caller can override any of them.
type Config struct {
	// Root is the checkout holding bin/ and deploy/Caddyfile.
	Root string
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
	Judge, Interview, Caddy *Proc
	// JudgeURL and InterviewURL reach the services directly; URL is Caddy.
	JudgeURL, InterviewURL, URL string
}

// Start starts the judge, the interview service and Caddy, like make run,
// and waits for each to answer its health check. On error, whatever was
// started is stopped.
func Start(ctx context.Context, cfg Config) (s *Stack, err error) {
	for _, b := range []string{"bin/judge", "bin/interview"} {
		if _, err := os.Stat(filepath.Join(cfg.Root, b)); err != nil {
			return nil, fmt.Errorf("%s is missing: run make build-go first: %w", b, err)
		}
	}
	s = &Stack{}
	defer func() {
		if err != nil {
			s.Close()
			s = nil
		}
	}()
	judgePort, err := FreePort()
	if err != nil {
		return s, err
	}
	interviewPort, err := FreePort()
	if err != nil {
		return s, err
	}
	firstKey, _, _ := strings.Cut(cfg.JudgeKeys, ",")
	firstKey, _, _ = strings.Cut(firstKey, ":")
	s.JudgeURL = fmt.Sprintf("http://127.0.0.1:%d", judgePort)
	s.InterviewURL = fmt.Sprintf("http://127.0.0.1:%d", interviewPort)

	env := append(BaseEnv(cfg.Work), fmt.Sprintf("JUDGE_ADDR=127.0.0.1:%d", judgePort), "JUDGE_API_KEYS="+cfg.JudgeKeys)
	if s.Judge, err = StartProc("judge", cfg.Work, append(env, cfg.JudgeEnv...), filepath.Join(cfg.Root, "bin/judge")); err != nil {
		return s, err
	}
	env = append(BaseEnv(cfg.Work), fmt.Sprintf("INTERVIEW_ADDR=127.0.0.1:%d", interviewPort),
		"DATABASE_URL="+cfg.DatabaseURL, "DATA_DIR="+filepath.Join(cfg.Work, ".data"),
		"JUDGE_URL="+s.JudgeURL, "JUDGE_API_KEY="+firstKey)
	if s.Interview, err = StartProc("interview", cfg.Work, append(env, cfg.InterviewEnv...), filepath.Join(cfg.Root, "bin/interview")); err != nil {
		return s, err
	}
	if err = WaitOK(ctx, s.JudgeURL+"/healthz", s.Judge); err != nil {
		return s, err
	}
	if err = WaitOK(ctx, s.InterviewURL+"/healthz", s.Interview); err != nil {
		return s, err
	}
	if cfg.NoCaddy {
		return s, nil
	}
	caddyBin, err := exec.LookPath("caddy")
	if err != nil {
		return s, errors.New("caddy is not installed: run make deps")
	}
	caddyPort, err := FreePort()
	if err != nil {
		return s, err
	}
	// A bare port, as make run and compose give: a host in the site address
	// would become a host matcher.
	s.Caddy, err = StartProc("caddy", cfg.Work,
		append(BaseEnv(cfg.Work), fmt.Sprintf("CADDY_ADDR=:%d", caddyPort),
			fmt.Sprintf("JUDGE_UPSTREAM=127.0.0.1:%d", judgePort),
			fmt.Sprintf("INTERVIEW_UPSTREAM=127.0.0.1:%d", interviewPort)),
		caddyBin, "run", "--config", filepath.Join(cfg.Root, "deploy/Caddyfile"), "--adapter", "caddyfile")
	if err != nil {
		return s, err
	}
	s.URL = fmt.Sprintf("http://127.0.0.1:%d", caddyPort)
	return s, WaitOK(ctx, s.URL+"/healthz", s.Caddy, s.Judge, s.Interview)
}

// Procs are the started processes, proxy first, so Close stops traffic
// before the services.
func (s *Stack) Procs() []*Proc {
	var out []*Proc
	for _, p := range []*Proc{s.Caddy, s.Interview, s.Judge} {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// Close stops every process gracefully (SIGTERM, then SIGKILL after 15 s).
func (s *Stack) Close() {
	for _, p := range s.Procs() {
		p.Stop(syscall.SIGTERM, 15*time.Second)
	}
}
