package providers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/systemone"
)

func logTo(b *bytes.Buffer) *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) }

func status503(w http.ResponseWriter, _ systemone.Request) {
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusServiceUnavailable)
	fmt.Fprint(w, "upstream down for maintenance")
}

func provider(source string, b engine.Engine) Provider {
	return Provider{Source: source, Backend: b}
}

// A failing first provider (503, or nothing listening) is skipped for the
// next, which answers; the skip is logged.
func TestFallbackSkipsFailingProviders(t *testing.T) {
	good := newFakeSystemOne(t, nil)
	down := newFakeSystemOne(t, status503)
	for _, first := range []struct{ name, url string }{{"503", down.srv.URL}, {"refused", refusedURL(t)}} {
		t.Run(first.name, func(t *testing.T) {
			var logs bytes.Buffer
			f := NewFallback([]Provider{
				provider("first", newSystemOne(first.url, calibrate.File{})),
				provider("second", newSystemOne(good.srv.URL, calibrate.File{})),
			}, 10*time.Second, logTo(&logs))
			before := len(good.recorded())
			resp, err := f.Ask(context.Background(), mixed())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Model != "peer-model-2026-01-01" || len(resp.Answers) != 3 || len(good.recorded()) != before+1 {
				t.Errorf("model %q, %d answers, second provider called %d times", resp.Model, len(resp.Answers), len(good.recorded())-before)
			}
			if !strings.Contains(logs.String(), "provider failed; trying the next") || !strings.Contains(logs.String(), "provider=first") {
				t.Errorf("log:\n%s", logs.String())
			}
			if strings.Contains(logs.String(), testKey) {
				t.Errorf("the key is in the log:\n%s", logs.String())
			}
		})
	}
}

// A provider that sheds (every slot busy) is skipped too.
func TestFallbackSkipsASheddingProvider(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{}, 1)
	slow := newFakeSystemOne(t, func(w http.ResponseWriter, req systemone.Request) {
		entered <- struct{}{}
		<-release
		biased(t, w, req)
	})
	good := newFakeSystemOne(t, nil)
	busy := NewSystemOne(Settings{BaseURL: slow.srv.URL, APIKey: testKey, Model: "m", Source: "busy", MaxInFlight: 1})
	f := NewFallback([]Provider{provider("busy", busy), provider("good", newSystemOne(good.srv.URL, calibrate.File{}))}, 10*time.Second, logTo(new(bytes.Buffer)))
	go func() { _, _ = busy.Ask(context.Background(), mixed()) }()
	<-entered
	defer close(release)
	if _, err := f.Ask(context.Background(), mixed()); err != nil {
		t.Fatal(err)
	}
	if len(good.recorded()) != 1 {
		t.Errorf("the next provider answered %d requests, want 1", len(good.recorded()))
	}
}

