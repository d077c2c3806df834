package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/judgeworks/judge/internal/fault"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/engine/lexical"
	"github.com/judgeworks/judge/internal/idempotency"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/shared/systemone"
	"github.com/openai/openai-go/v3/option"
)

// gated answers only once its gate opens, and counts what it is asked.
type gated struct {
	asked   atomic.Int64
	started chan struct{}
	gate    chan struct{}
}

func newGated() *gated {
	return &gated{started: make(chan struct{}, 100), gate: make(chan struct{})}
}

func (g *gated) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	g.asked.Add(1)
	g.started <- struct{}{}
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return lexical.Engine{}.Ask(ctx, req)
}

// flaky fails its first answer as an overloaded upstream, then answers.
type flaky struct{ asked atomic.Int64 }

func (f *flaky) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	if f.asked.Add(1) == 1 {
		return nil, fault.Retry(fault.Overloaded, time.Second, "busy")
	}
	return lexical.Engine{}.Ask(ctx, req)
}

// postWith sends body to path with an Idempotency-Key (none when key is
// empty) and the given client.
func postWith(t *testing.T, hc *http.Client, url, path, bearer, key, body string) (answer, error) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bearer)
	if key != "" {
		req.Header.Set(HeaderIdempotencyKey, key)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(raw)}, nil
}

func mustPost(t *testing.T, url, path, bearer, key, body string) answer {
	t.Helper()
	a, err := postWith(t, http.DefaultClient, url, path, bearer, key, body)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestReplayChargesARequest: a replay returns the stored answer byte for
// byte, without the engine and without tokens, but takes a request like
// any other: an empty request bucket refuses it.
func TestReplayChargesARequest(t *testing.T) {
	backend := &planned{tokens: 100}
	// Three requests a minute: one refills every 20 s.
	srv := listen(t, setup{backend: backend, limits: ratelimit.Settings{RPM: 3, TPM: 1000}})
	c := client(srv.URL, "k", option.WithHeader(HeaderIdempotencyKey, "order-42"))
	var first *http.Response
	d, err := c.Decisions.New(context.Background(), ticketParams(), option.WithResponseInto(&first))
	if err != nil {
		t.Fatal(err)
	}
	if first.Header.Get(HeaderReplayed) != "" {
		t.Error("the first answer says it is a replay")
	}
	_, remaining, _ := limitHeaders(t, first.Header, "requests")
	_, tokensLeft, _ := limitHeaders(t, first.Header, "tokens")
	if remaining != 2 || tokensLeft > 900 {
		t.Fatalf("after the first request: %d requests, %d tokens left", remaining, tokensLeft)
	}
	for i := range 2 {
		var again *http.Response
		r, err := c.Decisions.New(context.Background(), ticketParams(), option.WithResponseInto(&again))
		if err != nil {
			t.Fatalf("replay %d: %v", i+1, err)
		}
		if again.Header.Get(HeaderReplayed) != "true" || r.RawJSON() != d.RawJSON() {
			t.Errorf("replay %d: %s %s, want the first answer replayed", i+1, again.Header.Get(HeaderReplayed), r.RawJSON())
		}
		// A request taken (20 s refill, so none comes back meanwhile)...
		if _, got, _ := limitHeaders(t, again.Header, "requests"); got != remaining-1-i {
			t.Errorf("replay %d: %d requests left, want %d", i+1, got, remaining-1-i)
		}
		// ...and no tokens.
		if _, got, _ := limitHeaders(t, again.Header, "tokens"); got < tokensLeft {
			t.Errorf("replay %d: %d tokens left, want at least %d", i+1, got, tokensLeft)
		}
		if id := again.Header.Get("x-request-id"); id == "" || id == first.Header.Get("x-request-id") {
			t.Errorf("replay %d: x-request-id %q, want its own", i+1, id)
		}
	}
	_, err = c.Decisions.New(context.Background(), ticketParams())
	wantAPIError(t, err, http.StatusTooManyRequests, "rate_limit_exceeded", "rate_limit_exceeded", "")
	if n := backend.asked.Load(); n != 1 {
		t.Errorf("the engine was asked %d times, want once", n)
	}
}

// TestEmptyBucketRefusesBeforeTheBody: with the request bucket empty, a
// request with an Idempotency-Key is refused with 429 at once, without
// waiting for a body its client never sends.
func TestEmptyBucketRefusesBeforeTheBody(t *testing.T) {
	srv := listen(t, setup{limits: ratelimit.Settings{RPM: 1, TPM: 1000}})
	if a := mustPost(t, srv.URL, "/v1/systemone", "k", "", systemOneTwin); a.status != http.StatusOK {
		t.Fatalf("first request: %d %s", a.status, a.body)
	}
	for _, header := range []string{"Idempotency-Key: stalled-1\r\n", ""} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprint(conn, "POST /v1/systemone HTTP/1.1\r\nHost: judge\r\nAuthorization: Bearer k\r\n"+
			header+"Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{")
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%q: no answer while the body stalls: %v", header, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("%q: status %d, want 429 with Retry-After", header, resp.StatusCode)
		}
	}
}

