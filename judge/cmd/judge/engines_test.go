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
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/lexical"
	"github.com/judgeworks/judge/internal/semantic"
	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/systemone"
)

type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s) }

// overconfident is an OpenAI-compatible endpoint whose model puts 0.95 on
// the first label of every logprobs call.
func overconfident(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		lp := func(tok string, p float64) map[string]any {
			return map[string]any{"token": tok, "logprob": math.Log(p)}
		}
		head := lp("A", 0.95)
		head["top_logprobs"] = []any{lp("A", 0.95), lp("B", 0.05)}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"model": "fake-2025", "created": time.Now().Unix(),
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "A"},
				"logprobs": map[string]any{"content": []any{head}}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 1},
		})
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
	reg, err := newRegistry(cfg, byteCounter{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := reg.Resolve("llm-latest")
	if !ok {
		t.Fatal("llm-latest is not registered with a language model configured")
	}
	if _, ok := reg.Resolve(lexical.Alias); !ok {
		t.Fatal("the offline engine is not registered beside the language model")
	}
	req := systemone.Request{Model: "llm-latest", State: json.RawMessage(`"a ticket"`), Questions: map[string]systemone.Question{
		"team": {Type: systemone.TypeChoice, Instructions: json.RawMessage(`"Which team?"`),
			Options: []systemone.Option{{Name: "billing"}, {Name: "technical"}}},
	}}
	resp, err := reg.Ask(context.Background(), m, req)
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
	reg, err := newRegistry(cfg, byteCounter{}, slog.New(slog.DiscardHandler))
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
	_, err = newRegistry(cfg, byteCounter{}, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "JUDGE_CALIBRATION_FILE") {
		t.Fatalf("err %v, want one naming JUDGE_CALIBRATION_FILE", err)
	}
}
