package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/cache"
	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/engine/chat"
	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/redistest"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// The tests here run the answer cache in the judge's HTTP layer, with the
// real chat adapter against a local chat-completions model that counts
// its calls.

// cachingJudge serves model as llm-1.0 (alias llm-latest)
// to the keys key1 and key2 with the answer cache c.
func cachingJudge(t *testing.T, model *chatModel, c *cache.Cache) *httptest.Server {
	t.Helper()
	a, err := chat.New(engine.NewSlots(fairqueue.Config{Slots: 4, Queue: chat.DefaultQueue, MaxWait: chat.DefaultMaxWait}, ""),
		chatadapter.WithProvider(model.srv.URL+"/v1", "test-key", "fake"),
		chatadapter.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	ks, err := auth.ParseBearerKeys("key1,key2")
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := reg.Add(registry.Model{Name: "llm-1.0", Aliases: []string{"llm-latest"}, Backend: a, NameFromBackend: true, PricePerMillion: 0.042}); err != nil {
		t.Fatal(err)
	}
	e := New(slog.New(slog.DiscardHandler), Deps{
		Keys: ks, Registry: reg, Metrics: metrics.New(), Tokens: tokens.Default(), Cache: c,
		Limiter: ratelimit.New(context.Background(), ratelimit.Settings{RPM: 1000, TPM: 1_000_000, IDs: keyIDs(ks)}),
	})
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv
}

func newCache(t *testing.T, s cache.Settings) *cache.Cache {
	t.Helper()
	return cache.New(context.Background(), s)
}

// cacheAnswer is one request as a client of the cache sees it.
type cacheAnswer struct {
	status  int
	header  http.Header
	resp    systemone.Response
	raw     string
	calls   int64 // the model's calls this request made
	tokens  int   // x-ratelimit-remaining-tokens
	request int   // x-ratelimit-remaining-requests
}

func askCached(t *testing.T, srv *httptest.Server, model *chatModel, key, body string, header ...string) cacheAnswer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/systemone", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	before := model.calls.Load()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := cacheAnswer{status: resp.StatusCode, header: resp.Header, raw: string(raw), calls: model.calls.Load() - before}
	if a.status != http.StatusOK {
		t.Fatalf("%s: %d %s", key, a.status, raw)
	}
	if err := json.Unmarshal(raw, &a.resp); err != nil {
		t.Fatal(err)
	}
	_, a.tokens, _ = limitHeaders(t, resp.Header, "tokens")
	_, a.request, _ = limitHeaders(t, resp.Header, "requests")
	return a
}

const cachedBody = `{"model": "llm-latest", "state": "My invoice is wrong and I am furious.", "questions": {
  "angry": {"type": "noul", "instructions": "Is the customer angry?"},
  "team": {"type": "choice", "instructions": "Which team?", "criteria": {"billing": "Payments", "tech": "Bugs"}}}}`

// TestCacheAnswersARepeat: a repeat from the same key is answered from the
// cache with no model call, no token charge and no usage, but takes a
// request; the same request from another key asks the model.
func TestCacheAnswersARepeat(t *testing.T) {
	model := newChatModel(t, 0)
	srv := cachingJudge(t, model, newCache(t, cache.Settings{TTL: time.Hour}))
	first := askCached(t, srv, model, "key1", cachedBody)
	if first.calls == 0 || first.header.Get(cache.Header) != cache.Miss || first.resp.Usage.Cost == 0 {
		t.Fatalf("first: %d calls, %s %q, usage %+v", first.calls, cache.Header, first.header.Get(cache.Header), first.resp.Usage)
	}
	again := askCached(t, srv, model, "key1", cachedBody)
	if again.calls != 0 || again.header.Get(cache.Header) != cache.Hit {
		t.Errorf("repeat: %d calls, %s %q; want a hit with no call", again.calls, cache.Header, again.header.Get(cache.Header))
	}
	if again.resp.Usage != (systemone.Usage{}) || again.resp.Model != first.resp.Model || again.resp.Model != "llm-1.0/fake-2025" {
		t.Errorf("repeat: model %q usage %+v; want the first's exact model and no usage", again.resp.Model, again.resp.Usage)
	}
	if strings.Join(again.resp.Names(), ",") != "angry,team" || again.resp.Answers["team"].Choice != first.resp.Answers["team"].Choice {
		t.Errorf("repeat answers %s, first %s", again.raw, first.raw)
	}
	// No tokens taken (the bucket only refills meanwhile), one request taken.
	if again.tokens < first.tokens || again.request >= first.request {
		t.Errorf("repeat left %d tokens and %d requests; the first left %d and %d", again.tokens, again.request, first.tokens, first.request)
	}
	// The key's usage counts the hit as a request of no tokens and no cost.
	ureq, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/usage", nil)
	ureq.Header.Set("Authorization", "Bearer key1")
	uresp, err := http.DefaultClient.Do(ureq)
	if err != nil {
		t.Fatal(err)
	}
	var use struct {
		Today struct {
			Requests    int64   `json:"requests"`
			InputTokens int64   `json:"input_tokens"`
			CostUSD     float64 `json:"cost_usd"`
		} `json:"today"`
	}
	err = json.NewDecoder(uresp.Body).Decode(&use)
	uresp.Body.Close()
	if err != nil || use.Today.Requests != 2 || use.Today.InputTokens != int64(first.resp.Usage.InputTokens) ||
		math.Abs(use.Today.CostUSD-first.resp.Usage.Cost) > 1e-9 {
		t.Errorf("usage after a miss and a hit: %+v (%v); want 2 requests, the miss's tokens and cost (%+v)", use.Today, err, first.resp.Usage)
	}
	// The same canonical request: the model by its exact name rather than
	// its alias, the options in another order.
	reordered := strings.Replace(strings.Replace(cachedBody, `"billing": "Payments", "tech": "Bugs"`, `"tech": "Bugs", "billing": "Payments"`, 1),
		"llm-latest", "llm-1.0", 1)
	if r := askCached(t, srv, model, "key1", reordered); r.calls != 0 || r.header.Get(cache.Header) != cache.Hit {
		t.Errorf("exact name, options reordered: %d calls, %q; want a hit", r.calls, r.header.Get(cache.Header))
	}
	// Another state is another request.
	if r := askCached(t, srv, model, "key1", strings.Replace(cachedBody, "furious", "calm", 1)); r.calls == 0 || r.header.Get(cache.Header) != cache.Miss {
		t.Errorf("another state: %d calls, %q; want a miss", r.calls, r.header.Get(cache.Header))
	}
	// Never across keys.
	other := askCached(t, srv, model, "key2", cachedBody)
	if other.calls == 0 || other.header.Get(cache.Header) != cache.Miss || other.resp.Usage.InputTokens == 0 {
		t.Errorf("another key: %d calls, %q, usage %+v; want its own miss", other.calls, other.header.Get(cache.Header), other.resp.Usage)
	}
}