// TestReplayChecksTheModel: an answer stored for a model the key may no
// longer use (its list narrowed since) is not replayed: 403, as a fresh
// request would get.
func TestReplayChecksTheModel(t *testing.T) {
	store := idempotency.New(context.Background(), idempotency.Settings{})
	before := listen(t, setup{store: store, keys: "k"})
	if a := mustPost(t, before.URL, "/v1/systemone", "k", "order-7", systemOneTwin); a.status != http.StatusOK {
		t.Fatalf("first request: %d %s", a.status, a.body)
	}
	after := listen(t, setup{store: store, keys: "k:elsewhere-latest"})
	a := mustPost(t, after.URL, "/v1/systemone", "k", "order-7", systemOneTwin)
	if a.status != http.StatusForbidden || a.header.Get(HeaderReplayed) != "" {
		t.Fatalf("replay for a model the key may no longer use: %d %s", a.status, a.body)
	}
}

// TestRevokedKeyLeavesNothingToTheNext: revoking the first key of
// JUDGE_API_KEYS hands its stored answers to no one; the key that moves up
// to its position runs its own request.
func TestRevokedKeyLeavesNothingToTheNext(t *testing.T) {
	store := idempotency.New(context.Background(), idempotency.Settings{})
	backend := &planned{tokens: 10}
	before := listen(t, setup{store: store, keys: "alpha,beta", backend: backend})
	if a := mustPost(t, before.URL, "/v1/systemone", "alpha", "order-9", systemOneTwin); a.status != http.StatusOK {
		t.Fatalf("alpha: %d %s", a.status, a.body)
	}
	after := listen(t, setup{store: store, keys: "beta", backend: backend})
	a := mustPost(t, after.URL, "/v1/systemone", "beta", "order-9", systemOneTwin)
	if a.status != http.StatusOK || a.header.Get(HeaderReplayed) != "" || backend.asked.Load() != 2 {
		t.Fatalf("beta after alpha's revocation: %d replayed=%q, engine asked %d times; want its own answer",
			a.status, a.header.Get(HeaderReplayed), backend.asked.Load())
	}
}

func TestKeyReusedWithAnotherBody(t *testing.T) {
	srv := listen(t, setup{})
	if a := mustPost(t, srv.URL, "/v1/systemone", "k", "key-1", body); a.status != http.StatusOK {
		t.Fatalf("%d %s", a.status, a.body)
	}
	other := strings.Replace(body, `"state": "s"`, `"state": "t"`, 1)
	a := mustPost(t, srv.URL, "/v1/systemone", "k", "key-1", other)
	if a.status != http.StatusUnprocessableEntity || a.errorType(t) != "idempotency_key_reused" {
		t.Errorf("another body: %d %s, want 422 idempotency_key_reused", a.status, a.body)
	}
	if a.header.Get("x-ratelimit-remaining-requests") == "" {
		t.Error("the 422 lacks the rate-limit figures")
	}
	// The same key on the other endpoint is another request too, refused
	// in that endpoint's shape, and openai-go reads it.
	_, err := client(srv.URL, "k", option.WithHeader(HeaderIdempotencyKey, "key-1")).Decisions.New(context.Background(), ticketParams())
	wantAPIError(t, err, http.StatusUnprocessableEntity, "idempotency_key_reused", "idempotency_key_reused", "")
}

