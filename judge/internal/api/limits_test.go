package api

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/judgeworks/judge/internal/engine"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/engine/lexical"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/memory"
	"github.com/judgeworks/judge/internal/store/redis"
	"github.com/judgeworks/shared/redistest"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// planned is a backend that plans a fixed number of input tokens (as the
// chat adapter plans every upstream call) and counts the requests it is
// asked to answer.
type planned struct {
	tokens int
	asked  atomic.Int64
}

func (p *planned) PlannedInputTokens(systemone.Request, int) int { return p.tokens }

func (p *planned) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	p.asked.Add(1)
	return lexical.Engine{}.Ask(ctx, req)
}

// judge serves backend as model m-1 (alias m-latest) to the keys "k" (id 1)
// and "other" (id 2) with the given limits.
func judge(t *testing.T, backend engine.Engine, limits ratelimit.Settings, maxQuestions int) (*httptest.Server, *metrics.Metrics) {
	t.Helper()
	keys, err := auth.ParseBearerKeys("k,other")
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := reg.Add(registry.Model{Name: "m-1", Aliases: []string{"m-latest"}, Backend: backend}); err != nil {
		t.Fatal(err)
	}
	limits.IDs = keyIDs(keys)
	m := metrics.New()
	e := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Deps{
		Keys: keys, Limiter: ratelimit.New(context.Background(), limits), Registry: reg, Metrics: m,
		Tokens: byteCounter{}, MaxQuestions: maxQuestions,
	})
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv, m
}

type answer struct {
	status int
	header http.Header
	body   string
}

func post(t *testing.T, url, key, body string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/systemone", strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(raw)}
}

func (a answer) errorType(t *testing.T) string {
	t.Helper()
	var b errorBody
	if err := json.Unmarshal([]byte(a.body), &b); err != nil {
		t.Fatalf("error body %s: %v", a.body, err)
	}
	return b.Detail.ErrorType
}

// limitHeaders reads one bucket's three headers, failing if any is absent
// or malformed.
func limitHeaders(t *testing.T, h http.Header, kind string) (limit, remaining int, reset time.Duration) {
	t.Helper()
	var err error
	if limit, err = strconv.Atoi(h.Get("x-ratelimit-limit-" + kind)); err != nil {
		t.Fatalf("x-ratelimit-limit-%s = %q", kind, h.Get("x-ratelimit-limit-"+kind))
	}
	if remaining, err = strconv.Atoi(h.Get("x-ratelimit-remaining-" + kind)); err != nil || remaining < 0 {
		t.Fatalf("x-ratelimit-remaining-%s = %q", kind, h.Get("x-ratelimit-remaining-"+kind))
	}
	raw := h.Get("x-ratelimit-reset-" + kind)
	if reset, err = time.ParseDuration(raw); err != nil || reset < 0 || strings.ContainsAny(raw, "µn") {
		t.Fatalf("x-ratelimit-reset-%s = %q, want a duration like 20ms, 1s or 6m0s", kind, raw)
	}
	return limit, remaining, reset
}

