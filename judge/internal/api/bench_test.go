package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/engine/lexical"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/shared/redistest"
	"github.com/judgeworks/shared/tokens"
)

// BenchmarkSystemOne measures one request through the whole HTTP layer in
// process (limits, decode, validate, count tokens, answer, encode) on the
// lexical engine with the real tokenizer, with the limits in process and in
// a local Redis (one round trip for the request bucket, one for tokens).
func BenchmarkSystemOne(b *testing.B) {
	keys, _ := auth.ParseBearerKeys("k")
	reg := registry.New()
	if err := reg.Add(registry.Model{Name: lexical.Name, Aliases: []string{lexical.Alias}, Backend: lexical.Engine{}}); err != nil {
		b.Fatal(err)
	}
	srv := redistest.New(b)
	for _, store := range []string{"process", "redis"} {
		limits := ratelimit.Settings{RPM: 1 << 30, TPM: 1 << 40, IDs: keyIDs(keys)}
		if store == "redis" {
			limits.Store = onRedis(b, srv.URL(), "", 0)
		}
		e := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Deps{
			Keys: keys, Limiter: ratelimit.New(context.Background(), limits), Registry: reg, Metrics: metrics.New(), Tokens: tokens.Default(),
		})
		for _, n := range []int{1, 10, 100} {
			if store == "redis" && n != 1 {
				continue // the limits cost the same whatever the request holds
			}
			qs := map[string]any{}
			for i := range n {
				qs[fmt.Sprintf("q%d", i)] = map[string]any{"type": "choice", "instructions": "Which team should handle it?",
					"criteria": map[string]string{"billing": "Payments, invoices, refunds and charges", "technical": "Bugs, errors, crashes"}}
			}
			body, _ := json.Marshal(map[string]any{"model": lexical.Alias, "questions": qs,
				"state": "I was charged twice for my subscription and I am furious. The app crashed too. Please refund me."})
			b.Run(fmt.Sprintf("limits=%s/questions=%d", store, n), func(b *testing.B) {
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
}
