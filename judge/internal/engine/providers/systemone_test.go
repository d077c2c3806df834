package providers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/systemone"
)

func newSystemOne(base string, cal calibrate.File) *SystemOne {
	return NewSystemOne(Settings{BaseURL: base, APIKey: testKey, Model: "peer/semantic-latest",
		Source: "test provider", KeyEnv: "PEER_KEY", Calibration: cal, CallTimeout: 5 * time.Second})
}

func TestSystemOneForwards(t *testing.T) {
	f := newFakeSystemOne(t, nil)
	p := newSystemOne(f.srv.URL+"/", calibrate.File{})
	resp, err := p.Ask(context.Background(), mixed())
	if err != nil {
		t.Fatal(err)
	}
	calls := f.recorded()
	if len(calls) != 1 {
		t.Fatalf("%d calls, want 1", len(calls))
	}
	c := calls[0]
	if c.path != "/v1/systemone" || c.auth != "Bearer "+testKey || c.req.Model != "peer/semantic-latest" {
		t.Errorf("call %s, auth %q, model %q", c.path, c.auth, c.req.Model)
	}
	// The options went out in canonical order under neutral ids, the
	// levels in theirs.
	team := c.req.Questions["team"].Options
	if got, want := optionTexts(team), optionTexts(systemone.CanonicalOptions(choice("billing", "technical", "sales").Options)); !slices.Equal(got, want) ||
		!slices.Equal(optionNames(team), []string{"o1", "o2", "o3"}) {
		t.Errorf("options sent as %v %v, want o1..o3 with the canonical %v", optionNames(team), got, want)
	}
	if got := c.req.Questions["anger"].Levels; !reflect.DeepEqual(got, systemone.Texts("calm", "annoyed", "angry", "furious")) {
		t.Errorf("levels sent as %v", got)
	}
	if resp.Model != "peer-model-2026-01-01" || resp.Usage.InputTokens != 42 || resp.Usage.OutputTokens != 3 {
		t.Errorf("model %q usage %+v: want the peer's exact model and tokens", resp.Model, resp.Usage)
	}
	// Uncalibrated, the peer's answers come back as they were given.
	if *resp.Answers["refund"].Noul != 0.8 {
		t.Errorf("noul %v, want the peer's 0.8", *resp.Answers["refund"].Noul)
	}
	if len(resp.Answers) != 3 || string(resp.Answers["anger"].Legend["3"]) != `"furious"` {
		t.Errorf("answers %+v", resp.Answers)
	}
}

// Temperatures for the upstream model reshape its distributions as the
// math says: pᵢ ∝ pᵢ^(1/T), per question type; a type without one, and a
// readout the entry does not name, are left alone.
func TestSystemOneCalibrates(t *testing.T) {
	f := newFakeSystemOne(t, nil)
	peer, err := newSystemOne(f.srv.URL, calibrate.File{}).Ask(context.Background(), mixed())
	if err != nil {
		t.Fatal(err)
	}
	temps := map[string]float64{"noul": 2, "choice": 0.5}
	cal := calibrate.File{Version: calibrate.FileVersion, Models: map[string]calibrate.Model{
		"peer/semantic-latest": {Readout: SystemOneReadout, Temperatures: temps},
	}}
	got, err := newSystemOne(f.srv.URL, cal).Ask(context.Background(), mixed())
	if err != nil {
		t.Fatal(err)
	}
	// Noul at T = 2: √.8 / (√.8 + √.2).
	if want := math.Sqrt(0.8) / (math.Sqrt(0.8) + math.Sqrt(0.2)); math.Abs(*got.Answers["refund"].Noul-want) > 1e-12 {
		t.Errorf("noul %v, want %v", *got.Answers["refund"].Noul, want)
	}
	// Choice at T = 0.5 squares the peer's probabilities.
	sum := 0.0
	for _, p := range peer.Answers["team"].Probabilities {
		sum += p * p
	}
	for name, p := range peer.Answers["team"].Probabilities {
		want := p * p / sum
		if g := got.Answers["team"].Probabilities[name]; math.Abs(g-want) > 1e-12 || math.Abs(g-p) < 1e-3 {
			t.Errorf("p(%s) = %v, want %v (peer %v)", name, g, want, p)
		}
	}
	if c := *got.Answers["team"].Confidence; c <= *peer.Answers["team"].Confidence {
		t.Errorf("sharpened confidence %v not above the peer's %v", c, *peer.Answers["team"].Confidence)
	}
	// Score has no temperature: as the peer gave it.
	for k, p := range peer.Answers["anger"].Probabilities {
		if got.Answers["anger"].Probabilities[k] != p {
			t.Errorf("score p(%s) = %v, want the peer's %v", k, got.Answers["anger"].Probabilities[k], p)
		}
	}
	// An entry fitted on another readout does not apply.
	cal.Models["peer/semantic-latest"] = calibrate.Model{Readout: "logprobs", Temperatures: temps}
	other, err := newSystemOne(f.srv.URL, cal).Ask(context.Background(), mixed())
	if err != nil {
		t.Fatal(err)
	}
	if *other.Answers["refund"].Noul != 0.8 {
		t.Errorf("a logprobs entry changed a System One answer: %v", *other.Answers["refund"].Noul)
	}
}