// A request the first provider refuses as the caller's is answered with
// that refusal: the next provider is not asked.
func TestFallbackReturnsTheCallersErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply func(http.ResponseWriter, systemone.Request)
	}{
		{"validation", func(w http.ResponseWriter, _ systemone.Request) {
			writeJSON(w, 422, map[string]any{"detail": []map[string]any{{"loc": []string{"body", "state"}, "msg": "too long", "type": "too_long"}}})
		}},
		{"too large", func(w http.ResponseWriter, _ systemone.Request) {
			writeJSON(w, 413, map[string]any{"detail": map[string]any{"error_type": "request_too_large", "message": "too large"}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refusing := newFakeSystemOne(t, tc.reply)
			good := newFakeSystemOne(t, nil)
			f := NewFallback([]Provider{
				provider("first", newSystemOne(refusing.srv.URL, calibrate.File{})),
				provider("second", newSystemOne(good.srv.URL, calibrate.File{})),
			}, 10*time.Second, logTo(new(bytes.Buffer)))
			_, err := f.Ask(context.Background(), mixed())
			if !CallersFault(err) {
				t.Fatalf("error %v, want the caller's", err)
			}
			if n := len(good.recorded()); n != 0 {
				t.Errorf("the next provider was asked %d times", n)
			}
		})
	}
}

// The Decisions kind falls back like the others, and a refusal does not.
func TestFallbackAcrossKinds(t *testing.T) {
	dec := newFakeDecisions(t, nil)
	down := newFakeSystemOne(t, status503)
	good := newFakeSystemOne(t, nil)
	f := NewFallback([]Provider{
		provider("peer", newSystemOne(down.srv.URL, calibrate.File{})),
		provider("openai", newDecisions(t, dec.srv.URL, calibrate.File{})),
		provider("spare", newSystemOne(good.srv.URL, calibrate.File{})),
	}, 10*time.Second, logTo(new(bytes.Buffer)))
	resp, err := f.Ask(context.Background(), mixed())
	if err != nil || resp.Model != "gpt-6-luna-2026-05-01" {
		t.Fatalf("resp %+v, err %v; want the Decisions provider's answer", resp, err)
	}
	req := mixed()
	req.Questions["weapons"] = systemone.Question{Type: systemone.TypeNoul, Instructions: raw(`"REFUSE"`)}
	if _, err := f.Ask(context.Background(), req); fault.CodeOf(err) != fault.InvalidArgument {
		t.Errorf("refusal: %v, want the caller's 400", err)
	}
	if n := len(good.recorded()); n != 0 {
		t.Errorf("the spare was asked %d times", n)
	}
}

// When every provider fails, the last failure is the answer.
func TestFallbackAllFail(t *testing.T) {
	down := newFakeSystemOne(t, status503)
	keyRefused := newFakeSystemOne(t, func(w http.ResponseWriter, _ systemone.Request) {
		writeJSON(w, 401, map[string]any{"detail": map[string]any{"error_type": "authentication_error", "message": "unknown bearer key"}})
	})
	f := NewFallback([]Provider{
		provider("first", newSystemOne(down.srv.URL, calibrate.File{})),
		provider("second", newSystemOne(keyRefused.srv.URL, calibrate.File{})),
	}, 10*time.Second, logTo(new(bytes.Buffer)))
	_, err := f.Ask(context.Background(), mixed())
	if fe := fault.From(err); fe.Code != fault.Misconfigured || !strings.Contains(fe.Message, "PEER_KEY") {
		t.Fatalf("%v → %v, want the second provider's refused key", err, fe)
	}
}

// The fallback's deadline bounds every provider of a request: a provider
// that hangs is cut off and nothing is left for the next.
func TestFallbackDeadline(t *testing.T) {
	stop := make(chan struct{})
	hang := newFakeSystemOne(t, func(w http.ResponseWriter, req systemone.Request) {
		select {
		case <-stop:
		case <-time.After(10 * time.Second):
		}
	})
	t.Cleanup(func() { close(stop) }) // before the server's Close, which waits for its handlers
	good := newFakeSystemOne(t, nil)
	f := NewFallback([]Provider{
		provider("hangs", newSystemOne(hang.srv.URL, calibrate.File{})),
		provider("good", newSystemOne(good.srv.URL, calibrate.File{})),
	}, 300*time.Millisecond, logTo(new(bytes.Buffer)))
	start := time.Now()
	_, err := f.Ask(context.Background(), mixed())
	if fe := fault.From(err); fe.Code != fault.Overloaded || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v → %v, want overloaded by the deadline", err, fe)
	}
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Errorf("took %v; the deadline was 300ms", took)
	}
	if n := len(good.recorded()); n != 0 {
		t.Errorf("asked the next provider %d times after the deadline", n)
	}
}

// Every provider call that was sent is charged to the request's meter: the
// failed first provider's at its request as counted here (its reply had no
// count), the second's as it reported; a provider that could not be
// reached sent nothing and is charged nothing.
func TestFallbackChargesEveryCallSent(t *testing.T) {
	good := newFakeSystemOne(t, nil)
	down := newFakeSystemOne(t, status503)
	for _, first := range []struct {
		name, url string
		calls     int64
	}{{"503", down.srv.URL, 2}, {"refused", refusedURL(t), 1}} {
		t.Run(first.name, func(t *testing.T) {
			f := NewFallback([]Provider{
				provider("first", newSystemOne(first.url, calibrate.File{})),
				provider("second", newSystemOne(good.srv.URL, calibrate.File{})),
			}, 10*time.Second, slog.New(slog.DiscardHandler))
			var meter engine.Meter
			resp, err := f.Ask(engine.WithMeter(context.Background(), &meter), mixed())
			if err != nil {
				t.Fatal(err)
			}
			if meter.Calls() != first.calls {
				t.Fatalf("meter counted %d calls, want %d", meter.Calls(), first.calls)
			}
			u := meter.Usage()
			if first.calls == 2 && u.InputTokens <= resp.Usage.InputTokens {
				t.Errorf("charged %d input tokens, want the answer's %d and the failed call's", u.InputTokens, resp.Usage.InputTokens)
			}
			if first.calls == 1 && u.InputTokens != resp.Usage.InputTokens {
				t.Errorf("charged %d input tokens, want only the answer's %d", u.InputTokens, resp.Usage.InputTokens)
			}
		})
	}
}
