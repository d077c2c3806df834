package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/judgeworks/shared/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestBinary runs the built service black-box against a real database: it
// serves, answers the healthcheck subcommand, keeps sessions and interviews
// across a kill -9 and a graceful restart.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := filepath.Join(t.TempDir(), "interview")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env := append(os.Environ(),
		"DATABASE_URL="+pgtest.NewDatabase(t), "INTERVIEW_ADDR="+addr, "DATA_DIR="+t.TempDir(),
		"APP_ENV=development", "LLM_BASE_URL=", "LLM_API_KEY=", "GOOGLE_CLIENT_ID=", "JWT_SECRET=")
	var logs syncBuffer
	start := func() *exec.Cmd {
		cmd := exec.Command(bin)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
		deadline := time.Now().Add(20 * time.Second)
		for {
			resp, err := http.Get("http://" + addr + "/healthz")
			if err == nil {
				resp.Body.Close()
				return cmd
			}
			if time.Now().After(deadline) {
				t.Fatalf("service did not come up: %v\n%s", err, logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	defer func() {
		if t.Failed() {
			t.Logf("service log:\n%s", logs.String())
		}
	}()
	healthcheck := func() int {
		cmd := exec.Command(bin, "healthcheck")
		cmd.Env = env
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode()
			}
			t.Fatal(err)
		}
		return 0
	}

	proc := start()
	if code := healthcheck(); code != 0 {
		t.Fatalf("healthcheck exit %d on a running service", code)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	call := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequestWithContext(context.Background(), method, "http://"+addr+path, rd)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, raw)
		}
		out := map[string]any{}
		_ = json.Unmarshal(raw, &out)
		return out
	}
	cfg := call("GET", "/api/config", nil, 200)
	if cfg["mode"] != "offline" {
		t.Fatalf("config %v: want the offline interviewer without LLM settings", cfg)
	}
	call("POST", "/api/auth/register", map[string]string{"fullName": "Bin", "email": "bin@example.com", "password": "binary password"}, 201)
	st := call("POST", "/api/interview/start", map[string]any{"candidateName": "Bin", "role": "Backend engineer", "experience": "3 years", "difficulty": "easy", "totalQuestions": 2}, 201)
	sid := st["sessionId"].(string)
	q := st["question"].(map[string]any)
	call("POST", "/api/interview/answer", map[string]string{"sessionId": sid, "questionId": q["id"].(string),
		"answer": "I would start by measuring latency, then add an index and verify with EXPLAIN ANALYZE."}, 200)

	// kill -9: nothing lives only in memory.
	_ = proc.Process.Signal(syscall.SIGKILL)
	_, _ = proc.Process.Wait()
	if code := healthcheck(); code != 1 {
		t.Fatalf("healthcheck exit %d with the service down, want 1", code)
	}
	proc = start()
	sess := call("GET", "/api/interview/"+sid, nil, 200) // the cookie still works: the secret persisted
	if n := len(sess["questionResults"].([]any)); n != 1 {
		t.Fatalf("%d results after restart, want 1", n)
	}
	next := sess["currentQuestion"].(map[string]any)
	a := call("POST", "/api/interview/answer", map[string]string{"sessionId": sid, "questionId": next["id"].(string), "answer": "Use a queue with retries and idempotency keys."}, 200)
	if a["isLastQuestion"] != true {
		t.Fatalf("answer %v", a)
	}
	rep := call("POST", "/api/interview/finish", map[string]string{"sessionId": sid}, 200)
	if _, ok := rep["overallScore"].(float64); !ok || len(rep["questionResults"].([]any)) != 2 {
		t.Fatalf("report %v", rep)
	}
	if m := call("GET", "/api/unknown", nil, 404); m["error"] == nil {
		t.Fatal("unknown API path without JSON error")
	}

	// Graceful stop on SIGTERM.
	_ = proc.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { _, err := proc.Process.Wait(); done <- err }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
	if !strings.Contains(logs.String(), "shutting down") {
		t.Fatalf("no graceful shutdown logged:\n%s", logs.String())
	}
}

// syncBuffer collects the logs of successive processes while the test reads
// them.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