func TestSystemOneFailures(t *testing.T) {
	detail := func(status int, body string) func(http.ResponseWriter, systemone.Request) {
		return func(w http.ResponseWriter, _ systemone.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		}
	}
	for _, tc := range []struct {
		name    string
		reply   func(http.ResponseWriter, systemone.Request)
		status  int  // what the judge answers, by fault.From
		callers bool // refuses the request itself: no fallback
		text    string
	}{
		{"key refused", detail(401, `{"detail":{"error_type":"authentication_error","message":"unknown bearer key"}}`), 502, false, "PEER_KEY"},
		{"model not allowed", detail(403, `{"detail":{"error_type":"permission_denied","message":"no"}}`), 502, false, "PEER_KEY"},
		{"no API there", detail(404, `{"detail":{"error_type":"not_found","message":"no such endpoint"}}`), 502, false, "base URL"},
		{"unknown model", detail(400, `{"detail":{"error_type":"invalid_request","message":"unknown model \"peer/semantic-latest\""}}`), 502, false, "model"},
		{"too large", detail(413, `{"detail":{"error_type":"request_too_large","message":"too big"}}`), 413, true, "too large"},
		{"validation", detail(422, `{"detail":[{"loc":["body","questions","team","criteria"],"msg":"at most 4 options","type":"too_long"}]}`), 422, true, ""},
		{"model field", detail(422, `{"detail":[{"loc":["body","model"],"msg":"unknown","type":"value_error"}]}`), 502, false, "model"},
		{"rate limited", detail(429, `{"detail":{"error_type":"rate_limit_exceeded","message":"slow down"}}`), 529, false, "slow down"},
		{"overloaded", detail(529, `{"detail":{"error_type":"overloaded","message":"busy"}}`), 529, false, "busy"},
		{"unavailable", detail(503, `<html>down</html>`), 529, false, "down"},
		{"server error", detail(500, `{"detail":{"error_type":"internal","message":"internal error"}}`), 502, false, "internal"},
		{"unanswered", func(w http.ResponseWriter, _ systemone.Request) {
			writeJSON(w, 200, systemone.Response{Model: "m", Answers: map[string]systemone.Answer{}})
		}, 502, false, "unanswered"},
		{"wrong type", func(w http.ResponseWriter, req systemone.Request) {
			half := 0.5
			writeJSON(w, 200, systemone.Response{Model: "m", Answers: map[string]systemone.Answer{"team": {Type: systemone.TypeNoul, Noul: &half}}})
		}, 502, false, "noul answer"},
		{"option missing", func(w http.ResponseWriter, req systemone.Request) {
			c := 1.0
			writeJSON(w, 200, systemone.Response{Model: "m", Answers: map[string]systemone.Answer{"team": {Type: systemone.TypeChoice,
				Choice: "billing", Probabilities: map[string]float64{"billing": 0.7, "sales": 0.3}, Confidence: &c}}})
		}, 502, false, "probabilities"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeSystemOne(t, tc.reply)
			_, err := newSystemOne(f.srv.URL, calibrate.File{}).Ask(context.Background(), request(map[string]systemone.Question{"team": choice("billing", "technical", "sales")}))
			if err == nil {
				t.Fatal("no error")
			}
			fe := fault.From(err)
			if status(err) != tc.status || CallersFault(err) != tc.callers {
				t.Errorf("%v → status %d, caller's %v; want %d, %v", err, status(err), CallersFault(err), tc.status, tc.callers)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q does not mention %q", err, tc.text)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(fe.Message, testKey) {
				t.Errorf("the key leaked into %q", err)
			}
			if fe.Code == fault.Overloaded && fe.RetryAfter != 3*time.Second {
				t.Errorf("retry after %v, want the upstream's 3s", fe.RetryAfter)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		_, err := newSystemOne(refusedURL(t), calibrate.File{}).Ask(context.Background(), mixed())
		if fe := fault.From(err); fe.Code != fault.Overloaded || CallersFault(err) {
			t.Errorf("%v → %v, want overloaded", err, fe)
		}
	})
}

// A provider with every slot busy refuses the next request at once.
func TestSystemOneShedsWhenFull(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	f := newFakeSystemOne(t, func(w http.ResponseWriter, req systemone.Request) {
		entered <- struct{}{}
		<-release
		biased(t, w, req)
	})
	p := NewSystemOne(Settings{BaseURL: f.srv.URL, APIKey: testKey, Model: "m", Source: "busy provider", MaxInFlight: 1})
	done := make(chan error, 1)
	go func() {
		_, err := p.Ask(context.Background(), mixed())
		done <- err
	}()
	<-entered
	start := time.Now()
	_, err := p.Ask(context.Background(), mixed())
	if fault.CodeOf(err) != fault.Overloaded || !strings.Contains(err.Error(), "busy provider") {
		t.Fatalf("second request: %v, want an OverloadedError naming the provider", err)
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("shedding took %v; it must not wait for a slot", waited)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("first request: %v", err)
	}
	if _, err := p.Ask(context.Background(), mixed()); err != nil {
		t.Fatalf("after the slot was freed: %v", err)
	}
}

// A key that floods a provider is refused at admission while another
// key's request is admitted beside it and started before the flood's
// backlog (after at most one flood call: the slots go to the keys in
// turn, as the chat adapter's do). One slot; the first flood request
// holds it.
func TestSystemOneSharesSlotsAmongKeys(t *testing.T) {
	release := make(chan struct{})
	started := make(chan string, 300)
	var warm atomic.Bool
	f := newFakeSystemOne(t, func(w http.ResponseWriter, req systemone.Request) {
		if !warm.Swap(true) {
			// The first call is answered after a second: the queue admits
			// waiting work only once it has measured the provider.
			time.Sleep(time.Second)
			biased(t, w, req)
			return
		}
		started <- string(req.State)
		<-release
		biased(t, w, req)
	})
	p := NewSystemOne(Settings{BaseURL: f.srv.URL, APIKey: testKey, Model: "m", Source: "shared provider",
		MaxInFlight: 1, Queue: 1000, MaxWait: time.Minute})
	if _, err := p.Ask(context.Background(), mixed()); err != nil {
		t.Fatal(err)
	}
	results := make(chan error, 300)
	ask := func(key, state string) chan error {
		req := mixed()
		req.State = raw(strconv.Quote(state))
		errc := make(chan error, 1)
		go func() {
			_, err := p.Ask(fairqueue.WithTenant(context.Background(), key), req)
			errc <- err
		}()
		return errc
	}
	// queued waits until the request answered on errc or holds a call
	// waiting in the queue beyond before, and reports which.
	queued := func(errc chan error, before int) (bool, error) {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			select {
			case err := <-errc:
				return false, err
			default:
			}
			if p.slots.Stats().Pending > before {
				return true, nil
			}
			time.Sleep(time.Millisecond)
		}
		t.Fatal("a request neither answered nor queued within a minute")
		return false, nil
	}

	first := ask("flood", "flood 0")
	if got := <-started; got != `"flood 0"` {
		t.Fatalf("first call %s", got)
	}
	admitted := 1
	for i := 1; ; i++ {
		if i == 200 {
			t.Fatal("the flood was never refused")
		}
		errc := ask("flood", fmt.Sprintf("flood %d", i))
		ok, err := queued(errc, p.slots.Stats().Pending)
		if ok {
			admitted++
			go func() { results <- <-errc }()
			continue
		}
		if fault.CodeOf(err) != fault.Overloaded || !strings.Contains(err.Error(), "shared provider") {
			t.Fatalf("flood request %d: %v, want an OverloadedError naming the provider", i, err)
		}
		break
	}
	light := ask("light", "light")
	if ok, err := queued(light, p.slots.Stats().Pending); !ok {
		t.Fatalf("the light key's request beside the flood: %v, want it admitted", err)
	}
	floodFirst := 0
	for {
		release <- struct{}{} // the call in flight ends; the next starts
		got := <-started
		if got == `"light"` {
			break
		}
		if floodFirst++; floodFirst > 1 {
			t.Fatalf("%d of the flood's waiting calls started before the light key's", floodFirst)
		}
	}
	close(release)
	if err := <-light; err != nil {
		t.Fatalf("light key: %v", err)
	}
	if err := <-first; err != nil {
		t.Fatalf("first flood request: %v", err)
	}
	for range admitted - 1 {
		if err := <-results; err != nil {
			t.Fatalf("an admitted flood request: %v", err)
		}
	}
}

