package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/judgeworks/shared/pgtest"
	"github.com/judgeworks/shared/proctest"
)

func TestMain(m *testing.M) {
	os.Exit(proctest.Main(func() int { return pgtest.Main(m) }))
}

// service is the service built from source (once per test process),
// running against its own database.
type service struct {
	t    *testing.T
	bin  string
	addr string
	env  []string
	proc *proctest.Proc
	http *http.Client
	db   string
}

func newService(t *testing.T, extraEnv ...string) *service {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := proctest.Build(t, ".")
	port, err := proctest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	db := pgtest.NewDatabase(t)
	// Nothing of the caller's environment (model keys, a judge) leaks in.
	env := append(proctest.BaseEnv(t.TempDir()),
		"DATABASE_URL="+db, "INTERVIEW_ADDR="+addr, "DATA_DIR="+t.TempDir(), "APP_ENV=development")
	env = append(env, extraEnv...)
	jar, _ := cookiejar.New(nil)
	return &service{t: t, bin: bin, addr: addr, env: env, db: db, http: &http.Client{Jar: jar, Timeout: 10 * time.Second}}
}

// start starts the service, or starts it again after kill, and waits until
// it serves. It is stopped when the test ends, and the end of its log is
// shown if the test failed.
func (s *service) start() {
	s.t.Helper()
	if s.proc == nil {
		s.proc = proctest.Run(s.t, proctest.Cmd{Name: "interview", Path: s.bin, Env: s.env}, "http://"+s.addr+"/healthz")
		return
	}
	if err := s.proc.Restart(); err != nil {
		s.t.Fatal(err)
	}
	if err := proctest.WaitOK(context.Background(), "http://"+s.addr+"/healthz", s.proc); err != nil {
		s.t.Fatal(err)
	}
}

func (s *service) kill() { s.proc.Kill() }

func (s *service) healthcheck() int {
	cmd := exec.Command(s.bin, "healthcheck")
	cmd.Env = s.env
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		s.t.Fatal(err)
	}
	return 0
}

// call sends a JSON request and returns the status and decoded body.
func (s *service) call(method, path string, body any) (int, map[string]any) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequestWithContext(context.Background(), method, "http://"+s.addr+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, map[string]any{"transport": err.Error()}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

func (s *service) must(method, path string, body any, want int) map[string]any {
	s.t.Helper()
	status, out := s.call(method, path, body)
	if status != want {
		s.t.Fatalf("%s %s: %d, want %d: %v", method, path, status, want, out)
	}
	return out
}

func (s *service) signUpAndStart(total int) (sid, qid string) {
	s.t.Helper()
	s.must("POST", "/api/auth/register", map[string]string{"fullName": "Bin", "email": "bin@example.com", "password": "binary password"}, 201)
	st := s.must("POST", "/api/interview/start", map[string]any{"candidateName": "Bin", "role": "Backend engineer", "experience": "3 years", "difficulty": "easy", "totalQuestions": total, "followUps": 0}, 201)
	return st["sessionId"].(string), st["question"].(map[string]any)["id"].(string)
}

// TestBinary runs the built service black-box with the offline interviewer:
// it serves, answers the healthcheck subcommand, keeps sessions and
// interviews across kill -9, and stops gracefully on SIGTERM.
func TestBinary(t *testing.T) {
	s := newService(t)
	s.start()
	if code := s.healthcheck(); code != 0 {
		t.Fatalf("healthcheck exit %d on a running service", code)
	}
	if cfg := s.must("GET", "/api/config", nil, 200); cfg["mode"] != "offline" {
		t.Fatalf("config %v: want the offline interviewer without LLM settings", cfg)
	}
	sid, qid := s.signUpAndStart(2)
	s.must("POST", "/api/interview/answer", map[string]string{"sessionId": sid, "questionId": qid,
		"answer": "I would start by measuring latency, then add an index and verify with EXPLAIN ANALYZE."}, 200)

	s.kill()
	if code := s.healthcheck(); code != 1 {
		t.Fatalf("healthcheck exit %d with the service down, want 1", code)
	}
	s.start()
	sess := s.must("GET", "/api/interview/"+sid, nil, 200) // the cookie still works: the secret persisted
	if n := len(sess["questionResults"].([]any)); n != 1 {
		t.Fatalf("%d results after restart, want 1", n)
	}
	next := sess["currentQuestion"].(map[string]any)
	a := s.must("POST", "/api/interview/answer", map[string]string{"sessionId": sid, "questionId": next["id"].(string), "answer": "Use a queue with retries and idempotency keys."}, 200)
	if a["isLastQuestion"] != true {
		t.Fatalf("answer %v", a)
	}
	rep := s.must("POST", "/api/interview/finish", map[string]string{"sessionId": sid}, 200)
	// Answers that do not address their questions are not scored; a
	// report with none scored has a null overall score.
	_, scored := rep["overallScore"].(float64)
	if n, _ := rep["scoredQuestions"].(float64); scored != (n > 0) || len(rep["questionResults"].([]any)) != 2 {
		t.Fatalf("report %v", rep)
	}
	if m := s.must("GET", "/api/unknown", nil, 404); m["error"] == nil {
		t.Fatal("unknown API path without JSON error")
	}

	if err := s.proc.Stop(syscall.SIGTERM, 15*time.Second); err != nil {
		t.Fatalf("stop with SIGTERM: %v", err)
	}
	if !strings.Contains(s.proc.Output(), "shutting down") {
		t.Fatal("no graceful shutdown logged")
	}
}

// TestIncompleteLanguageModelStops: a base URL or key without the rest is
// a start-up error naming the missing setting, as in the judge, never a
// silent fall back to the offline interviewer. A model name alone is not a
// provider: the service starts offline.
func TestIncompleteLanguageModelStops(t *testing.T) {
	for _, c := range []struct{ env, names string }{
		{"LLM_API_KEY=sk-test-key", "LLM_BASE_URL"},
		{"LLM_BASE_URL=http://127.0.0.1:9/v1", "LLM_MODEL"},
	} {
		s := newService(t, c.env, "LLM_MODEL=")
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, s.bin)
		cmd.Env = s.env
		out, err := cmd.CombinedOutput()
		cancel()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("%s: %v, want exit status 1; output %s", c.env, err, out)
		}
		if !strings.Contains(string(out), c.names) || strings.Contains(string(out), "sk-test-key") {
			t.Fatalf("%s: output %s, want the error to name %s and not the key", c.env, out, c.names)
		}
	}
	s := newService(t, "LLM_MODEL=gpt-4o-mini")
	s.start()
	if cfg := s.must("GET", "/api/config", nil, 200); cfg["mode"] != "offline" {
		t.Fatalf("config %v: a model name alone switched to a provider", cfg)
	}
}

