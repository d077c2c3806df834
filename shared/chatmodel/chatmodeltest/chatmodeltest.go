// Package chatmodeltest writes chat completion replies in OpenAI's wire
// format for the fake models of tests.
package chatmodeltest

import (
	"encoding/json"
	"math"
	"net/http"
	"time"
)

// Token is a candidate for the reply's one generated token and its
// probability.
type Token struct {
	Text string
	P    float64
}

// Logprobs is the body of a chat completion from model whose one generated
// token is top[0], carrying top as its top_logprobs (natural logarithms of
// each P), after a prompt of promptTokens tokens.
func Logprobs(model string, promptTokens int, top ...Token) []byte {
	lp := func(t Token) map[string]any {
		return map[string]any{"token": t.Text, "logprob": math.Log(t.P), "bytes": []byte(t.Text)}
	}
	tops := make([]any, len(top))
	for i, t := range top {
		tops[i] = lp(t)
	}
	head := lp(top[0])
	head["top_logprobs"] = tops
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message":  map[string]any{"role": "assistant", "content": top[0].Text, "refusal": nil},
			"logprobs": map[string]any{"content": []any{head}, "refusal": nil}}},
		"usage": map[string]any{"prompt_tokens": promptTokens, "completion_tokens": 1, "total_tokens": promptTokens + 1},
	})
	return b
}

// WriteLogprobs answers a call with Logprobs.
func WriteLogprobs(w http.ResponseWriter, model string, promptTokens int, top ...Token) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(Logprobs(model, promptTokens, top...))
}
