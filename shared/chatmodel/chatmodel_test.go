package chatmodel

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

func TestValidate(t *testing.T) {
	const key = "sk-very-secret"
	tests := []struct {
		name string
		s    Settings
		want string // setting named in the error; "" means valid
	}{
		{"complete", Settings{BaseURL: "http://localhost:8000/v1", APIKey: key, Model: "m"}, ""},
		{"no base url", Settings{APIKey: key, Model: "m"}, EnvBaseURL},
		{"base url without scheme", Settings{BaseURL: "localhost:8000/v1", APIKey: key, Model: "m"}, EnvBaseURL},
		{"no model", Settings{BaseURL: "https://h/v1", APIKey: key}, EnvModel},
		{"no key", Settings{BaseURL: "https://h/v1", Model: "m"}, EnvAPIKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want an error naming %s", err, tt.want)
			}
			if strings.Contains(err.Error(), key) {
				t.Fatalf("error leaks the key: %v", err)
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{EnvBaseURL: " http://x/v1 ", EnvAPIKey: "k", EnvModel: "m"}
	s := FromEnv(func(k string) string { return env[k] })
	if s.BaseURL != "http://x/v1" || s.APIKey != "k" || s.Model != "m" || !s.Configured() {
		t.Fatalf("FromEnv = %+v", s)
	}
	if (Settings{}).Configured() || (Settings{Model: "m"}).Configured() {
		t.Fatal("settings without base URL and key report configured")
	}
}

// The client must hit <base>/chat/completions with the bearer key and must
// not retry by itself: a 500 is seen once.
func TestNewClientNoSDKRetries(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/v1/chat/completions" {
			t.Errorf("path = %s", r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer k1" {
			t.Errorf("Authorization = %q", got)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":{"message":"boom","type":"server_error"}}`))
	}))
	defer srv.Close()
	c, err := NewClient(Settings{BaseURL: srv.URL + "/v1", APIKey: "k1", Model: "m", CallTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	if err == nil {
		t.Fatal("want an error from a 500")
	}
	if n := hits.Load(); n != 1 {
		t.Fatalf("server saw %d calls, want 1 (SDK retries must be off)", n)
	}
}

func TestNewClientCallTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := NewClient(Settings{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m", CallTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	if err == nil {
		t.Fatal("want a timeout error")
	}
	// Without the timeout the call would never end: any generous bound tells.
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("call took %v, the 100ms call timeout was not applied", d)
	}
}

func TestNewClientRejectsBadSettings(t *testing.T) {
	if _, err := NewClient(Settings{Model: "m", APIKey: "k"}); err == nil || !strings.Contains(err.Error(), EnvBaseURL) {
		t.Fatalf("NewClient without base URL: %v", err)
	}
}

// The body the transport sends is the SDK's in-memory copy: it arrives
// whole, with its length declared up front rather than chunked.
func TestNewClientSendsWholeBody(t *testing.T) {
	var got []byte
	var length int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		length = r.ContentLength
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[]}`))
	}))
	defer srv.Close()
	c, err := NewClient(Settings{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", 5000) + `"}]}`
	var out map[string]any
	if err := c.Post(context.Background(), "chat/completions", json.RawMessage(body), &out); err != nil {
		t.Fatal(err)
	}
	if string(got) != body {
		t.Fatalf("server got %d bytes, want the %d sent", len(got), len(body))
	}
	if length != int64(len(body)) {
		t.Fatalf("Content-Length = %d, want %d", length, len(body))
	}
}

// A reply past MaxReplyBytes fails with ErrReplyTooLarge: at once when
// its length is announced, after the cap when it is not; one at the cap
// is read whole.
func TestReplyCap(t *testing.T) {
	for _, tc := range []struct {
		name     string
		size     int
		announce bool
		wantErr  bool
	}{
		{"announced, too large", MaxReplyBytes + 1, true, true},
		{"streamed, too large", MaxReplyBytes + 1, false, true},
		{"streamed, at the cap", MaxReplyBytes, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if tc.announce {
					w.Header().Set("Content-Length", strconv.Itoa(tc.size))
				}
				body := `{"id":"x","object":"chat.completion","choices":[]}`
				_, _ = w.Write([]byte(body + strings.Repeat(" ", tc.size-len(body))))
			}))
			t.Cleanup(srv.Close)
			c, err := NewClient(Settings{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "m",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
			if got := errors.Is(err, ErrReplyTooLarge); got != tc.wantErr {
				t.Fatalf("err %v; want ErrReplyTooLarge: %v", err, tc.wantErr)
			}
		})
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", ExcerptRunes+50)
	for _, tc := range []struct{ in, want string }{
		{"  short reply \n", "short reply"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{long, long[:2*ExcerptRunes] + "…"},
	} {
		if got := Excerpt(tc.in); got != tc.want {
			t.Errorf("Excerpt(%.20q…) = %.20q…, want %.20q…", tc.in, got, tc.want)
		}
	}
}
