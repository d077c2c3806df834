package api

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/judgeworks/judge/internal/lexical"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/shared/auth"
	"github.com/judgeworks/shared/tokens"
)

// BenchmarkSystemOne measures one request through the whole HTTP layer in
// process (decode, validate, count tokens, answer, encode) on the offline
// engine with the real tokenizer.
func BenchmarkSystemOne(b *testing.B) {
	keys, _ := auth.ParseBearerKeys("k")
	reg := registry.New(tokens.Default())
	if err := reg.Add(registry.Model{Name: lexical.Name, Aliases: []string{lexical.Alias}, Backend: lexical.Engine{}}); err != nil {
		b.Fatal(err)
	}
	e := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Deps{
		Keys: keys, Limiter: ratelimit.New(1<<30, []int{1}), Registry: reg, Metrics: metrics.New(), Tokens: tokens.Default(),
	})
	for _, n := range []int{1, 10, 100} {
		qs := map[string]any{}
		for i := range n {
			qs[fmt.Sprintf("q%d", i)] = map[string]any{"type": "choice", "instructions": "Which team should handle it?",
				"criteria": map[string]string{"billing": "Payments, invoices, refunds and charges", "technical": "Bugs, errors, crashes"}}
		}
		body, _ := json.Marshal(map[string]any{"model": lexical.Alias, "questions": qs,
			"state": "I was charged twice for my subscription and I am furious. The app crashed too. Please refund me."})
		b.Run(fmt.Sprintf("questions=%d", n), func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/v1/systemone", strings.NewReader(string(body)))
				req.Header.Set("Authorization", "Bearer k")
				rec := httptest.NewRecorder()
				e.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