// TestCacheNoCacheAsksAgain: Cache-Control: no-cache asks the model, and
// its fresh answer serves the next repeat.
func TestCacheNoCacheAsksAgain(t *testing.T) {
	model := newChatModel(t, 0)
	srv := cachingJudge(t, model, newCache(t, cache.Settings{TTL: time.Hour}))
	askCached(t, srv, model, "key1", cachedBody)
	fresh := askCached(t, srv, model, "key1", cachedBody, "Cache-Control", "max-age=0, No-Cache")
	if fresh.calls == 0 || fresh.header.Get(cache.Header) != cache.Bypass || fresh.resp.Usage.InputTokens == 0 {
		t.Errorf("no-cache: %d calls, %q, usage %+v; want the model asked", fresh.calls, fresh.header.Get(cache.Header), fresh.resp.Usage)
	}
	if r := askCached(t, srv, model, "key1", cachedBody); r.calls != 0 || r.header.Get(cache.Header) != cache.Hit {
		t.Errorf("after no-cache: %d calls, %q; want a hit", r.calls, r.header.Get(cache.Header))
	}
}

// TestCacheExpires: past the TTL the model is asked again.
func TestCacheExpires(t *testing.T) {
	model := newChatModel(t, 0)
	ttl := 300 * time.Millisecond
	srv := cachingJudge(t, model, newCache(t, cache.Settings{TTL: ttl}))
	start := time.Now()
	askCached(t, srv, model, "key1", cachedBody)
	r := askCached(t, srv, model, "key1", cachedBody)
	if time.Since(start) < ttl && (r.calls != 0 || r.header.Get(cache.Header) != cache.Hit) {
		t.Errorf("within the TTL: %d calls, %q; want a hit", r.calls, r.header.Get(cache.Header))
	}
	time.Sleep(time.Until(start.Add(ttl + 50*time.Millisecond)))
	if r := askCached(t, srv, model, "key1", cachedBody); r.calls == 0 || r.header.Get(cache.Header) != cache.Miss {
		t.Errorf("past the TTL: %d calls, %q; want a miss", r.calls, r.header.Get(cache.Header))
	}
}

// TestCacheSharedOnPurpose: with a shared cache another key gets the
// answer; with the cache off nothing is reused and no header is sent.
func TestCacheSharedOnPurpose(t *testing.T) {
	model := newChatModel(t, 0)
	srv := cachingJudge(t, model, newCache(t, cache.Settings{TTL: time.Hour, Shared: true}))
	askCached(t, srv, model, "key1", cachedBody)
	if r := askCached(t, srv, model, "key2", cachedBody); r.calls != 0 || r.header.Get(cache.Header) != cache.Hit {
		t.Errorf("shared, another key: %d calls, %q; want a hit", r.calls, r.header.Get(cache.Header))
	}

	off := cachingJudge(t, model, newCache(t, cache.Settings{}))
	for range 2 {
		if r := askCached(t, off, model, "key1", cachedBody); r.calls == 0 || r.header.Get(cache.Header) != "" {
			t.Errorf("cache off: %d calls, %s %q; want the model asked, no header", r.calls, cache.Header, r.header.Get(cache.Header))
		}
	}
}

// TestCacheSharedThroughRedis: two judges on one Redis answer each other's
// repeats, still per key.
func TestCacheSharedThroughRedis(t *testing.T) {
	rs := redistest.New(t)
	model := newChatModel(t, 0)
	judges := make([]*httptest.Server, 2)
	for i := range judges {
		judges[i] = cachingJudge(t, model, newCache(t, cache.Settings{TTL: time.Hour, Store: onRedis(t, rs.URL(), "t:", 0)}))
	}
	first := askCached(t, judges[0], model, "key1", cachedBody)
	if first.calls == 0 {
		t.Fatal("the first request made no call")
	}
	r := askCached(t, judges[1], model, "key1", cachedBody)
	if r.calls != 0 || r.header.Get(cache.Header) != cache.Hit || r.resp.Model != first.resp.Model {
		t.Errorf("the other judge, same key: %d calls, %q, model %q; want a hit", r.calls, r.header.Get(cache.Header), r.resp.Model)
	}
	if r := askCached(t, judges[1], model, "key2", cachedBody); r.calls == 0 || r.header.Get(cache.Header) != cache.Miss {
		t.Errorf("the other judge, another key: %d calls, %q; want a miss", r.calls, r.header.Get(cache.Header))
	}
}
