package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/budget"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/judge/internal/store/redis"
	"github.com/judgeworks/judge/internal/usage"
)

// TestUsageUnreadable: when what a key used or spent cannot be read, GET
// /v1/usage answers 503 with Retry-After rather than figures it does not
// have; what was spent is read only for a key with a budget.
func TestUsageUnreadable(t *testing.T) {
	down, err := redis.Open("redis://127.0.0.1:1/0", redis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { down.Close() })
	digest := func(s string) string { sum := sha256.Sum256([]byte(s)); return hex.EncodeToString(sum[:]) }
	file, err := auth.ParseKeysFile([]byte("keys:\n" +
		"  - {id: capped, sha256: " + digest("capped-key-0123456789") + ", budget_usd_per_day: 1}\n" +
		"  - {id: open, sha256: " + digest("open-key-0123456789") + "}\n"))
	if err != nil {
		t.Fatal(err)
	}
	none, err := auth.ParseBearerKeys("")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := auth.Join(none, file)
	if err != nil {
		t.Fatal(err)
	}
	get := func(t *testing.T, srv *httptest.Server, key string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/usage", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	serveWith := func(d Deps) *httptest.Server {
		d.Keys, d.Registry, d.Metrics = keys, registry.New(), metrics.New()
		d.Limiter = ratelimit.New(context.Background(), ratelimit.Settings{RPM: 1000, TPM: 1_000_000, IDs: keyIDs(keys)})
		srv := httptest.NewServer(New(slog.New(slog.DiscardHandler), d))
		t.Cleanup(srv.Close)
		return srv
	}

	t.Run("usage unreadable", func(t *testing.T) {
		srv := serveWith(Deps{Usage: usage.New(usage.Settings{Store: down, Logger: slog.New(slog.DiscardHandler)})})
		for _, key := range []string{"capped-key-0123456789", "open-key-0123456789"} {
			if r := get(t, srv, key); r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
				t.Errorf("%s: %d, Retry-After %q; want 503 with Retry-After", key, r.StatusCode, r.Header.Get("Retry-After"))
			}
		}
	})
	t.Run("spending unreadable", func(t *testing.T) {
		srv := serveWith(Deps{Budgets: budget.New(budget.Settings{Store: down})})
		if r := get(t, srv, "capped-key-0123456789"); r.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("a key with a budget: %d, want 503", r.StatusCode)
		}
		if r := get(t, srv, "open-key-0123456789"); r.StatusCode != http.StatusOK {
			t.Errorf("a key without a budget: %d, want 200", r.StatusCode)
		}
	})
}
