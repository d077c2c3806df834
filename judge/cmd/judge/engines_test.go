package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/engine/lexical"
	"github.com/judgeworks/judge/internal/engine/semantic"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/chatmodel/chatmodeltest"
	"github.com/judgeworks/shared/systemone"
)

// overconfident is an OpenAI-compatible endpoint whose model puts 0.95 on
// the first label of every logprobs call.
func overconfident(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		chatmodeltest.WriteLogprobs(w, "fake-2025", 10, chatmodeltest.Token{Text: "A", P: 0.95}, chatmodeltest.Token{Text: "B", P: 0.05})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The serving adapter applies the configured calibration file's
// temperatures for the configured model.
func TestServeAppliesCalibration(t *testing.T) {
	srv := overconfident(t)
	const temp = 2.5
	file := filepath.Join(t.TempDir(), "cal.json")
	cal := calibrate.File{Version: calibrate.FileVersion, Models: map[string]calibrate.Model{
		"fake": {Readout: "logprobs", Temperatures: map[string]float64{"choice": temp}},
	}}
	if err := cal.Save(file); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(env(map[string]string{"JUDGE_API_KEYS": "k", "LLM_BASE_URL": srv.URL + "/v1",
		"LLM_API_KEY": "local", "LLM_MODEL": "fake", "JUDGE_CALIBRATION_FILE": file}))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := newRegistry(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := reg.Resolve("llm-latest")
	if !ok {
		t.Fatal("llm-latest is not registered with a language model configured")
	}
	if _, ok := reg.Resolve(lexical.Alias); !ok {
		t.Fatal("the lexical engine is not registered beside the language model")
	}
	req := systemone.Request{Model: "llm-latest", State: json.RawMessage(`"a ticket"`), Questions: map[string]systemone.Question{
		"team": {Type: systemone.TypeChoice, Instructions: json.RawMessage(`"Which team?"`),
			Options: []systemone.Option{{Name: "billing"}, {Name: "technical"}}},
	}}
	resp, _, err := reg.Ask(context.Background(), m, checked(t, req))
	if err != nil {
		t.Fatal(err)
	}
	want := calibrate.Scale([]float64{0.95, 0.05}, temp)[0]
	if got := resp.Answers["team"].Probabilities["billing"]; math.Abs(got-want) > 1e-9 {
		t.Fatalf("p(billing) = %v, want the calibrated %v", got, want)
	}
	if resp.Model != "llm-1.0/fake-2025" {
		t.Fatalf("model %q, want llm-1.0 and the upstream snapshot", resp.Model)
	}
}

// Without a base URL or key only the offline engines are registered.
func TestOfflineRegistry(t *testing.T) {
	cfg, err := loadConfig(env(map[string]string{"JUDGE_API_KEYS": "k", "LLM_MODEL": "gpt-4o-mini"}))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := newRegistry(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range reg.Models() {
		names = append(names, m.Name)
	}
	slices.Sort(names)
	if want := []string{lexical.Name, semantic.Name}; !slices.Equal(names, want) {
		t.Fatalf("models %v, want only %v", names, want)
	}
}

// jev-latest, the model every System One SDK asks for by default, is the
// default model's other name: the offline semantic engine without a
// language model, llm-1.0 with one, unless an operator's alias (which may
// name another alias) says otherwise. An alias naming no model stops
// start-up, naming the setting.
func TestModelAliases(t *testing.T) {
	resolve := func(t *testing.T, settings map[string]string, name string) string {
		t.Helper()
		cfg, err := loadConfig(env(settings))
		if err != nil {
			t.Fatal(err)
		}
		reg, err := newRegistry(cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		m, ok := reg.Resolve(name)
		if !ok {
			t.Fatalf("%s resolves to no model", name)
		}
		return m.Name
	}
	if got := resolve(t, map[string]string{"JUDGE_API_KEYS": "k"}, DefaultAlias); got != semantic.Name {
		t.Errorf("offline, jev-latest is %s, want %s", got, semantic.Name)
	}
	llm := map[string]string{"JUDGE_API_KEYS": "k", "LLM_BASE_URL": "http://127.0.0.1:1/v1", "LLM_API_KEY": "local", "LLM_MODEL": "m"}
	if got := resolve(t, llm, DefaultAlias); got != "llm-1.0" {
		t.Errorf("with a language model, jev-latest is %s, want llm-1.0", got)
	}
	aliased := map[string]string{"JUDGE_API_KEYS": "k", "JUDGE_MODEL_ALIASES": "jev-latest=fast, fast=local/lexical-latest"}
	for _, name := range []string{DefaultAlias, "fast"} {
		if got := resolve(t, aliased, name); got != lexical.Name {
			t.Errorf("%s is %s, want %s by JUDGE_MODEL_ALIASES", name, got, lexical.Name)
		}
	}
	cfg, err := loadConfig(env(map[string]string{"JUDGE_API_KEYS": "k", "JUDGE_MODEL_ALIASES": "fast=local/nothing-1.0"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newRegistry(cfg, slog.New(slog.DiscardHandler)); err == nil ||
		!strings.Contains(err.Error(), "JUDGE_MODEL_ALIASES") || !strings.Contains(err.Error(), "local/nothing-1.0") {
		t.Errorf("an alias of no model: err = %v, want one naming the setting and the model", err)
	}
	cfg, err = loadConfig(env(map[string]string{"JUDGE_API_KEYS": "k", "JUDGE_MODEL_ALIASES": "local/lexical-latest=local/semantic-latest"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newRegistry(cfg, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "already") {
		t.Errorf("an alias taking a model's name: err = %v", err)
	}
}

// A calibration file with a temperature no fit can produce stops start-up,
// naming the setting.
func TestBadCalibrationFileStopsServe(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cal.json")
	bad := `{"version": 1, "models": {"fake": {"readout": "logprobs", "temperatures": {"choice": 1000}}}}`
	if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(env(map[string]string{"JUDGE_API_KEYS": "k", "LLM_BASE_URL": "http://127.0.0.1:1/v1",
		"LLM_API_KEY": "local", "LLM_MODEL": "fake", "JUDGE_CALIBRATION_FILE": file}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = newRegistry(cfg, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "JUDGE_CALIBRATION_FILE") {
		t.Fatalf("err %v, want one naming JUDGE_CALIBRATION_FILE", err)
	}
}

// The serving adapter is built with the queue settings: with its one slot
// busy, JUDGE_LLM_MAX_WAIT=0 refuses a second request at once, and the
// default 2 s admits it (one call ahead, estimated at 1 s before any has
// been answered) to be answered once the slot is free. The registry charges
// the adapter's plan: the system message and the state block included.
func TestServeAppliesQueueSettings(t *testing.T) {
	for _, tt := range []struct {
		maxWait string
		admit   bool
	}{{"0s", false}, {"", true}} {
		t.Run("max wait "+tt.maxWait, func(t *testing.T) {
			release := make(chan struct{})
			var calls atomic.Int32
			var hold atomic.Bool
			answer := overconfident(t).Config.Handler
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if hold.Load() {
					calls.Add(1)
					<-release
				}
				answer.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			defer free()
			cfg, err := loadConfig(env(map[string]string{"JUDGE_API_KEYS": "k", "LLM_BASE_URL": srv.URL + "/v1",
				"LLM_API_KEY": "local", "LLM_MODEL": "fake", "JUDGE_LLM_CONCURRENCY": "1", "JUDGE_LLM_MAX_WAIT": tt.maxWait}))
			if err != nil {
				t.Fatal(err)
			}
			reg, err := newRegistry(cfg, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			m, _ := reg.Resolve("llm-latest")
			req := systemone.Request{Model: "llm-latest", State: json.RawMessage(`"a ticket"`), Questions: map[string]systemone.Question{
				"team": {Type: systemone.TypeChoice, Instructions: json.RawMessage(`"Which team?"`),
					Options: []systemone.Option{{Name: "billing"}, {Name: "technical"}}},
			}}
			c := checked(t, req)
			if planned, own := reg.PlannedInputTokens(m, c), c.Tokens; planned < own+100 {
				t.Fatalf("planned %d input tokens for a request of %d: the adapter's plan (system message, state block) was not charged", planned, own)
			}
			ask := func() chan error {
				done := make(chan error, 1)
				go func() { _, _, err := reg.Ask(context.Background(), m, c); done <- err }()
				return done
			}
			// One answered call first: until the queue has measured the
			// model it admits only what its slots can start at once.
			if err := <-ask(); err != nil {
				t.Fatal(err)
			}
			hold.Store(true)
			first := ask()
			for deadline := time.Now().Add(20 * time.Second); calls.Load() == 0; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the first call never reached the upstream")
				}
			}
			second := ask()
			if !tt.admit {
				if err := <-second; fault.CodeOf(err) != fault.Overloaded {
					t.Fatalf("second request with no wait allowed: %v, want an overload", err)
				}
			} else {
				// A refusal comes back in microseconds; an admitted request
				// waits for the slot, which only the release frees.
				select {
				case err := <-second:
					t.Fatalf("second request ended while the slot was held: %v", err)
				case <-time.After(200 * time.Millisecond):
				}
			}
			free()
			if err := <-first; err != nil {
				t.Fatal(err)
			}
			if tt.admit {
				if err := <-second; err != nil {
					t.Fatalf("admitted second request: %v", err)
				}
			}
			if want := map[bool]int32{false: 1, true: 2}[tt.admit]; calls.Load() != want {
				t.Fatalf("the upstream saw %d calls, want %d", calls.Load(), want)
			}
		})
	}
}
