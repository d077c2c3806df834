package systemone

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/judgeworks/shared/settings"
)

// DefaultBaseURL is where a judge listens when run locally.
const DefaultBaseURL = "http://localhost:8081"

// Client defaults.
const (
	DefaultMaxAttempts    = 4
	DefaultAttemptTimeout = 60 * time.Second
	DefaultBackoffBase    = 500 * time.Millisecond
	DefaultBackoffMax     = 8 * time.Second
	// DefaultMaxRetryWait caps how long the client waits when a server asks
	// for a pause with retry-after-ms or Retry-After.
	DefaultMaxRetryWait = 60 * time.Second
)

// maxResponseBytes bounds how much of a response the client reads.
const maxResponseBytes = 16 << 20

// Client calls a System One server (the judge, or any wire-compatible one)
// over HTTP. It is safe for concurrent use.
type Client struct {
	base           string // base URL without trailing slashes
	baseErr        error
	key            string
	hc             *http.Client
	maxAttempts    int
	attemptTimeout time.Duration
	backoffBase    time.Duration
	backoffMax     time.Duration
	maxRetryWait   time.Duration
}

var _ Backend = (*Client)(nil)

// ClientOption configures a Client. (Option is a choice option.)
type ClientOption func(*Client)

// WithAPIKey sets the bearer key (default: $JUDGE_API_KEY).
func WithAPIKey(key string) ClientOption { return func(c *Client) { c.key = key } }

// WithBaseURL sets the server's base URL (default: $JUDGE_URL, else
// DefaultBaseURL). The client appends /v1/systemone and /v1/models to it, so
// a gateway prefix is kept: https://gw.example/judge calls
// https://gw.example/judge/v1/systemone.
func WithBaseURL(u string) ClientOption { return func(c *Client) { c.base = u } }

// WithHTTPClient sets the HTTP client (default: a new one with no overall
// timeout; the per-attempt timeout applies).
func WithHTTPClient(hc *http.Client) ClientOption { return func(c *Client) { c.hc = hc } }

// WithMaxAttempts sets how many times a request is sent at most, the first
// included (default 4). 1 turns retries off.
func WithMaxAttempts(n int) ClientOption { return func(c *Client) { c.maxAttempts = max(n, 1) } }

// WithAttemptTimeout bounds each attempt (default 60s); the context passed
// to Ask bounds them all.
func WithAttemptTimeout(d time.Duration) ClientOption {
	return func(c *Client) { c.attemptTimeout = d }
}

// WithBackoff sets the exponential backoff between retries when the server
// does not say how long to wait: base·2ⁿ, at most max, with jitter
// (defaults 500ms and 8s).
func WithBackoff(base, max time.Duration) ClientOption {
	return func(c *Client) { c.backoffBase, c.backoffMax = base, max }
}

// WithMaxRetryWait caps a wait the server asks for (default 60s).
func WithMaxRetryWait(d time.Duration) ClientOption { return func(c *Client) { c.maxRetryWait = d } }

// NewClient builds a Client. Without options it reads JUDGE_API_KEY and
// JUDGE_URL from the environment. A bad base URL is reported by every call.
func NewClient(opts ...ClientOption) *Client {
	c := &Client{
		base:           os.Getenv("JUDGE_URL"),
		key:            os.Getenv("JUDGE_API_KEY"),
		hc:             &http.Client{},
		maxAttempts:    DefaultMaxAttempts,
		attemptTimeout: DefaultAttemptTimeout,
		backoffBase:    DefaultBackoffBase,
		backoffMax:     DefaultBackoffMax,
		maxRetryWait:   DefaultMaxRetryWait,
	}
	for _, o := range opts {
		o(c)
	}
	if c.base == "" {
		c.base = DefaultBaseURL
	}
	c.base = strings.TrimRight(c.base, "/")
	if !settings.IsHTTPURL(c.base) {
		c.baseErr = fmt.Errorf("base URL %q is not an absolute http(s) URL", c.base)
	}
	return c
}

