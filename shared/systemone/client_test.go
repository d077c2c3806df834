package systemone

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

const okBody = `{"model":"local/lexical-2025-01-01","answers":{"urgent":{"type":"noul","noul":0.93}},"usage":{"input_tokens":12,"output_tokens":1,"cost":5.04e-7}}`

func askReq() Request {
	return Request{
		Model: "local/lexical-latest",
		State: json.RawMessage(`"The <b>invoice</b> & the refund"`),
		Questions: map[string]Question{
			"urgent": {Type: TypeNoul, Instructions: json.RawMessage(`"urgent?"`)},
		},
	}
}

// fastClient retries quickly, so tests measure only the waits servers ask for.
func fastClient(url string, opts ...ClientOption) *Client {
	return NewClient(append([]ClientOption{WithBaseURL(url), WithAPIKey("k"), WithBackoff(time.Millisecond, 2*time.Millisecond)}, opts...)...)
}

func TestClientAsk(t *testing.T) {
	var got struct {
		method, path, auth, ctype string
		body                      []byte
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.method, got.path, got.auth, got.ctype = r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		got.body, _ = io.ReadAll(r.Body)
		w.Header().Set("x-request-id", "rid-1")
		io.WriteString(w, okBody)
	}))
	defer srv.Close()

	resp, err := fastClient(srv.URL).Ask(context.Background(), askReq())
	if err != nil {
		t.Fatal(err)
	}
	if got.method != "POST" || got.path != "/v1/systemone" || got.auth != "Bearer k" || got.ctype != "application/json" {
		t.Errorf("request = %+v", got)
	}
	// The server receives the wire form, state unescaped.
	sent, err := DecodeRequest(got.body)
	if err != nil {
		t.Fatalf("server could not decode %s: %v", got.body, err)
	}
	if string(sent.State) != `"The <b>invoice</b> & the refund"` || sent.Questions["urgent"].Type != TypeNoul {
		t.Errorf("sent %s", got.body)
	}
	if resp.Model != "local/lexical-2025-01-01" || resp.Usage.InputTokens != 12 {
		t.Errorf("response = %+v", resp)
	}
	if n := resp.Nouls()["urgent"]; !n.Yes() || n.P != 0.93 {
		t.Errorf("urgent = %+v", n)
	}
}

func TestClientBaseURL(t *testing.T) {
	tests := []struct{ base, want string }{
		{"", "/v1/systemone"},
		{"/", "/v1/systemone"},
		{"/judge", "/judge/v1/systemone"},
		{"/judge/", "/judge/v1/systemone"},
		{"/judge//", "/judge/v1/systemone"},
		{"/gw/judge", "/gw/judge/v1/systemone"},
	}
	for _, tt := range tests {
		var path string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			path = r.URL.Path
			io.WriteString(w, okBody)
		}))
		if _, err := fastClient(srv.URL+tt.base).Ask(context.Background(), askReq()); err != nil {
			t.Errorf("base %q: %v", tt.base, err)
		}
		if path != tt.want {
			t.Errorf("base %q: server saw %q, want %q", tt.base, path, tt.want)
		}
		srv.Close()
	}
}

func TestClientEnvironment(t *testing.T) {
	var auth, path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, path = r.Header.Get("Authorization"), r.URL.Path
		io.WriteString(w, okBody)
	}))
	defer srv.Close()
	t.Setenv("JUDGE_URL", srv.URL+"/prefix/")
	t.Setenv("JUDGE_API_KEY", "env-key")
	if _, err := NewClient().Ask(context.Background(), askReq()); err != nil {
		t.Fatal(err)
	}
	if auth != "Bearer env-key" || path != "/prefix/v1/systemone" {
		t.Errorf("auth %q path %q", auth, path)
	}
	// Options win over the environment.
	if _, err := NewClient(WithBaseURL(srv.URL), WithAPIKey("opt-key")).Ask(context.Background(), askReq()); err != nil {
		t.Fatal(err)
	}
	if auth != "Bearer opt-key" || path != "/v1/systemone" {
		t.Errorf("auth %q path %q", auth, path)
	}
}

func TestClientBadBaseURL(t *testing.T) {
	for _, base := range []string{"localhost:8081", "ftp://x", "http://"} {
		_, err := NewClient(WithBaseURL(base)).Ask(context.Background(), askReq())
		var e *Error
		if !errors.As(err, &e) || e.Type != TypeInvalidRequest {
			t.Errorf("base %q: err = %v, want invalid_request", base, err)
		}
	}
}

