package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/budget"
	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/engine/chat"
	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/judge/internal/usage"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// The tests here hold the judge to what a paying caller is charged: every
// upstream call that was sent, whatever happens after (docs/api.md, "Judge:
// keys, budgets and usage"). They run the real chat adapter against a
// local chat-completions server.

// spendKey is the one key of spendJudge, with a budget of 1 USD a day.
const spendKey = "spend-key-0123456789abcdef"

// spendJudge serves the chat engine over upstream as llm-latest at 10
// USD per million input tokens, with slots upstream calls in flight, to
// spendKey. It returns the server and the budgets it charges.
func spendJudge(t *testing.T, upstream *httptest.Server, slots int) (*httptest.Server, *budget.Ledger) {
	t.Helper()
	a, err := chat.New(engine.NewSlots(fairqueue.Config{Slots: slots, Queue: chat.DefaultQueue, MaxWait: time.Minute}, ""),
		chatadapter.WithProvider(upstream.URL+"/v1", "test-key", "fake"),
		chatadapter.WithUpstreamRetries(0, time.Millisecond, time.Millisecond),
		chatadapter.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(spendKey))
	file, err := auth.ParseKeysFile([]byte("keys:\n  - {id: team-a, sha256: " + hex.EncodeToString(sum[:]) + ", budget_usd_per_day: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	none, _ := auth.ParseBearerKeys("")
	keys, err := auth.Join(none, file)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := reg.Add(registry.Model{Name: "llm-1.0", Aliases: []string{"llm-latest"}, Backend: a, NameFromBackend: true, PricePerMillion: 10}); err != nil {
		t.Fatal(err)
	}
	budgets := budget.New(budget.Settings{})
	limits := unlimited
	limits.IDs = keyIDs(keys)
	srv := httptest.NewServer(New(slog.New(slog.DiscardHandler), Deps{
		Keys: keys, Limiter: ratelimit.New(context.Background(), limits), Registry: reg, Metrics: metrics.New(),
		Tokens: tokens.Default(), Budgets: budgets, Usage: usage.New(usage.Settings{Logger: slog.New(slog.DiscardHandler)}),
	}))
	t.Cleanup(srv.Close)
	return srv, budgets
}

// today is the caller's use today, as GET /v1/usage reports it.
func today(t *testing.T, srv *httptest.Server) usage.Period {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/usage", nil)
	req.Header.Set("Authorization", "Bearer "+spendKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Today usage.Period }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/usage: %d, %v", resp.StatusCode, err)
	}
	return out.Today
}

// settled waits until the usage shows a request ended, answered or not.
func settled(t *testing.T, srv *httptest.Server) usage.Period {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p := today(t, srv)
		if p.Requests+p.Unanswered > 0 || time.Now().After(deadline) {
			return p
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// perCall is the fewest input tokens one call of a nouls request sends.
func perCall(t *testing.T) int {
	t.Helper()
	var req systemone.Request
	if err := json.Unmarshal([]byte(nouls(1)), &req); err != nil {
		t.Fatal(err)
	}
	a, err := chatadapter.New(chatadapter.WithProvider("http://127.0.0.1:1/v1", "k", "fake"), chatadapter.WithReadout(chatadapter.ReadoutLogprobs))
	if err != nil {
		t.Fatal(err)
	}
	return a.PlannedInputTokens(req)
}

// TestHangUpIsCharged: a caller that hangs up once its request's calls
// are under way against a slow model is charged every call that was sent,
// on its budget and in its usage (as a request not answered). Before, the
// whole reservation was handed back: the calls were free.
func TestHangUpIsCharged(t *testing.T) {
	var received atomic.Int64
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		received.Add(1)
		select {
		case <-time.After(time.Minute):
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(chatReply)
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	srv, budgets := spendJudge(t, slow, 4)

	ctx, hangUp := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := send(ctx, http.DefaultClient, srv.URL, spendKey, nouls(12)); done <- err }()
	for deadline := time.Now().Add(30 * time.Second); received.Load() < 4; {
		if time.Now().After(deadline) {
			t.Fatalf("the model received %d calls, want the 4 slots' worth", received.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	hangUp()
	<-done

	p := settled(t, srv)
	calls := received.Load()
	t.Logf("model received %d calls; usage %+v", calls, p.Totals)
	if p.Unanswered != 1 || p.Requests != 0 {
		t.Fatalf("usage shows %d answered and %d unanswered requests, want the hung-up one unanswered", p.Requests, p.Unanswered)
	}
	if min := calls * int64(perCall(t)); p.InputTokens < min {
		t.Errorf("charged %d input tokens for %d calls sent, want at least %d (each call's prompt)", p.InputTokens, calls, min)
	}
	if p.InputTokens > int64(12*perCall(t)*2) {
		t.Errorf("charged %d input tokens, more than the 12 calls could send", p.InputTokens)
	}
	if p.CostUSD <= 0 {
		t.Errorf("cost %v, want the calls sent priced", p.CostUSD)
	}
	day, _, err := budgets.Spent(context.Background(), "team-a")
	if err != nil || day < p.CostUSD-1e-9 {
		t.Errorf("budget spent %v (err %v), want the %v the calls cost", day, err, p.CostUSD)
	}
	if calls >= 12 {
		t.Errorf("the model received all %d calls: hanging up did not cancel the calls not yet sent", calls)
	}
}

// TestFailedRequestIsCharged: a request whose last call fails after the
// others were answered is charged every call sent, the failed one at its
// prompt's count, and counted as not answered.
func TestFailedRequestIsCharged(t *testing.T) {
	var answered atomic.Int64
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), "(5)") {
			// Fails after the others were answered: a refusal of its own.
			time.Sleep(200 * time.Millisecond)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error": {"message": "this call is refused", "type": "invalid_request_error"}}`))
			return
		}
		answered.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(chatReply)
	}))
	t.Cleanup(model.Close)
	srv, _ := spendJudge(t, model, 16)
	r, err := send(context.Background(), http.DefaultClient, srv.URL, spendKey, nouls(6))
	if err != nil {
		t.Fatal(err)
	}
	if r.status == http.StatusOK {
		t.Fatal("a request whose call was refused was answered")
	}
	p := settled(t, srv)
	t.Logf("status %d; %d calls answered; usage %+v", r.status, answered.Load(), p.Totals)
	if p.Unanswered != 1 {
		t.Fatalf("usage shows %d unanswered requests, want 1", p.Unanswered)
	}
	// Each answered call reported 100 prompt tokens; the refused one is
	// counted here.
	if want := 100*answered.Load() + int64(perCall(t)); p.InputTokens < want {
		t.Errorf("charged %d input tokens, want at least %d: the %d answered calls and the refused one", p.InputTokens, want, answered.Load())
	}
}

// TestUntrustworthyTokenCounts: a provider that reports a negative, absurd
// or no prompt count makes no call free, no figure negative and no answer
// a 500: the call is charged its prompt as counted here.
func TestUntrustworthyTokenCounts(t *testing.T) {
	for _, usageJSON := range []string{
		`{"prompt_tokens": -500000, "completion_tokens": -3}`,
		`{"prompt_tokens": 9000000000000, "completion_tokens": 1}`,
		`null`,
	} {
		t.Run(usageJSON, func(t *testing.T) {
			var reply map[string]any
			_ = json.Unmarshal(chatReply, &reply)
			reply["usage"] = json.RawMessage(usageJSON)
			body, _ := json.Marshal(reply)
			model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(body)
			}))
			t.Cleanup(model.Close)
			srv, _ := spendJudge(t, model, 4)
			for i := range 2 {
				r, err := send(context.Background(), http.DefaultClient, srv.URL, spendKey, nouls(2))
				if err != nil || r.status != http.StatusOK {
					t.Fatalf("request %d: %d, %v; want 200", i, r.status, err)
				}
			}
			p := today(t, srv)
			if p.Requests != 2 || p.InputTokens < int64(4*perCall(t)) || p.InputTokens > int64(8*perCall(t)) || p.OutputTokens < 0 || p.CostUSD <= 0 {
				t.Errorf("usage %+v; want 2 requests charged their 4 calls' prompts (%d tokens each)", p.Totals, perCall(t))
			}
		})
	}
}

// TestMetricLabelsAreTheRegistrysModels: a provider that names a new model
// in every reply adds no series; the metrics name the registry's model.
func TestMetricLabelsAreTheRegistrysModels(t *testing.T) {
	var n atomic.Int64
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		var reply map[string]any
		_ = json.Unmarshal(chatReply, &reply)
		reply["model"] = fmt.Sprintf("fake-snapshot-%d", n.Add(1))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(reply)
	}))
	t.Cleanup(model.Close)
	srv, _ := spendJudge(t, model, 4)
	series := func() int {
		resp, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if strings.Contains(string(b), "fake-snapshot") {
			t.Fatalf("an upstream's model name is a label:\n%s", b)
		}
		return strings.Count(string(b), `model="`)
	}
	post := func() {
		if r, err := send(context.Background(), http.DefaultClient, srv.URL, spendKey, nouls(1)); err != nil || r.status != http.StatusOK {
			t.Fatalf("%d, %v", r.status, err)
		}
	}
	post()
	before := series()
	for range 20 {
		post()
	}
	if after := series(); after != before {
		t.Errorf("20 answers from as many upstream snapshots took the model series from %d to %d", before, after)
	}
}