// TestRetryAfterClientTimeout: the client gives up while the engine works;
// the work goes on, a retry meanwhile is told the key is in use (409), and
// once the work is done the retry gets its answer without a second run.
func TestRetryAfterClientTimeout(t *testing.T) {
	backend := newGated()
	srv := listen(t, setup{backend: backend})
	impatient := &http.Client{Timeout: 200 * time.Millisecond}
	if _, err := postWith(t, impatient, srv.URL, "/v1/systemone", "k", "retry-me", body); err == nil {
		t.Fatal("the first request did not time out")
	}
	select {
	case <-backend.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the engine was never asked")
	}
	a := mustPost(t, srv.URL, "/v1/systemone", "k", "retry-me", body)
	if a.status != http.StatusConflict || a.errorType(t) != "idempotency_key_in_use" || a.header.Get("Retry-After") == "" {
		t.Errorf("retry while running: %d %s, want 409 idempotency_key_in_use with Retry-After", a.status, a.body)
	}
	// openai-go reads the 409 on the other endpoint the same way.
	c := client(srv.URL, "k", option.WithHeader(HeaderIdempotencyKey, "retry-decision"))
	go func() {
		_, _ = client(srv.URL, "k", option.WithHeader(HeaderIdempotencyKey, "retry-decision"), option.WithRequestTimeout(200*time.Millisecond)).Decisions.New(context.Background(), ticketParams())
	}()
	<-backend.started
	_, err := c.Decisions.New(context.Background(), ticketParams())
	wantAPIError(t, err, http.StatusConflict, "idempotency_key_in_use", "idempotency_key_in_use", "")

	close(backend.gate)
	deadline := time.Now().Add(20 * time.Second)
	for {
		a = mustPost(t, srv.URL, "/v1/systemone", "k", "retry-me", body)
		if a.status != http.StatusConflict || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if a.status != http.StatusOK || a.header.Get(HeaderReplayed) != "true" {
		t.Fatalf("retry after the work finished: %d %s %q, want the stored answer", a.status, a.body, a.header.Get(HeaderReplayed))
	}
	var resp systemone.Response
	if err := json.Unmarshal([]byte(a.body), &resp); err != nil || len(resp.Answers) != 1 {
		t.Errorf("replayed body %s: %v", a.body, err)
	}
	if n := backend.asked.Load(); n != 2 {
		t.Errorf("the engine was asked %d times, want once per key (2)", n)
	}
}

// TestErrorsReleaseTheKey: only 200 answers are stored; after an error the
// same key runs the request again.
func TestErrorsReleaseTheKey(t *testing.T) {
	backend := &flaky{}
	srv := listen(t, setup{backend: backend})
	if a := mustPost(t, srv.URL, "/v1/systemone", "k", "k1", body); a.status != 529 {
		t.Fatalf("first: %d %s", a.status, a.body)
	}
	a := mustPost(t, srv.URL, "/v1/systemone", "k", "k1", body)
	if a.status != http.StatusOK || a.header.Get(HeaderReplayed) != "" {
		t.Errorf("after the 529: %d %q, want a fresh 200", a.status, a.header.Get(HeaderReplayed))
	}
	if a := mustPost(t, srv.URL, "/v1/systemone", "k", "k1", body); a.header.Get(HeaderReplayed) != "true" {
		t.Errorf("third: %d, want the 200 replayed", a.status)
	}
	if n := backend.asked.Load(); n != 2 {
		t.Errorf("asked %d times, want 2", n)
	}
	// A refused request (400 here) frees the key as well.
	bad := `{"model": "nope", "state": "s", "questions": {"q": {"type": "noul", "instructions": "i"}}}`
	if a := mustPost(t, srv.URL, "/v1/systemone", "k", "k2", bad); a.status != http.StatusBadRequest {
		t.Fatalf("%d", a.status)
	}
	// Nothing was stored, so the key takes another body.
	if a := mustPost(t, srv.URL, "/v1/systemone", "k", "k2", body); a.status != http.StatusOK || a.header.Get(HeaderReplayed) != "" {
		t.Errorf("after a 400, another body under the same key: %d %s", a.status, a.body)
	}
}

// TestKeysBelongToTheirCaller: the same Idempotency-Key from two API keys
// names two requests.
func TestKeysBelongToTheirCaller(t *testing.T) {
	backend := &planned{tokens: 10}
	srv := listen(t, setup{backend: backend})
	for _, bearer := range []string{"k", "other"} {
		a := mustPost(t, srv.URL, "/v1/systemone", bearer, "shared-key", body)
		if a.status != http.StatusOK || a.header.Get(HeaderReplayed) != "" {
			t.Errorf("%s: %d replayed=%q, want its own fresh answer", bearer, a.status, a.header.Get(HeaderReplayed))
		}
	}
	if n := backend.asked.Load(); n != 2 {
		t.Errorf("asked %d times, want 2", n)
	}
}

func TestBadIdempotencyKeys(t *testing.T) {
	srv := listen(t, setup{})
	for name, key := range map[string]string{
		"too long":  strings.Repeat("k", 256),
		"tab":       "a\tb",
		"non-ASCII": "ключ",
	} {
		a := mustPost(t, srv.URL, "/v1/systemone", "k", key, body)
		if a.status != http.StatusBadRequest || a.errorType(t) != "invalid_request" || !strings.Contains(a.body, "255") {
			t.Errorf("%s: %d %s, want 400 naming the bound", name, a.status, a.body)
		}
	}
	if a := mustPost(t, srv.URL, "/v1/systemone", "k", strings.Repeat("k", 255), body); a.status != http.StatusOK {
		t.Errorf("a 255-character key: %d %s", a.status, a.body)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/systemone", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer k")
	req.Header.Add(HeaderIdempotencyKey, "one")
	req.Header.Add(HeaderIdempotencyKey, "two")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("two keys: %d, want 400", resp.StatusCode)
	}
	// Without authentication nothing is looked up: 401 first.
	if a, _ := postWith(t, http.DefaultClient, srv.URL, "/v1/systemone", "nobody", "k", body); a.status != http.StatusUnauthorized {
		t.Errorf("unknown bearer key: %d", a.status)
	}
}