// statusServer answers each call with the next of statuses (the last one
// repeats), counting calls.
func statusServer(t *testing.T, calls *atomic.Int32, statuses []int, header http.Header) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		status := statuses[min(n, len(statuses))-1]
		w.Header().Set("x-request-id", fmt.Sprintf("rid-%d", n))
		if status == http.StatusOK {
			io.WriteString(w, okBody)
			return
		}
		for k, vs := range header {
			w.Header()[k] = vs
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"detail":{"error_type":"e%d","message":"status %d"}}`, status, status)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestClientRetries(t *testing.T) {
	tests := []struct {
		name      string
		statuses  []int
		wantCalls int32
		wantErr   int // 0: success
	}{
		{"429 then ok", []int{429, 200}, 2, 0},
		{"529 then ok", []int{529, 529, 200}, 3, 0},
		{"408 then ok", []int{408, 200}, 2, 0},
		{"500 then ok", []int{500, 200}, 2, 0},
		{"502 then ok", []int{502, 200}, 2, 0},
		{"503 gives up after max attempts", []int{503}, 3, 503},
		{"400 never retried", []int{400, 200}, 1, 400},
		{"401 never retried", []int{401, 200}, 1, 401},
		{"403 never retried", []int{403, 200}, 1, 403},
		{"413 never retried", []int{413, 200}, 1, 413},
		{"422 never retried", []int{422, 200}, 1, 422},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := statusServer(t, &calls, tt.statuses, nil)
			_, err := fastClient(srv.URL, WithMaxAttempts(3)).Ask(context.Background(), askReq())
			if got := calls.Load(); got != tt.wantCalls {
				t.Errorf("calls = %d, want %d", got, tt.wantCalls)
			}
			if tt.wantErr == 0 {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			want := &Error{Status: tt.wantErr, Type: fmt.Sprintf("e%d", tt.wantErr), Message: fmt.Sprintf("status %d", tt.wantErr),
				RequestID: fmt.Sprintf("rid-%d", tt.wantCalls)}
			if e.Status != want.Status || e.Type != want.Type || e.Message != want.Message || e.RequestID != want.RequestID {
				t.Errorf("err = %+v, want %+v", e, want)
			}
		})
	}
}

func TestClientHonoursRetryAfterMs(t *testing.T) {
	var calls atomic.Int32
	// retry-after-ms wins over Retry-After, which would mean 30 s.
	srv := statusServer(t, &calls, []int{429, 200}, http.Header{"Retry-After-Ms": {"300"}, "Retry-After": {"30"}})
	start := time.Now()
	if _, err := fastClient(srv.URL).Ask(context.Background(), askReq()); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 300*time.Millisecond || el > 10*time.Second {
		t.Errorf("retry after %v, want about 300ms (backoff alone is 2ms)", el)
	}
}

func TestClientHonoursRetryAfterSeconds(t *testing.T) {
	var calls atomic.Int32
	srv := statusServer(t, &calls, []int{529, 200}, http.Header{"Retry-After": {"1"}})
	start := time.Now()
	if _, err := fastClient(srv.URL).Ask(context.Background(), askReq()); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < time.Second {
		t.Errorf("retry after %v, want at least 1s", el)
	}
}

func TestClientCapsRetryWait(t *testing.T) {
	var calls atomic.Int32
	srv := statusServer(t, &calls, []int{429, 200}, http.Header{"Retry-After": {"3600"}})
	start := time.Now()
	if _, err := fastClient(srv.URL, WithMaxRetryWait(50*time.Millisecond)).Ask(context.Background(), askReq()); err != nil {
		t.Fatal(err)
	}
	// Uncapped, the wait would be an hour: a generous bound tells.
	if el := time.Since(start); el < 50*time.Millisecond || el > time.Minute {
		t.Errorf("retry after %v, want the 50ms cap", el)
	}
}

func TestClientDeadlineShorterThanRetryWait(t *testing.T) {
	var calls atomic.Int32
	srv := statusServer(t, &calls, []int{429, 200}, http.Header{"Retry-After": {"50"}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err := fastClient(srv.URL).Ask(ctx, askReq())
	var e *Error
	if !errors.As(err, &e) || e.Status != 429 || e.RequestID != "rid-1" {
		t.Fatalf("err = %v, want the 429", err)
	}
	// A wait would last until the 30 s deadline: half of it tells, however
	// busy the machine.
	if el := time.Since(start); el > 15*time.Second {
		t.Errorf("returned after %v; a wait past the deadline should not start", el)
	}
}

func TestClientCancel(t *testing.T) {
	var calls atomic.Int32
	srv := statusServer(t, &calls, []int{503}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := fastClient(srv.URL, WithBackoff(time.Second, time.Second), WithMaxAttempts(10)).Ask(ctx, askReq())
	var e *Error
	if !errors.As(err, &e) || e.Type != TypeCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want canceled", err)
	}
	if calls.Load() != 1 {
		t.Errorf("calls = %d, want 1", calls.Load())
	}
}

func TestClientAttemptTimeout(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			select { // the first attempt hangs
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		io.WriteString(w, okBody)
	}))
	defer srv.Close()
	// Long enough for a retry to answer on a busy machine.
	resp, err := fastClient(srv.URL, WithAttemptTimeout(time.Second)).Ask(context.Background(), askReq())
	if err != nil || resp.Model == "" {
		t.Fatalf("err = %v", err)
	}
	if calls.Load() < 2 {
		t.Errorf("calls = %d, want the hung attempt and at least one retry", calls.Load())
	}
}

func TestClientConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := fastClient(url, WithMaxAttempts(2)).Ask(context.Background(), askReq())
	var e *Error
	if !errors.As(err, &e) || e.Status != 0 || e.Type != TypeConnection || e.Err == nil {
		t.Fatalf("err = %#v, want a connection error", err)
	}
}

func TestClientValidationErrorList(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("x-request-id", "rid-422")
		w.WriteHeader(422)
		io.WriteString(w, `{"detail":[{"loc":["body","questions","team","criteria"],"msg":"a choice question needs at least 2 options, got 1","type":"too_short"}]}`)
	}))
	defer srv.Close()
	_, err := fastClient(srv.URL).Ask(context.Background(), askReq())
	var e *Error
	if !errors.As(err, &e) || e.Status != 422 || e.Type != TypeValidation || e.RequestID != "rid-422" {
		t.Fatalf("err = %v", err)
	}
	if len(e.Detail) != 1 || e.Detail[0].Type != "too_short" || len(e.Detail[0].Loc) != 4 || e.Detail[0].Loc[2] != "team" {
		t.Errorf("detail = %+v", e.Detail)
	}
}

func TestClientModels(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "GET" || r.URL.Path != "/gw/v1/models" || r.Header.Get("Authorization") != "Bearer k" {
			w.WriteHeader(404)
			return
		}
		io.WriteString(w, `{"models":[{"name":"local/lexical-2025-01-01","description":"offline","release_date":"2025-01-01"}]}`)
	}))
	defer srv.Close()
	ms, err := fastClient(srv.URL + "/gw").Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Name != "local/lexical-2025-01-01" || ms[0].ReleaseDate != "2025-01-01" {
		t.Errorf("models = %+v", ms)
	}
}

func TestParseError(t *testing.T) {
	h := http.Header{"X-Request-Id": {"r"}, "Retry-After-Ms": {"1500"}}
	tests := []struct {
		status  int
		body    string
		typ     string
		message string
	}{
		{429, `{"detail":{"error_type":"rate_limit_exceeded","message":"slow down"}}`, "rate_limit_exceeded", "slow down"},
		{404, `{"detail":"Not Found"}`, "not_found", "Not Found"},
		{502, `<html>bad gateway</html>`, "bad_gateway", "<html>bad gateway</html>"},
		{529, ``, "overloaded", ""},
		{599, ``, "http_599", ""},
	}
	for _, tt := range tests {
		e := ParseError(tt.status, h, []byte(tt.body))
		if e.Status != tt.status || e.Type != tt.typ || e.Message != tt.message || e.RequestID != "r" || e.RetryAfter != 1500*time.Millisecond {
			t.Errorf("ParseError(%d, %s) = %+v", tt.status, tt.body, e)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{"Retry-After-Ms": {"250"}}, 250 * time.Millisecond, true},
		{http.Header{"Retry-After-Ms": {"12.5"}}, 12500 * time.Microsecond, true},
		{http.Header{"Retry-After-Ms": {"soon"}, "Retry-After": {"2"}}, 2 * time.Second, true},
		{http.Header{"Retry-After": {"Sun, 01 Jun 2025 12:00:07 GMT"}}, 7 * time.Second, true},
		{http.Header{"Retry-After": {"Sun, 01 Jun 2025 11:00:00 GMT"}}, 0, true},
		{http.Header{"Retry-After": {"-3"}}, 0, false},
		{http.Header{"Retry-After": {"1e300"}}, 0, false},
		{http.Header{}, 0, false},
	}
	for _, tt := range tests {
		got, ok := RetryAfter(tt.h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("RetryAfter(%v) = %v, %v; want %v, %v", tt.h, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	c := NewClient(WithBackoff(100*time.Millisecond, time.Second))
	for attempt, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 30: time.Second} {
		for range 50 {
			if got := c.backoff(attempt); got < want/2 || got > want {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", attempt, got, want/2, want)
			}
		}
	}
}

func TestErrorRetryable(t *testing.T) {
	for status, want := range map[int]bool{408: true, 429: true, 500: true, 502: true, 503: true, 529: true, 400: false, 401: false, 403: false, 404: false, 413: false, 422: false} {
		if got := (&Error{Status: status}).Retryable(); got != want {
			t.Errorf("Retryable(%d) = %v", status, got)
		}
	}
}
