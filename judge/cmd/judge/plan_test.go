package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/limits"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// countingChat is an OpenAI-compatible chat endpoint that counts the input
// tokens it receives (every message, with shared/tokens). It gives no
// logprobs, so a chat engine in auto mode runs every question twice: the
// most expensive path a chat engine takes.
type countingChat struct {
	srv  *httptest.Server
	mu   sync.Mutex
	sent int
}

func newCountingChat(t *testing.T) *countingChat {
	t.Helper()
	c := &countingChat{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
			Logprobs bool                       `json:"logprobs"`
			Format   *struct {
				JSONSchema struct {
					Schema struct {
						Properties map[string]any `json:"properties"`
					} `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		n := 0
		for _, m := range req.Messages {
			n += tokens.Default().Count(m.Content)
		}
		c.mu.Lock()
		c.sent += n
		c.mu.Unlock()
		content := "A" // a logprobs call, answered without any
		if !req.Logprobs && req.Format != nil {
			even := map[string]float64{}
			for label := range req.Format.JSONSchema.Schema.Properties {
				even[label] = 1 / float64(len(req.Format.JSONSchema.Schema.Properties))
			}
			b, _ := json.Marshal(even)
			content = string(b)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"model": "counting-2026", "created": time.Now().Unix(),
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
			"usage":   map[string]any{"prompt_tokens": n, "completion_tokens": 5},
		})
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *countingChat) received() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent
}

// Every registered model, whatever wraps its engine (the LLM_* model, a
// models-file fallback over several chat providers, System One and
// Decisions providers, the offline engines), is charged before any call at
// least what it then sends upstream, on the most expensive path: a chat
// provider without logprobs, which answers every question twice.
func TestEveryModelPlansWhatItSends(t *testing.T) {
	chat := newCountingChat(t)
	other := newCountingChat(t)
	peer := fakePeer(t)
	models := writeModels(t, `models:
  - name: chats-1.0
    providers:
      - {api: chat, base_url: "`+chat.srv.URL+`/v1", api_key_env: CHAT_KEY, model: counting}
      - {api: chat, base_url: "`+other.srv.URL+`/v1", api_key_env: CHAT_KEY, model: counting}
  - name: peer-1.0
    providers:
      - {api: systemone, base_url: "`+peer.URL+`", api_key_env: PEER_KEY, model: local/semantic-latest}
      - {api: chat, base_url: "`+other.srv.URL+`/v1", api_key_env: CHAT_KEY, model: counting}
`)
	cfg, err := loadConfig(env(map[string]string{"JUDGE_API_KEYS": "k", "JUDGE_MODELS_FILE": models,
		"CHAT_KEY": "local", "PEER_KEY": "peer",
		"LLM_BASE_URL": chat.srv.URL + "/v1", "LLM_API_KEY": "local", "LLM_MODEL": "counting"}))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := newRegistry(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	req := systemone.Request{Model: "any", State: json.RawMessage(`"I was charged twice for my subscription and I want my money back today."`),
		Questions: map[string]systemone.Question{
			"refund": {Type: systemone.TypeNoul, Instructions: json.RawMessage(`"Is the customer asking for a refund?"`)},
			"team": {Type: systemone.TypeChoice, Instructions: json.RawMessage(`"Which team?"`),
				Options: []systemone.Option{{Name: "billing"}, {Name: "technical"}, {Name: "sales"}}},
			"anger": {Type: systemone.TypeScore, Instructions: json.RawMessage(`"How angry?"`), Levels: systemone.Texts("calm", "annoyed", "furious")},
		}}
	checked, err := limits.Check(req, tokens.Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.Models()) < 5 {
		t.Fatalf("%d models registered, want the offline engines, llm-1.0 and the file's two", len(reg.Models()))
	}
	for _, m := range reg.Models() {
		t.Run(m.Name, func(t *testing.T) {
			planned := reg.PlannedInputTokens(m, checked)
			if own := checked.Tokens; planned < own {
				t.Fatalf("planned %d input tokens, fewer than the request's own %d", planned, own)
			}
			before := chat.received() + other.received()
			if _, _, err := reg.Ask(context.Background(), m, checked); err != nil {
				t.Fatal(err)
			}
			if sent := chat.received() + other.received() - before; planned < sent {
				t.Fatalf("planned %d input tokens, the chat upstreams received %d", planned, sent)
			}
		})
	}
}