// chatServer speaks the OpenAI chat-completions wire format. While hang is
// set, evaluation requests block until the caller goes away.
type chatServer struct {
	mu      sync.Mutex
	hang    bool
	entered chan struct{}
	// failStatus, when set, answers every request with that status and an
	// error that echoes the caller's key, as some providers do.
	failStatus int
	// auth is the last Authorization header received.
	auth string
}

func (cs *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model          string `json:"model"`
		ResponseFormat struct {
			JSONSchema struct {
				Name string `json:"name"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	replies := map[string]string{
		"opening":    `{"welcome":"Welcome. We will cover backend design.","question":"How would you design a rate limiter for an API?"}`,
		"evaluation": `{"offTopic":false,"score":72,"technicalAccuracy":75,"communication":65,"feedback":"Solid on token buckets.","strengths":["Named the token bucket"],"improvements":["Discuss shared state"],"scorable":true,"evidence":[],"star":{"situation":false,"task":false,"action":false,"result":false}}`,
		"question":   `{"question":"How do you make a payment endpoint idempotent?"}`,
		"summary":    `{"strengths":["Rate limiting"],"weaknesses":["Distributed state"],"suggestedTopics":["Idempotency keys"],"feedback":"A solid interview."}`,
		"follow_up":  `{"ask":false,"question":""}`,
	}
	name := body.ResponseFormat.JSONSchema.Name
	cs.mu.Lock()
	hang := cs.hang && name == "evaluation"
	cs.auth = r.Header.Get("Authorization")
	failStatus := cs.failStatus
	cs.mu.Unlock()
	if failStatus != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(failStatus)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": "Incorrect API key provided: " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "),
			"type":    "invalid_request_error", "code": "invalid_api_key"}})
		return
	}
	if hang {
		close(cs.entered)
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": body.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": replies[name], "refusal": nil}}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

// TestKilledMidEvaluation kills the process while the language model is
// evaluating an answer. Nothing is lost: after restart the claim is still
// live (409), and once it has expired the answer is accepted and stored once.
func TestKilledMidEvaluation(t *testing.T) {
	cs := &chatServer{entered: make(chan struct{})}
	llm := httptest.NewServer(cs)
	defer llm.Close()
	s := newService(t, "LLM_BASE_URL="+llm.URL+"/v1", "LLM_API_KEY=test-key", "LLM_MODEL=test-model")
	s.start()
	if cfg := s.must("GET", "/api/config", nil, 200); cfg["mode"] != "language-model" {
		t.Fatalf("config %v", cfg)
	}
	sid, qid := s.signUpAndStart(2)
	answer := map[string]string{"sessionId": sid, "questionId": qid, "answer": "A token bucket per key in Redis."}

	cs.mu.Lock()
	cs.hang = true
	cs.mu.Unlock()
	inflight := make(chan int, 1)
	go func() { st, _ := s.call("POST", "/api/interview/answer", answer); inflight <- st }()
	select {
	case <-cs.entered:
	case <-time.After(15 * time.Second):
		t.Fatal("evaluation never reached the model")
	}
	s.kill()
	if st := <-inflight; st != 0 {
		t.Fatalf("in-flight answer got status %d from a killed process", st)
	}
	cs.mu.Lock()
	cs.hang = false
	cs.mu.Unlock()

	s.start()
	s.must("POST", "/api/interview/answer", answer, 409) // the dead process's claim is still live
	// Let the claim age past 2 minutes without waiting for them.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE interviews SET answer_claimed_at = answer_claimed_at - interval '121 seconds' WHERE id = $1`, sid); err != nil {
		t.Fatal(err)
	}
	a := s.must("POST", "/api/interview/answer", answer, 200)
	if a["nextQuestion"] == nil {
		t.Fatalf("answer %v", a)
	}
	sess := s.must("GET", "/api/interview/"+sid, nil, 200)
	if results := sess["questionResults"].([]any); len(results) != 1 {
		t.Fatalf("%d results, want exactly 1", len(results))
	}
}