// Ask sends one request and returns the answers. Failures are *Error;
// 408, 429, 5xx, 529 and network failures are retried with backoff.
func (c *Client) Ask(ctx context.Context, req Request) (*Response, error) {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	// State and descriptions go out as the caller wrote them, without
	// the HTML escaping encoding/json adds by default.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(req); err != nil {
		return nil, &Error{Type: TypeInvalidRequest, Message: "encode request", Err: err}
	}
	var resp Response
	if err := c.do(ctx, http.MethodPost, "/v1/systemone", body.Bytes(), &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// ModelInfo describes one model of GET /v1/models.
type ModelInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	ReleaseDate string `json:"release_date"`
}

// Models lists the models the server offers.
func (c *Client) Models(ctx context.Context) ([]ModelInfo, error) {
	var out struct {
		Models []ModelInfo `json:"models"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/models", nil, &out); err != nil {
		return nil, err
	}
	return out.Models, nil
}

// do sends the request until it succeeds, fails for good, runs out of
// attempts or ctx ends, and decodes a 200 body into out.
func (c *Client) do(ctx context.Context, method, path string, body []byte, out any) error {
	if c.baseErr != nil {
		return &Error{Type: TypeInvalidRequest, Message: c.baseErr.Error(), Err: c.baseErr}
	}
	for attempt := 1; ; attempt++ {
		err := c.once(ctx, method, c.base+path, body, out)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return canceled(ctx, err)
		}
		if !err.Retryable() || attempt >= c.maxAttempts {
			return err
		}
		wait := c.backoff(attempt)
		if err.RetryAfter > 0 {
			wait = min(err.RetryAfter, c.maxRetryWait)
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			// The retry could not finish in time; the last answer is
			// more useful than a deadline error after a pointless wait.
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return canceled(ctx, err)
		case <-t.C:
		}
	}
}

// backoff is the jittered exponential wait after the given attempt: a
// random duration in [d/2, d] with d = base·2^(attempt−1) capped at max, so
// that many clients refused at once do not return at once.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.backoffBase
	for i := 1; i < attempt && d < c.backoffMax; i++ {
		d *= 2
	}
	d = min(d, c.backoffMax)
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}

func canceled(ctx context.Context, last *Error) *Error {
	return &Error{
		Type:      TypeCanceled,
		Message:   fmt.Sprintf("gave up: %v (last error: %v)", ctx.Err(), last),
		RequestID: last.RequestID,
		Err:       ctx.Err(),
	}
}

// once makes one attempt.
func (c *Client) once(ctx context.Context, method, url string, body []byte, out any) *Error {
	if c.attemptTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.attemptTimeout)
		defer cancel()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return &Error{Type: TypeInvalidRequest, Message: err.Error(), Err: err}
	}
	hreq.Header.Set("Accept", "application/json")
	if body != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.key)
	}
	hresp, err := c.hc.Do(hreq)
	if err != nil {
		typ := TypeConnection
		if errors.Is(err, context.DeadlineExceeded) {
			typ = TypeTimeout
		}
		return &Error{Type: typ, Message: fmt.Sprintf("%s %s", method, url), Err: err}
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, maxResponseBytes))
	rid := hresp.Header.Get("x-request-id")
	if err != nil {
		typ := TypeConnection
		if errors.Is(err, context.DeadlineExceeded) {
			typ = TypeTimeout
		}
		// Status stays 0: no complete response arrived, and the attempt may be retried.
		return &Error{Type: typ, Message: fmt.Sprintf("reading the %d response", hresp.StatusCode), RequestID: rid, Err: err}
	}
	if hresp.StatusCode != http.StatusOK {
		return ParseError(hresp.StatusCode, hresp.Header, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &Error{Status: hresp.StatusCode, Type: TypeInvalidResponse, Message: "decoding the response", RequestID: rid, Err: err}
	}
	return nil
}
