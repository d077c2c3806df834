package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/engine/chat"
	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/server"
	"github.com/judgeworks/shared/systemone"
)

// failing is a backend that fails with err.
type failing struct{ err error }

func (f failing) Ask(context.Context, systemone.Request) (*systemone.Response, error) {
	return nil, f.err
}

type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s) }

func serve(t *testing.T, backend engine.Engine) *httptest.Server {
	t.Helper()
	return serveLogging(t, backend, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func serveLogging(t *testing.T, backend engine.Engine, logger *slog.Logger) *httptest.Server {
	t.Helper()
	keys, err := auth.ParseBearerKeys("k")
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := reg.Add(registry.Model{Name: "m-1", Aliases: []string{"m-latest"}, Backend: backend}); err != nil {
		t.Fatal(err)
	}
	e := New(logger, Deps{
		Keys: keys, Limiter: ratelimit.New(context.Background(), ratelimit.Settings{RPM: 1000, TPM: 1_000_000, IDs: keyIDs(keys)}),
		Registry: reg, Metrics: metrics.New(), Tokens: byteCounter{},
	})
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv
}

const body = `{"model": "m-latest", "state": "s", "questions": {"q": {"type": "noul", "instructions": "i"}}}`

func TestBackendErrors(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		status     int
		kind       string
		message    string // substring; "" = any
		retryAfter string // "" = header absent
	}{
		{"stray error hides its text", errors.New("dial tcp 10.0.0.7:5432: password=hunter2"),
			500, "internal", "internal error", ""},
		{"wrapped stray error", fmt.Errorf("calling: %w", errors.New("secret")), 500, "internal", "internal error", ""},
		{"deliberate fault", fault.Retry(fault.Overloaded, 1500*time.Millisecond, "busy"), 529, "overloaded", "busy", "2"},
		{"deadline", context.DeadlineExceeded, 529, "overloaded", "in time", "1"},
		{"caller gone", fmt.Errorf("request canceled: %w", context.Canceled), 529, "overloaded", "canceled", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, failing{tt.err})
			resp := post(t, srv.URL, "k", body)
			raw := resp.body
			var got errorBody
			if err := json.Unmarshal([]byte(raw), &got); err != nil {
				t.Fatalf("body %s: %v", raw, err)
			}
			if resp.status != tt.status || got.Detail.ErrorType != tt.kind || !strings.Contains(got.Detail.Message, tt.message) {
				t.Errorf("got %d %s, want %d %s containing %q", resp.status, raw, tt.status, tt.kind, tt.message)
			}
			if h := resp.header.Get("Retry-After"); h != tt.retryAfter {
				t.Errorf("Retry-After = %q, want %q", h, tt.retryAfter)
			}
			if strings.Contains(raw, "hunter2") || strings.Contains(raw, "secret") {
				t.Errorf("internal text leaked: %s", raw)
			}
			if resp.header.Get("x-request-id") == "" {
				t.Error("no x-request-id")
			}
		})
	}
}

func TestCeilMillis(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want int64
	}{{0, 0}, {time.Nanosecond, 1}, {time.Millisecond, 1}, {1500 * time.Microsecond, 2}, {30 * time.Second, 30000}}
	for _, tt := range tests {
		if got := ceilMillis(tt.d); got != tt.want {
			t.Errorf("ceilMillis(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

// The chat engine's failures reach the client as the judge's statuses,
// from a real adapter against a local provider.
func TestChatAdapterFailures(t *testing.T) {
	tests := []struct {
		name     string
		status   int // the provider's
		want     int
		kind     string
		contains string
	}{
		{"provider refuses the key", http.StatusUnauthorized, http.StatusBadGateway, "upstream_misconfigured", "LLM_API_KEY"},
		{"provider keeps failing", http.StatusInternalServerError, 529, "overloaded", "provider 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				fmt.Fprint(w, `{"error":{"message":"no: sk-provider-secret","type":"error","code":"x"}}`)
			}))
			t.Cleanup(provider.Close)
			adapter, err := chat.New(engine.NewSlots(fairqueue.Config{Slots: 4, Queue: 4}, ""),
				chatadapter.WithProvider(provider.URL+"/v1", "sk-provider-secret", "m"),
				chatadapter.WithUpstreamRetries(1, time.Millisecond, time.Millisecond),
				chatadapter.WithLogger(slog.New(slog.DiscardHandler)))
			if err != nil {
				t.Fatal(err)
			}
			srv := serve(t, adapter)
			resp := post(t, srv.URL, "k", body)
			raw := resp.body
			var got errorBody
			if err := json.Unmarshal([]byte(raw), &got); err != nil {
				t.Fatalf("body %s: %v", raw, err)
			}
			if resp.status != tt.want || got.Detail.ErrorType != tt.kind || !strings.Contains(got.Detail.Message, tt.contains) {
				t.Errorf("got %d %s, want %d %s containing %q", resp.status, raw, tt.want, tt.kind, tt.contains)
			}
			if strings.Contains(raw, "sk-provider-secret") {
				t.Errorf("the provider key leaked: %s", raw)
			}
		})
	}
}

// loggingBackend logs through the request's context, as domain code does.
type loggingBackend struct{}

func (loggingBackend) Ask(ctx context.Context, _ systemone.Request) (*systemone.Response, error) {
	server.LoggerFrom(ctx).Info("backend asked")
	return nil, fault.New(fault.Upstream, "no answer")
}

// Code that logs through the request's context gets the logger that
// authentication enriched with the key's position (never the key).
func TestContextLoggerNamesTheKey(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	srv := serveLogging(t, loggingBackend{}, slog.New(slog.NewJSONHandler(lockedWriter{&mu, &logs}, nil)))
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/systemone", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("x-request-id")
	mu.Lock()
	defer mu.Unlock()
	var line string
	for l := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(l, `"msg":"backend asked"`) {
			line = l
		}
	}
	keys, _ := auth.ParseBearerKeys("k")
	if !strings.Contains(line, `"key":"`+keys.All()[0].String()+`"`) || !strings.Contains(line, `"request_id":"`+id+`"`) {
		t.Fatalf("backend's log line %q lacks the key's name or the request id", line)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (failing) PlannedInputTokens(_ systemone.Request, tokens int) int { return tokens }

func (loggingBackend) PlannedInputTokens(_ systemone.Request, tokens int) int { return tokens }

// keyIDs are the identities of keys, for their rate-limit buckets.
func keyIDs(keys *auth.BearerKeys) []string {
	var ids []string
	for _, k := range keys.All() {
		ids = append(ids, k.ID)
	}
	return ids
}
