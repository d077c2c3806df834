package chat

import (
	"encoding/json"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/engine/enginetest"
	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/shared/chatadapter"
)

// entry is a labelled line of a prompt: "A) billing: ...".
var entry = regexp.MustCompile(`(?m)^([A-Z0-9]+)\) `)

// biasedChat is an OpenAI-compatible chat endpoint that answers every call
// with logprobs over the labels the prompt shows (yes and no when it
// shows none), favouring the labels shown first, as real models do.
func biasedChat(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&body) != nil || len(body.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		var labels []string
		for _, m := range entry.FindAllStringSubmatch(body.Messages[len(body.Messages)-1].Content, -1) {
			labels = append(labels, m[1])
		}
		if len(labels) == 0 {
			labels = []string{"yes", "no"}
		}
		tops := make([]map[string]any, len(labels))
		for i, l := range labels {
			tops[i] = map[string]any{"token": l, "logprob": math.Log(0.5 / float64(i+1)), "bytes": []byte(l)}
		}
		first := map[string]any{"token": labels[0], "logprob": tops[0]["logprob"], "bytes": []byte(labels[0]), "top_logprobs": tops}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": time.Now().Unix(), "model": "biased-2026-01-01",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message":  map[string]any{"role": "assistant", "content": labels[0], "refusal": nil},
				"logprobs": map[string]any{"content": []any{first}, "refusal": nil}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 1, "total_tokens": 101},
		})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// The chat engine obeys the laws of every engine against a model biased
// to the top of a list.
func TestConformance(t *testing.T) {
	e, err := New(engine.NewSlots(fairqueue.Config{Slots: DefaultConcurrency, Queue: DefaultQueue, MaxWait: DefaultMaxWait}, ""),
		chatadapter.WithProvider(biasedChat(t), "sk-test", "biased"),
		chatadapter.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	enginetest.Run(t, e)
}