func TestLimitHeaders(t *testing.T) {
	srv, _ := judge(t, lexical.Engine{}, ratelimit.Settings{RPM: 3, TPM: 6000}, 0)
	start := time.Now()
	for i := range 3 {
		a := post(t, srv.URL, "k", body)
		if a.status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, a.status, a.body)
		}
		limit, remaining, reset := limitHeaders(t, a.header, "requests")
		if limit != 3 || remaining != 2-i || reset <= 0 || reset > time.Minute {
			t.Errorf("request %d: requests %d/%d reset %v, want 3/%d and a reset within a minute", i+1, remaining, limit, reset, 2-i)
		}
		var resp systemone.Response
		if err := json.Unmarshal([]byte(a.body), &resp); err != nil {
			t.Fatal(err)
		}
		// The lexical engine is charged the request's own tokens, which its
		// usage reports; the in-process bucket reads exact figures, plus
		// what it refilled meanwhile (100 tokens a second: a busy machine
		// takes tens of milliseconds a request).
		limit, remaining, reset = limitHeaders(t, a.header, "tokens")
		refilled := int(time.Since(start).Seconds()*6000/60) + 1
		if want := 6000 - (i+1)*resp.Usage.InputTokens; limit != 6000 || remaining > want+refilled || remaining < want-1 || reset <= 0 {
			t.Errorf("request %d: tokens %d/%d reset %v, want %d left after %d tokens each", i+1, remaining, limit, reset, want, resp.Usage.InputTokens)
		}
		if id := a.header.Get("x-request-id"); id == "" || a.header.Get("x-typesafe-request-id") != id {
			t.Errorf("x-typesafe-request-id %q, x-request-id %q: want the same id", a.header.Get("x-typesafe-request-id"), id)
		}
	}

	a := post(t, srv.URL, "k", body)
	if a.status != http.StatusTooManyRequests || a.errorType(t) != "rate_limit_exceeded" {
		t.Fatalf("fourth request: %d %s", a.status, a.body)
	}
	ms, err := strconv.Atoi(a.header.Get("retry-after-ms"))
	if err != nil || ms <= 0 || ms > 20_000 || a.header.Get("Retry-After") == "" {
		t.Errorf("429 retry headers: Retry-After %q retry-after-ms %q, want a wait of at most 20 s",
			a.header.Get("Retry-After"), a.header.Get("retry-after-ms"))
	}
	if limit, remaining, reset := limitHeaders(t, a.header, "requests"); limit != 3 || remaining != 0 || reset < time.Duration(ms)*time.Millisecond {
		t.Errorf("429: requests %d/%d reset %v, want 0/3 and a reset no sooner than the retry (%d ms)", remaining, limit, reset, ms)
	}
	if limit, remaining, _ := limitHeaders(t, a.header, "tokens"); limit != 6000 || remaining == 0 || remaining > 6000 {
		t.Errorf("429: tokens %d/%d, want the token bucket as it is", remaining, limit)
	}
	if a.header.Get("x-typesafe-request-id") != a.header.Get("x-request-id") {
		t.Error("429 without the same x-typesafe-request-id")
	}

	// Errors after authentication carry the figures too; before it there is
	// no key to report on, but the request ids are there.
	b := post(t, srv.URL, "other", `{"model": "m-latest", "state": 42, "questions": {}}`)
	if b.status != http.StatusUnprocessableEntity {
		t.Fatalf("validation error: %d %s", b.status, b.body)
	}
	if limit, remaining, _ := limitHeaders(t, b.header, "requests"); limit != 3 || remaining != 2 {
		t.Errorf("422 for key 2: requests %d/%d, want 2/3 (its own bucket)", remaining, limit)
	}
	if limit, remaining, reset := limitHeaders(t, b.header, "tokens"); limit != 6000 || remaining != 6000 || reset != 0 {
		t.Errorf("422 before any charge: tokens %d/%d reset %v, want a full bucket", remaining, limit, reset)
	}
	c := post(t, srv.URL, "", body)
	if c.status != http.StatusForbidden || c.header.Get("x-ratelimit-limit-requests") != "" {
		t.Errorf("no key: %d with x-ratelimit-limit-requests %q, want 403 without", c.status, c.header.Get("x-ratelimit-limit-requests"))
	}
	if id := c.header.Get("x-request-id"); id == "" || c.header.Get("x-typesafe-request-id") != id {
		t.Error("403 without both request ids")
	}
}

func TestTokenLimits(t *testing.T) {
	backend := &planned{}
	srv, _ := judge(t, backend, ratelimit.Settings{RPM: 1000, TPM: 6000}, 0) // 100 tokens a second

	backend.tokens = 6001
	a := post(t, srv.URL, "k", body)
	if a.status != http.StatusUnprocessableEntity || a.errorType(t) != "tokens_exceeded" ||
		!strings.Contains(a.body, "6001") || !strings.Contains(a.body, "6000") {
		t.Fatalf("a request over a minute's budget: %d %s, want 422 tokens_exceeded naming both figures", a.status, a.body)
	}
	if a.header.Get("Retry-After") != "" {
		t.Error("422 tokens_exceeded tells the client to retry; it never fits")
	}
	if _, remaining, _ := limitHeaders(t, a.header, "tokens"); remaining != 6000 {
		t.Errorf("a refused request took tokens: %d left", remaining)
	}

	backend.tokens = 5000
	if a := post(t, srv.URL, "k", body); a.status != http.StatusOK {
		t.Fatalf("5000 of 6000 tokens: %d %s", a.status, a.body)
	} else if _, remaining, _ := limitHeaders(t, a.header, "tokens"); remaining != 1000 {
		t.Errorf("after the planned 5000 tokens: %d left, want 1000 (the plan is charged, not the request's tokens)", remaining)
	}
	_, requestsBefore, _ := limitHeaders(t, a.header, "requests")

	a = post(t, srv.URL, "k", body)
	if a.status != http.StatusTooManyRequests || a.errorType(t) != "token_rate_limit_exceeded" {
		t.Fatalf("5000 more with 1000 left: %d %s, want 429 token_rate_limit_exceeded", a.status, a.body)
	}
	// 4000 tokens missing at 100 a second.
	ms, err := strconv.Atoi(a.header.Get("retry-after-ms"))
	secs, err2 := strconv.Atoi(a.header.Get("Retry-After"))
	if err != nil || err2 != nil || ms < 39_000 || ms > 40_000 || secs != (ms+999)/1000 {
		t.Errorf("Retry-After %q retry-after-ms %q, want about 40 s", a.header.Get("Retry-After"), a.header.Get("retry-after-ms"))
	}
	if _, remaining, _ := limitHeaders(t, a.header, "tokens"); remaining < 1000 || remaining > 1010 {
		t.Errorf("after a token refusal: %d left, want the 1000 (nothing taken)", remaining)
	}
	// Documented: the request bucket was taken before the token refusal.
	if _, requests, _ := limitHeaders(t, a.header, "requests"); requests >= requestsBefore {
		t.Errorf("requests left %d after a token refusal, %d before: the request is counted", requests, requestsBefore)
	}
	if n := backend.asked.Load(); n != 1 {
		t.Errorf("the backend was asked %d times, want once: refusals come before any work", n)
	}
	// Another key has its own budget.
	if a := post(t, srv.URL, "other", body); a.status != http.StatusOK {
		t.Errorf("key 2: %d %s", a.status, a.body)
	}
}