// status is what the judge answers for err: its HTTP layer writes a
// validation error as 422 with the list, anything else by fault.From.
func status(err error) int {
	var ve *systemone.ValidationError
	if errors.As(err, &ve) {
		return http.StatusUnprocessableEntity
	}
	return fault.From(err).Code.Status()
}

func optionNames(opts []systemone.Option) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Name
	}
	return out
}

func optionTexts(opts []systemone.Option) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Text()
	}
	return out
}

// A System One upstream's wire error is read once, here: no answer, its
// rate limit, saturation or a gateway timeout is Overloaded; anything else
// Upstream; its message is kept, and its error_type unless it would
// mislead the caller.
func TestWire(t *testing.T) {
	tests := []struct {
		name       string
		err        *systemone.Error
		status     int
		kind       string
		message    string
		retryAfter time.Duration
	}{
		{"upstream saturated", &systemone.Error{Status: 529, Type: "overloaded", Message: "upstream saturated", RetryAfter: 3 * time.Second},
			529, "overloaded", "upstream saturated", 3 * time.Second},
		{"upstream rate limit", &systemone.Error{Status: 429, Type: "rate_limit_exceeded", Message: "slow down"},
			529, "overloaded", "slow down", fault.DefaultRetryAfter},
		{"upstream unreachable", &systemone.Error{Type: "connection_error", Message: "no route"}, 529, "overloaded", "no route", fault.DefaultRetryAfter},
		{"upstream misconfigured", &systemone.Error{Status: 502, Type: "upstream_misconfigured", Message: "model not found upstream"},
			502, "upstream_misconfigured", "model not found upstream", 0},
		{"upstream rejected our key", &systemone.Error{Status: 401, Type: "authentication_error", Message: "bad upstream key"},
			502, "upstream_error", "bad upstream key", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe := wire(tt.err)
			if fe.Code.Status() != tt.status || fe.Kind() != tt.kind || fe.Message != tt.message || fe.RetryAfter != tt.retryAfter {
				t.Errorf("wire(%+v) = %d %s %q after %v, want %d %s %q after %v", tt.err,
					fe.Code.Status(), fe.Kind(), fe.Message, fe.RetryAfter, tt.status, tt.kind, tt.message, tt.retryAfter)
			}
			if !errors.Is(fe, tt.err) {
				t.Error("the wire error is not kept as the cause")
			}
		})
	}
}
