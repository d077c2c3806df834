package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/deploy/harness"
	"github.com/judgeworks/shared/proctest"
)

// Helpers of the fault, load and security suites (faults_test.go,
// load_test.go, security_test.go): the binaries built from source, the
// stack from package harness with test clean-up, and a fake language-model
// provider.

// Import paths of the two services, built by proctest.Build once per test
// process: no test runs a stale binary from bin/.
const (
	judgePkg     = "github.com/judgeworks/judge/cmd/judge"
	interviewPkg = "github.com/judgeworks/interview/cmd/interview"
)

// startSuiteStack starts cfg's stack for t, stopping it when t ends and
// showing the end of every process's output if t failed.
func startSuiteStack(t *testing.T, cfg harness.Config) *harness.Stack {
	t.Helper()
	if cfg.Root == "" {
		cfg.Root = repoRoot(t)
	}
	if cfg.Work == "" {
		cfg.Work = t.TempDir()
	}
	if cfg.JudgeKeys == "" {
		cfg.JudgeKeys = judgeKey
	}
	cfg.JudgeBin, cfg.InterviewBin = proctest.Build(t, judgePkg), proctest.Build(t, interviewPkg)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := harness.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	proctest.Cleanup(t, s.Procs()...)
	return s
}

// startSuitePostgres starts a Postgres of the test's own (password may be
// empty), stopped and removed when t ends.
func startSuitePostgres(t *testing.T, password string) *harness.Postgres {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pg, err := harness.StartPostgres(ctx, password)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- postgres output (last %d lines):\n%s", proctest.TailLines, proctest.Tail(pg.Output()))
		}
		pg.Close()
	})
	return pg
}

// fakeMode is how the fake provider answers chat calls.
type fakeMode string

const (
	fakeOK        fakeMode = "ok"        // a valid reply, after delay
	fakeHang      fakeMode = "hang"      // no reply until the caller gives up
	fakeError500  fakeMode = "500"       // 500 with an error body
	fakeLimited   fakeMode = "429"       // 429 with retry-after-ms: 50
	fakeMalformed fakeMode = "malformed" // 200 whose content is not the asked JSON
	fakeBadKey    fakeMode = "401"       // 401 quoting the presented key, as providers do
)

// fakeLLM speaks the OpenAI chat-completions and transcription wire
// format. A judge call (probabilities readout, a JSON schema with one
// required number per label) gets 0.7 on the first label and the rest
// shared; an interview call gets the reply named by its schema.
type fakeLLM struct {
	srv *httptest.Server

	mu      sync.Mutex
	mode    fakeMode
	delay   time.Duration
	calls   []fakeCall
	entered chan struct{} // one value per chat call that started (buffered, never blocks)
}

type fakeCall struct {
	Auth        string
	Traceparent string
	Schema      string
	Messages    []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
}

var interviewReplies = map[string]string{
	"opening":    `{"welcome":"Welcome. We will cover backend design.","question":"How would you design a rate limiter for an API?"}`,
	"evaluation": `{"score":72,"technicalAccuracy":75,"communication":65,"feedback":"Solid on token buckets.","strengths":["Named the token bucket"],"improvements":["Discuss shared state"],"scorable":true,"evidence":[],"star":{"situation":false,"task":false,"action":false,"result":false}}`,
	"question":   `{"question":"How do you make a payment endpoint idempotent?"}`,
	"summary":    `{"strengths":["Rate limiting"],"weaknesses":["Distributed state"],"suggestedTopics":["Idempotency keys"],"feedback":"A solid interview."}`,
	// The answers leave no gap worth a follow-up.
	"follow_up":    `{"ask":false,"question":""}`,
	"requirements": `{"requirements":["Design REST APIs in Go","PostgreSQL schema design"]}`,
}

func newFakeLLM(t *testing.T) *fakeLLM {
	f := &fakeLLM{mode: fakeOK, entered: make(chan struct{}, 10000)}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

// base is the LLM_BASE_URL of the fake.
func (f *fakeLLM) base() string { return f.srv.URL + "/v1" }

func (f *fakeLLM) set(mode fakeMode, delay time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode, f.delay, f.calls = mode, delay, nil
	for len(f.entered) > 0 {
		<-f.entered
	}
}

// chatCalls returns the chat calls since the last set.
func (f *fakeLLM) chatCalls() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls...)
}

// waitEntered waits for n chat calls to have started.
func (f *fakeLLM) waitEntered(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-f.entered:
		case <-time.After(20 * time.Second):
			t.Fatal("the model call never reached the fake provider")
		}
	}
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/audio/transcriptions") {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"text":"I would use a token bucket per key."}`)
		return
	}
	var body struct {
		Model          string `json:"model"`
		ResponseFormat struct {
			JSONSchema struct {
				Name   string `json:"name"`
				Schema struct {
					Required []string `json:"required"`
				} `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	mode, delay := f.mode, f.delay
	f.calls = append(f.calls, fakeCall{Auth: r.Header.Get("Authorization"), Traceparent: r.Header.Get("traceparent"), Schema: body.ResponseFormat.JSONSchema.Name, Messages: body.Messages})
	f.mu.Unlock()
	f.entered <- struct{}{}

	w.Header().Set("Content-Type", "application/json")
	switch mode {
	case fakeHang:
		<-r.Context().Done()
		return
	case fakeError500:
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":{"message":"internal server error","type":"server_error"}}`)
		return
	case fakeLimited:
		w.Header().Set("retry-after-ms", "50")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"Rate limit reached for requests","type":"requests"}}`)
		return
	case fakeBadKey:
		w.WriteHeader(http.StatusUnauthorized)
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s.","type":"invalid_request_error","code":"invalid_api_key"}}`, key)
		return
	}
	select {
	case <-time.After(delay):
	case <-r.Context().Done():
		return
	}
	content := "Sure! The probabilities are high."
	if mode == fakeOK {
		content = fakeContent(body.ResponseFormat.JSONSchema.Name, body.ResponseFormat.JSONSchema.Schema.Required)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": body.Model + "-2026-01-01",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content, "refusal": nil}}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

func fakeContent(schema string, labels []string) string {
	if reply, ok := interviewReplies[schema]; ok {
		return reply
	}
	probs := map[string]float64{}
	for i, l := range labels {
		if i == 0 {
			probs[l] = 0.7
		} else {
			probs[l] = 0.3 / float64(len(labels)-1)
		}
	}
	b, _ := json.Marshal(probs)
	return string(b)
}

// llmEnv points a service at the fake provider.
func llmEnv(f *fakeLLM, key string) []string {
	return []string{"LLM_BASE_URL=" + f.base(), "LLM_API_KEY=" + key, "LLM_MODEL=fake-model"}
}

// judgeError is the judge's error body (docs/api.md, "Judge errors").
type judgeError struct {
	Detail struct {
		ErrorType string `json:"error_type"`
		Message   string `json:"message"`
	} `json:"detail"`
}

// noulRequest is a one-question request for model.
func noulRequest(model string) map[string]any {
	return map[string]any{
		"model": model,
		"state": "The card payment failed twice and I was charged double. Refund me now!",
		"questions": map[string]any{
			"refund": map[string]any{"type": "noul", "instructions": "Does the customer ask for a refund?"},
		},
	}
}