func TestMaxQuestions(t *testing.T) {
	srv, _ := judge(t, lexical.Engine{}, ratelimit.Settings{RPM: 1000, TPM: 1_000_000}, 3)
	ask := func(n int) answer {
		return post(t, srv.URL, "k", questionsBody(n, `"s"`))
	}
	if a := ask(3); a.status != http.StatusOK {
		t.Fatalf("3 questions with a limit of 3: %d %s", a.status, a.body)
	}
	a := ask(4)
	var v struct {
		Detail []systemone.ValidationItem `json:"detail"`
	}
	if err := json.Unmarshal([]byte(a.body), &v); err != nil || a.status != http.StatusUnprocessableEntity || len(v.Detail) != 1 {
		t.Fatalf("4 questions: %d %s", a.status, a.body)
	}
	if it := v.Detail[0]; strings.Join(it.Loc, ".") != "body.questions" || it.Type != "too_long" || !strings.Contains(it.Msg, "3") {
		t.Errorf("4 questions: %+v, want loc body.questions naming the limit", it)
	}
}

// questionsBody is a request with n different noul questions about
// state, each a number (the same question twice is asked once).
func questionsBody(n int, state string) string {
	var b strings.Builder
	b.WriteString(`{"model": "m-latest", "state": ` + state + `, "questions": {`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"q%04d":{"type":"noul","instructions":"%d"}`, i, i)
	}
	b.WriteString("}}")
	return b.String()
}

// TestManyQuestionsRefusedCheaply: a 340 KB body of 4,300 empty questions
// about a 31,900-token state (137 million tokens if each question were a
// model call) is refused for its question count, before tokens are counted,
// with little memory.
func TestManyQuestionsRefusedCheaply(t *testing.T) {
	count := tokens.Default()
	words := strings.Fields("the customer wrote again about a refund for the annual plan because the invoice was charged twice")
	var state strings.Builder
	for i := 0; count.Count(state.String()) < 31_900; i++ {
		for range 1000 {
			state.WriteString(words[i%len(words)] + " ")
			i++
		}
	}
	stateJSON, _ := json.Marshal(state.String())
	reqBody := questionsBody(4300, string(stateJSON))
	if len(reqBody) < 300_000 || len(reqBody) > DefaultBodyLimit {
		t.Fatalf("body of %d bytes, want about 340 KB", len(reqBody))
	}

	keys, _ := auth.ParseBearerKeys("k")
	reg := registry.New()
	backend := &planned{tokens: 1}
	if err := reg.Add(registry.Model{Name: "m-1", Aliases: []string{"m-latest"}, Backend: backend}); err != nil {
		t.Fatal(err)
	}
	e := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Deps{
		Keys: keys, Limiter: ratelimit.New(context.Background(), ratelimit.Settings{RPM: 1000, TPM: 15_000_000, IDs: keyIDs(keys)}),
		Registry: reg, Metrics: metrics.New(), Tokens: count,
	})
	req := httptest.NewRequest(http.MethodPost, "/v1/systemone", strings.NewReader(reqBody))
	req.Header.Set("Authorization", "Bearer k")
	rec := httptest.NewRecorder()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e.ServeHTTP(rec, req)
	runtime.ReadMemStats(&after)

	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `"loc":["body","questions"]`) {
		t.Fatalf("status %d: %.300s", rec.Code, rec.Body)
	}
	// Everything allocated while serving, collected or not.
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("refused %d bytes, %d questions with %.1f MB allocated", len(reqBody), 4300, float64(allocated)/1e6)
	if allocated > 50<<20 {
		t.Errorf("refusing the request allocated %.1f MB, want under 50 MB", float64(allocated)/1e6)
	}
	if backend.asked.Load() != 0 {
		t.Error("the backend was asked")
	}
}

// TestLimitsThroughRedis: the figures and refusals hold with the buckets in
// Redis, and the metrics report Redis up; with Redis stopped the judge goes
// on answering and the metrics report the fallback.
func TestLimitsThroughRedis(t *testing.T) {
	rs := redistest.New(t)
	backend := &planned{tokens: 4000}
	srv, _ := judge(t, backend, ratelimit.Settings{RPM: 2, TPM: 6000, Store: onRedis(t, rs.URL(), "api-test:", 2*time.Second)}, 0)

	// The token bucket refills 100 tokens a second: what is left may exceed
	// 2000 by what refilled while a busy machine ran the test.
	start := time.Now()
	refilled := func() int { return 10 + int(100*time.Since(start).Seconds()) }
	a := post(t, srv.URL, "k", body)
	if a.status != http.StatusOK {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if limit, remaining, reset := limitHeaders(t, a.header, "requests"); limit != 2 || remaining != 1 || reset <= 0 {
		t.Errorf("requests %d/%d reset %v, want 1/2", remaining, limit, reset)
	}
	if _, remaining, _ := limitHeaders(t, a.header, "tokens"); remaining < 2000 || remaining > 2000+refilled() {
		t.Errorf("tokens left %d, want about 2000", remaining)
	}
	a = post(t, srv.URL, "k", body)
	if a.status != http.StatusTooManyRequests || a.errorType(t) != "token_rate_limit_exceeded" || a.header.Get("Retry-After") == "" {
		t.Errorf("second request: %d %s, want 429 token_rate_limit_exceeded with Retry-After", a.status, a.body)
	}
	a = post(t, srv.URL, "k", body)
	if a.status != http.StatusTooManyRequests || a.errorType(t) != "rate_limit_exceeded" {
		t.Errorf("third request: %d %s, want 429 rate_limit_exceeded", a.status, a.body)
	}
	if _, remaining, _ := limitHeaders(t, a.header, "tokens"); remaining < 2000 || remaining > 2000+refilled() {
		t.Errorf("a request refused by the request bucket reports %d tokens left, want about 2000", remaining)
	}

	wantMetrics(t, srv.URL, "judge_ratelimit_redis_up 1", "judge_ratelimit_fallback_decisions_total 0")

	// Redis gone: answers go on from this process's buckets, and the
	// metrics say so.
	rs.Stop()
	a = post(t, srv.URL, "other", body)
	if a.status != http.StatusOK {
		t.Fatalf("with Redis stopped: %d %s, want an answer from the process's own buckets", a.status, a.body)
	}
	if _, remaining, _ := limitHeaders(t, a.header, "requests"); remaining != 1 {
		t.Errorf("with Redis stopped: %d requests left, want 1 of the local 2", remaining)
	}
	wantMetrics(t, srv.URL, "judge_ratelimit_redis_up 0")
	if m := metricsText(t, srv.URL); strings.Contains(m, "judge_ratelimit_fallback_decisions_total 0\n") ||
		!strings.Contains(m, "judge_ratelimit_fallback_decisions_total ") {
		t.Error("no fallback decisions counted with Redis stopped")
	}
}

func metricsText(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	m, _ := io.ReadAll(resp.Body)
	return string(m)
}

func wantMetrics(t *testing.T, url string, lines ...string) {
	t.Helper()
	m := metricsText(t, url)
	for _, want := range lines {
		if !strings.Contains(m, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestResetString(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {time.Nanosecond, "1ms"}, {20 * time.Millisecond, "20ms"}, {time.Second, "1s"},
		{1500 * time.Microsecond, "2ms"}, {6 * time.Minute, "6m0s"}, {59*time.Second + 999500*time.Microsecond, "1m0s"},
	}
	for _, tt := range tests {
		if got := resetString(tt.d); got != tt.want {
			t.Errorf("resetString(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
	// Whole milliseconds are written without Duration.String, the same.
	for d := -time.Millisecond; d <= 2*time.Second; d += 499 * time.Microsecond {
		if got, want := resetString(d), (time.Duration(ceilMillis(d)) * time.Millisecond).String(); got != want {
			t.Fatalf("resetString(%v) = %q, Duration.String writes %q", d, got, want)
		}
	}
}

// onRedis is the store of a judge whose REDIS_URL is url: Redis, with the
// process's own buckets and answers standing in.
func onRedis(t testing.TB, url, prefix string, timeout time.Duration) *store.Fallback {
	t.Helper()
	shared, err := redis.Open(url, redis.Options{Prefix: prefix, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewFallback(context.Background(), shared, memory.New(), slog.New(slog.DiscardHandler))
	t.Cleanup(func() { st.Close() })
	return st
}
