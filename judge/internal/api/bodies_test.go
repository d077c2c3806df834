package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/limits"
	judgemetrics "github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/shared/jsonscan/hostile"
	"github.com/judgeworks/shared/tokens"
)

// refusing is a judge as a deployment runs one (the default limits)
// before the model, counting tokens with count: every body these tests
// send is refused before any model call.
func refusing(t *testing.T, count limits.Counter) (http.Handler, *planned) {
	t.Helper()
	keys, err := auth.ParseBearerKeys("k")
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	backend := &planned{tokens: 1}
	if err := reg.Add(registry.Model{Name: "m-1", Aliases: []string{"m-latest"}, Backend: backend}); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	return New(logger, Deps{
		Keys: keys, Registry: reg, Metrics: judgemetrics.New(), Tokens: count,
		Limiter: ratelimit.New(context.Background(), ratelimit.Settings{RPM: 1 << 30, TPM: 15_000_000, IDs: keyIDs(keys)}),
	}), backend
}

// Each route's body around a value where a request may hold any JSON
// document, about the body limit in all.
var routes = []struct {
	name, path string
	wrap       func(hostile.Value) []byte
}{
	{"systemone state", "/v1/systemone", func(v hostile.Value) []byte {
		return []byte(`{"model":"m-latest","state":` + v.JSON + `,"questions":{"q":{"type":"noul","instructions":"Refund?"}}}`)
	}},
	{"decisions input_json", "/v1/decisions", func(v hostile.Value) []byte {
		return []byte(`{"model":"m-latest","input":[{"role":"user","content":[{"type":"input_json","data":` + v.JSON +
			`}]}],"questions":[{"type":"predicate","instructions":"Refund?"}]}`)
	}},
}

const valueSize = DefaultBodyLimit - 300

func refuse(h http.Handler, path string, body []byte) int {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer k")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// TestHostileBodiesCostWhatPlainOnesDo: on both routes a body of about
// 1 MiB shaped to make the reader work (escapes, deep nesting, numbers,
// many tiny values) costs at most 20 times the CPU of an ordinary JSON
// document of the same size, all the way to its refusal by the token
// bound, and allocates at most 8 times its size. (Measured on two busy
// cores: 1 to 11 times; a reader quadratic in its input is hundreds of
// times at this size, and more the larger the body.)
// A megabyte of escaped backslashes took 8 to 18 seconds before the 422
// (a second search to the closing quote after each backslash), a
// megabyte of "[],[]…" 43 MB in the tokenizer, and on /v1/decisions a
// megabyte of "{},{}…" 130 MB (a map and a copy per element, a problem
// per element).
//
// Tokens are counted as bytes here: what is compared is reading the body.
// The tokenizer merges a run of punctuation byte by byte where it takes
// prose a word at a time, so it has bounds of its own: memory that does
// not grow with a text (shared/tokens) and counting that stops at the
// limit (limits.Check).
func TestHostileBodiesCostWhatPlainOnesDo(t *testing.T) {
	h, backend := refusing(t, byteCounter{})
	for _, r := range routes {
		t.Run(r.name, func(t *testing.T) {
			hostile.Check(t, hostile.Document(valueSize), hostile.Bounds{TimeRatio: 50, Allocated: 8}, r.wrap, func(body []byte) {
				if code := refuse(h, r.path, body); code == http.StatusOK {
					t.Fatalf("a body of %d bytes was answered", len(body))
				}
			})
		})
	}
	if n := backend.asked.Load(); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
}

// TestConcurrentTinyArraysHoldLittleMemory: 16 bodies of 1 MiB of tiny
// arrays ("state":[[],[],…]) sent at once to a judge with the real
// tokenizer raise the heap by at most 8 times what they weigh together,
// and allocate at most 8 times as much.
// They raised it by more than 600 MB: 43 MB each in the tokenizer on
// /v1/systemone, 360 MB each in the decoder on /v1/decisions.
func TestConcurrentTinyArraysHoldLittleMemory(t *testing.T) {
	h, _ := refusing(t, tokens.Default())
	for _, r := range routes {
		t.Run(r.name, func(t *testing.T) {
			body := r.wrap(hostile.Values(valueSize)[7]) // tiny arrays
			if !strings.Contains(string(body[:100]), "[[],[]") {
				t.Fatalf("not tiny arrays: %.100s", body)
			}
			refuse(h, r.path, body) // pools and caches filled
			const n = 16
			heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			runtime.GC()
			metrics.Read(heap)
			base := heap[0].Value.Uint64()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)

			var peak uint64
			done := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				for {
					metrics.Read(heap)
					peak = max(peak, heap[0].Value.Uint64())
					select {
					case <-done:
						return
					case <-time.After(time.Millisecond):
					}
				}
			}()
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					if code := refuse(h, r.path, body); code != http.StatusUnprocessableEntity {
						t.Errorf("status %d, want 422", code)
					}
				})
			}
			wg.Wait()
			close(done)
			<-sampled
			runtime.ReadMemStats(&after)

			size := float64(n * len(body))
			allocated := float64(after.TotalAlloc - before.TotalAlloc)
			raised := float64(peak) - float64(base)
			t.Logf("%d bodies of %d bytes: heap raised %.1f MB at most (%.1fx), %.1f MB allocated (%.1fx)",
				n, len(body), raised/1e6, raised/size, allocated/1e6, allocated/size)
			if allocated > 8*size {
				t.Errorf("%.1f MB allocated, %.1fx the bodies; want at most 8x", allocated/1e6, allocated/size)
			}
			if raised > 8*size {
				t.Errorf("heap raised by %.1f MB, %.1fx the bodies; want at most 8x", raised/1e6, raised/size)
			}
		})
	}
}

// TestNullLevelRefusedBeforeAnyCharge: a score question with a null
// level is 422 naming the level, before any model call and with no token
// taken; it was answered (and charged) with "legend": {"1": null}, which
// the System One Go SDK refuses as an invalid response.
func TestNullLevelRefusedBeforeAnyCharge(t *testing.T) {
	backend := &planned{tokens: 10}
	srv, _ := judge(t, backend, ratelimit.Settings{RPM: 100, TPM: 6000}, 0)
	first := post(t, srv.URL, "k", `{"model":"m-latest","state":"I was charged twice!",`+
		`"questions":{"anger":{"type":"score","instructions":"How upset?","criteria":["calm","angry"]}}}`)
	if first.status != http.StatusOK {
		t.Fatalf("%d %s", first.status, first.body)
	}
	_, before, _ := limitHeaders(t, first.header, "tokens")
	a := post(t, srv.URL, "k", `{"model":"m-latest","state":"I was charged twice!",`+
		`"questions":{"anger":{"type":"score","instructions":"How upset?","criteria":["calm",null,"angry"]}}}`)
	if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, `"loc":["body","questions","anger","score","criteria","1"]`) {
		t.Fatalf("%d %s, want 422 naming the level", a.status, a.body)
	}
	if _, after, _ := limitHeaders(t, a.header, "tokens"); after < before {
		t.Errorf("tokens left %d after the refusal, %d before", after, before)
	}
	if n := backend.asked.Load(); n != 1 {
		t.Errorf("the model was asked %d times, want once (the first request)", n)
	}
}
