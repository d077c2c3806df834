package chatadapter

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeUpstream is an OpenAI-compatible chat endpoint for tests: it
// records every request body and answers with whatever reply decides.
type fakeUpstream struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []chatCall
	reply func(w http.ResponseWriter, r *http.Request, c chatCall, n int)
}

// chatCall is the part of a chat completion request the tests inspect.
type chatCall struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	MaxTokens      *int            `json:"max_tokens"`
	Logprobs       *bool           `json:"logprobs"`
	TopLogprobs    *int            `json:"top_logprobs"`
	ResponseFormat json.RawMessage `json:"response_format"`
	Auth           string          `json:"-"`
}

// user is the text of the first user message.
func (c chatCall) user() string {
	for _, m := range c.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

func (c chatCall) system() string {
	for _, m := range c.Messages {
		if m.Role == "system" {
			return m.Content
		}
	}
	return ""
}

// question is the user message after the state block.
func (c chatCall) question() string {
	_, q, _ := strings.Cut(c.user(), stateClose)
	return q
}

var entryLine = regexp.MustCompile(`(?m)^([A-Z0-9]+)\) (.*)$`)

// entries lists the labeled lines the call shows, label → text.
func (c chatCall) entries() [][2]string {
	var out [][2]string
	for _, m := range entryLine.FindAllStringSubmatch(c.question(), -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	return out
}

// labelOf returns the label of the entry whose text starts with prefix.
func (c chatCall) labelOf(prefix string) string {
	for _, e := range c.entries() {
		if strings.HasPrefix(e[1], prefix) {
			return e[0]
		}
	}
	return ""
}

func (c chatCall) isLogprobs() bool { return c.Logprobs != nil && *c.Logprobs }

func newFake(t *testing.T, reply func(w http.ResponseWriter, r *http.Request, c chatCall, n int)) *fakeUpstream {
	t.Helper()
	f := &fakeUpstream{reply: reply}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
			return
		}
		var c chatCall
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			t.Errorf("fake upstream: bad request body: %v", err)
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		c.Auth = r.Header.Get("Authorization")
		f.mu.Lock()
		f.calls = append(f.calls, c)
		n := len(f.calls)
		f.mu.Unlock()
		f.reply(w, r, c, n)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeUpstream) url() string { return f.srv.URL + "/v1" }

func (f *fakeUpstream) recorded() []chatCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]chatCall(nil), f.calls...)
}

const fakeSnapshot = "fake-model-2025-06-01"

// top is one entry of top_logprobs, given as a probability.
type top struct {
	token string
	p     float64
}

// writeLogprobs answers in the chat.completion wire format with the
// answer token's top_logprobs.
func writeLogprobs(w http.ResponseWriter, tops ...top) {
	list := make([]map[string]any, len(tops))
	for i, t := range tops {
		list[i] = map[string]any{"token": t.token, "logprob": math.Log(t.p), "bytes": []byte(t.token)}
	}
	first := map[string]any{"token": tops[0].token, "logprob": math.Log(tops[0].p), "bytes": []byte(tops[0].token), "top_logprobs": list}
	writeCompletion(w, tops[0].token, map[string]any{"content": []any{first}, "refusal": nil})
}

// writeContent answers with message content and no logprobs, as a
// provider that does not offer them does.
func writeContent(w http.ResponseWriter, content string) {
	writeCompletion(w, content, nil)
}

func writeCompletion(w http.ResponseWriter, content string, logprobs any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":      "chatcmpl-1",
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   fakeSnapshot,
		"choices": []any{map[string]any{
			"index":         0,
			"finish_reason": "stop",
			"message":       map[string]any{"role": "assistant", "content": content, "refusal": nil},
			"logprobs":      logprobs,
		}},
		"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 1, "total_tokens": 101},
	})
}

func writeError(w http.ResponseWriter, status int, code, message string, headers map[string]string) {
	for k, v := range headers {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"error","param":null,"code":%q}}`, message, code)
}