func (*gated) PlannedInputTokens(_ systemone.Request, tokens int) int { return tokens }

func (*flaky) PlannedInputTokens(_ systemone.Request, tokens int) int { return tokens }

// TestStoredAnswersCountWhatTheyKeep: an answer that echoes markup (a
// score's legend repeats its levels) is sent and stored as it is, not
// escaped six times over, and the store counts the bytes it keeps.
func TestStoredAnswersCountWhatTheyKeep(t *testing.T) {
	store := idempotency.New(context.Background(), idempotency.Settings{})
	srv := listen(t, setup{store: store})
	level := strings.Repeat("<b>&", 1000)
	req := fmt.Sprintf(`{"model": "m-latest", "state": "s", "questions": {"q": {"type": "score", "criteria": [%q, %q]}}}`,
		level, level+"!")
	a := mustPost(t, srv.URL, "/v1/systemone", "k", "markup", req)
	if a.status != http.StatusOK {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if strings.Contains(a.body, `\u003c`) || strings.Contains(a.body, `\u0026`) || len(a.body) > 2*len(level)+500 {
		t.Errorf("a %d-byte answer for two %d-byte levels, escaped: %.120s…", len(a.body), len(level), a.body)
	}
	var keys *auth.BearerKeys
	keys, _ = auth.ParseBearerKeys("k")
	owner := keys.All()[0].ID
	n, size, err := store.Usage(context.Background(), owner)
	if err != nil || n != 1 || size < int64(len(a.body)) || size > int64(len(a.body))+512 {
		t.Errorf("the store counts %d answers, %d bytes (%v) for a %d-byte answer", n, size, err, len(a.body))
	}
	if again := mustPost(t, srv.URL, "/v1/systemone", "k", "markup", req); again.body != a.body || again.header.Get(HeaderReplayed) != "true" {
		t.Errorf("the replay differs: %.120s…", again.body)
	}
}
