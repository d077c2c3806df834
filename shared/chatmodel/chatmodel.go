// Package chatmodel holds the LLM_* settings of an OpenAI-compatible chat
// endpoint and builds its client. Both services read the settings once in
// main with FromEnv and follow one rule: a language model is configured
// when LLM_BASE_URL or LLM_API_KEY is set (Configured; a model name alone,
// say a default left in .env, does not switch a service to a provider), and
// a configured model must pass Validate or the service refuses to start,
// with an error naming the setting. Not configured, both run on their
// offline engines. The judge's chat adapter (shared/chatadapter) and the
// interview's interviewer call the model through NewClient.
package chatmodel

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/judgeworks/shared/settings"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/judgeworks/shared/tracing"
)

// Setting names, shared so that error messages name the exact variable.
const (
	EnvBaseURL = "LLM_BASE_URL"
	EnvAPIKey  = "LLM_API_KEY"
	EnvModel   = "LLM_MODEL"
)

// DefaultCallTimeout bounds one chat call when the caller sets nothing
// shorter; a chat endpoint that has not answered in this time is treated as
// failing, not slow.
const DefaultCallTimeout = 30 * time.Second

// MaxReplyBytes bounds the body of one reply of a chat endpoint, read
// through every client NewClient builds. A reply capped at a few thousand
// tokens is tens of kilobytes; a provider that answers without end must
// not take the memory of the service reading it.
const MaxReplyBytes = 8 << 20

// ErrReplyTooLarge is the error of reading a reply longer than
// MaxReplyBytes.
var ErrReplyTooLarge = fmt.Errorf("the model's reply is larger than %d bytes", MaxReplyBytes)

// ExcerptRunes is the most of a model's reply that is quoted back: to the
// model in a corrective retry, and in logs and errors.
const ExcerptRunes = 300

// Excerpt shortens a model's reply (or a provider's text) for a corrective
// message, a log line or an error: valid UTF-8, trimmed, at most
// ExcerptRunes characters.
func Excerpt(s string) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	if utf8.RuneCountInString(s) <= ExcerptRunes {
		return s
	}
	return string([]rune(s)[:ExcerptRunes]) + "…"
}

// Settings say which endpoint, key and model to use.
type Settings struct {
	// BaseURL includes the version path, e.g. https://host/v1.
	BaseURL string
	APIKey  string
	Model   string
	// CallTimeout is the deadline of one HTTP call; zero means DefaultCallTimeout.
	CallTimeout time.Duration
}

// FromEnv reads the LLM_* settings with lookup (os.Getenv in main).
func FromEnv(lookup func(string) string) Settings {
	return Settings{
		BaseURL: strings.TrimSpace(lookup(EnvBaseURL)),
		APIKey:  strings.TrimSpace(lookup(EnvAPIKey)),
		Model:   strings.TrimSpace(lookup(EnvModel)),
	}
}

// Configured reports whether a base URL or a key is set; with neither, the
// services run on their offline engines (a model name alone, say a default
// left in .env, does not switch them to a provider).
func (s Settings) Configured() bool {
	return s.BaseURL != "" || s.APIKey != ""
}

// Redact removes the settings' secrets from text about to be logged: the
// key, and the credentials and query string a base URL may carry
// (https://user:pass@host/v1?api-key=…), each replaced by [redacted].
// Messages for callers name settings and never quote their values; this
// is for the log lines that keep the details.
func (s Settings) Redact(text string) string {
	secrets := []string{s.APIKey}
	if u, err := url.Parse(s.BaseURL); err == nil {
		if u.User != nil {
			p, _ := u.User.Password()
			secrets = append(secrets, u.User.String(), u.User.Username(), p)
		}
		secrets = append(secrets, u.RawQuery)
		for _, vs := range u.Query() {
			secrets = append(secrets, vs...)
		}
	}
	for _, v := range secrets {
		if len(v) >= 3 {
			text = strings.ReplaceAll(text, v, "[redacted]")
		}
	}
	return text
}

// Validate names the first missing or malformed setting. The key itself is
// never part of the message.
func (s Settings) Validate() error {
	if s.BaseURL == "" {
		return fmt.Errorf("%s is not set (an OpenAI-compatible base URL including /v1)", EnvBaseURL)
	}
	if !settings.IsHTTPURL(s.BaseURL) {
		return fmt.Errorf("%s must be an http(s) URL such as https://host/v1", EnvBaseURL)
	}
	if s.Model == "" {
		return fmt.Errorf("%s is not set", EnvModel)
	}
	// Local servers (llama.cpp, vLLM, Ollama) often take any key, but the
	// SDK needs one, and an empty one is almost always a forgotten setting.
	if s.APIKey == "" {
		return fmt.Errorf("%s is not set (local servers accept any non-empty value)", EnvAPIKey)
	}
	return nil
}

// NewClient returns an openai-go client for s. The SDK's own retries are
// off: retries, backoff and the request's deadline are decided by the
// caller, which knows the budget. extra options come last (tests add
// middleware or an HTTP client there).
func NewClient(s Settings, extra ...option.RequestOption) (openai.Client, error) {
	if err := s.Validate(); err != nil {
		return openai.Client{}, err
	}
	timeout := s.CallTimeout
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	opts := []option.RequestOption{
		option.WithBaseURL(s.BaseURL),
		option.WithAPIKey(s.APIKey),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(timeout),
		option.WithHTTPClient(&http.Client{Transport: Transport()}),
		option.WithMiddleware(inMemoryBody, capReply),
	}
	return openai.NewClient(append(opts, extra...)...), nil
}

// inMemoryBody hands the transport the request body as the in-memory
// reader the SDK keeps for retries. The SDK wraps each attempt's body in a
// type net/http cannot see through, so the transport flushes the headers
// and then copies the body: two writes per call instead of one, the
// largest single CPU cost of a call against a provider that answers fast
// or slowly alike.
func inMemoryBody(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	if req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
		if body, err := req.GetBody(); err == nil {
			_ = req.Body.Close()
			req.Body = body
		}
	}
	return next(req)
}

// capReply refuses a reply longer than MaxReplyBytes: at once when its
// length is announced, else as soon as reading passes the cap.
func capReply(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res == nil {
		return res, err
	}
	if res.ContentLength > MaxReplyBytes {
		_ = res.Body.Close()
		return nil, ErrReplyTooLarge
	}
	res.Body = &cappedBody{ReadCloser: res.Body, left: MaxReplyBytes}
	return res, nil
}

// cappedBody reads at most left bytes and fails with ErrReplyTooLarge on
// the byte after.
type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), ErrReplyTooLarge
	}
	return n, err
}

// Transport is an HTTP transport sized for many calls in flight to one
// host: the default keeps only two idle connections per host, so a
// 100-question request would open and close connections on every call.
// Each call is traced while tracing is on (shared/tracing).
func Transport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 512
	t.MaxIdleConnsPerHost = 256
	t.IdleConnTimeout = 90 * time.Second
	return tracing.Transport(t)
}

// IsUnreachable reports whether err means the endpoint could not be reached
// at all (unknown host, refused connection): a wrong LLM_BASE_URL rather
// than a busy provider.
func IsUnreachable(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		var inner *net.DNSError
		if errors.As(opErr.Err, &inner) {
			return inner.IsNotFound
		}
		return strings.Contains(opErr.Err.Error(), "connection refused")
	}
	return false
}
