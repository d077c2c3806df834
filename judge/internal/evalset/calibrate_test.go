package evalset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/systemone"
)

// overconfident is an OpenAI-compatible endpoint whose model always puts
// 0.95 on the first option (label A) and 0.9 on yes.
func overconfident(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		first, second := "A", "B"
		pFirst := 0.95
		if strings.Contains(string(body), "yes or no") {
			first, second, pFirst = "yes", "no", 0.9
		}
		lp := func(tok string, p float64) map[string]any {
			return map[string]any{"token": tok, "logprob": math.Log(p), "bytes": []byte(tok)}
		}
		head := lp(first, pFirst)
		head["top_logprobs"] = []any{lp(first, pFirst), lp(second, 1-pFirst)}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "created": time.Now().Unix(), "model": "fake-2025",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message":  map[string]any{"role": "assistant", "content": first},
				"logprobs": map[string]any{"content": []any{head}}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// writeItems writes 40 choice items, the first option right in 28 (70%),
// and 12 noul items, yes right in 9 (75%).
func writeItems(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for i := range 40 {
		gold := "billing"
		if i%10 >= 7 {
			gold = "technical"
		}
		fmt.Fprintf(&b, `{"state": "ticket %d", "question": {"type": "choice", "instructions": "Which team?", "criteria": {"billing": "invoices", "technical": null}}, "answer": %q}`+"\n", i, gold)
	}
	for i := range 12 {
		fmt.Fprintf(&b, `{"state": {"ticket": %d}, "question": {"type": "noul", "instructions": "Urgent?"}, "answer": %v}`+"\n", i, i%4 != 0)
	}
	path := filepath.Join(dir, "labeled.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunFitsAndWritesCalibration(t *testing.T) {
	srv := overconfident(t)
	dir := t.TempDir()
	data := writeItems(t, dir)
	out := filepath.Join(dir, "cal.json")
	// An existing entry for another model must survive the update.
	prev := calibrate.File{Version: calibrate.FileVersion, Models: map[string]calibrate.Model{
		"other": {Readout: "logprobs", Temperatures: map[string]float64{"noul": 1.5}},
	}}
	if err := prev.Save(out); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"LLM_BASE_URL": srv.URL + "/v1", "LLM_API_KEY": "k", "LLM_MODEL": "ignored"}
	var stdout bytes.Buffer
	err := Run(context.Background(), []string{"--data", data, "--model", "fake", "--out", out},
		func(k string) string { return env[k] }, &stdout, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, stdout.String())
	}
	t.Log(stdout.String())
	f, err := calibrate.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := f.Models["fake"]
	if !ok || m.Readout != "logprobs" {
		t.Fatalf("entry %+v", m)
	}
	if f.Models["other"].Temperatures["noul"] != 1.5 {
		t.Fatalf("the other model's entry was lost: %+v", f.Models)
	}
	// The model states .95 but is right 70% of the time: T > 1 and the
	// calibrated probability of the first option is about .7.
	tc := m.Temperatures["choice"]
	if tc <= 1 {
		t.Fatalf("choice temperature %v, want > 1", tc)
	}
	if p := calibrate.Scale([]float64{0.95, 0.05}, tc)[0]; math.Abs(p-0.7) > 0.01 {
		t.Fatalf("calibrated p = %v, want about 0.7", p)
	}
	if b, a := m.Before["choice"], m.After["choice"]; a.ECE >= b.ECE || a.LogLoss >= b.LogLoss || b.N != 40 || b.Accuracy != 0.7 {
		t.Fatalf("choice metrics before %+v after %+v", b, a)
	}
	if tn := m.Temperatures["noul"]; tn <= 1 {
		t.Fatalf("noul temperature %v, want > 1 (.9 stated, .75 right)", tn)
	}
	for _, want := range []string{"choice", "noul", "ECE before → after", "wrote " + out} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}

	// The serving adapter built from the same settings applies the file.
	env[EnvCalibrationFile] = out
	env["LLM_MODEL"] = "fake"
	s, err := SettingsFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	ad, err := NewAdapter(s, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	items, err := readItems(data)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ad.Ask(context.Background(), items[0].req)
	if err != nil {
		t.Fatal(err)
	}
	if p := resp.Answers["q"].Probabilities["billing"]; math.Abs(p-0.7) > 0.01 {
		t.Fatalf("served p(billing) = %v, want the calibrated 0.7", p)
	}
}

func TestParseItem(t *testing.T) {
	choice := `"question": {"type": "choice", "instructions": "i", "criteria": {"a": null, "b": null}}`
	score := `"question": {"type": "score", "instructions": "i", "criteria": ["low", "mid", "high"]}`
	noul := `"question": {"type": "noul", "instructions": "i"}`
	tests := []struct {
		line string
		gold int
		err  string
	}{
		{`{"state": "s", ` + choice + `, "answer": "b"}`, 1, ""},
		{`{"state": "s", ` + choice + `, "answer": "c"}`, 0, "names one of the options"},
		{`{"state": "s", ` + score + `, "answer": 2}`, 2, ""},
		{`{"state": "s", ` + score + `, "answer": "mid"}`, 1, ""},
		{`{"state": "s", ` + score + `, "answer": 3}`, 0, "level index 0..2"},
		{`{"state": "s", ` + score + `, "answer": 1.5}`, 0, "level index"},
		{`{"state": "s", ` + noul + `, "answer": false}`, 1, ""},
		{`{"state": "s", ` + noul + `, "answer": "yes"}`, 0, ""},
		{`{"state": "s", ` + noul + `}`, 0, "missing"},
		{`{"state": 5, ` + noul + `, "answer": true}`, 0, "state"},
		{`not json`, 0, "invalid"},
	}
	for _, tt := range tests {
		it, err := parseItem([]byte(tt.line))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.line, err, tt.err)
			}
			continue
		}
		if err != nil || it.gold != tt.gold {
			t.Errorf("%s: gold %d err %v, want %d", tt.line, it.gold, err, tt.gold)
		}
	}
}

func TestRunNeedsData(t *testing.T) {
	err := Run(context.Background(), nil, func(string) string { return "" }, io.Discard, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "--data") {
		t.Fatalf("err %v", err)
	}
}

func TestSettingsFromEnv(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want func(Settings) bool
		err  string
	}{
		{map[string]string{}, func(s Settings) bool {
			return s.Readout == systemone.ReadoutAuto && s.Rotations == 1 && s.Structured && s.Concurrency == systemone.DefaultUpstreamConcurrency &&
				s.Queue == systemone.DefaultUpstreamQueue && s.Timeout == systemone.DefaultRequestTimeout
		}, ""},
		{map[string]string{EnvQueue: "0", EnvTimeout: "1500ms"}, func(s Settings) bool {
			return s.Queue == 0 && s.Timeout == 1500*time.Millisecond
		}, ""},
		{map[string]string{EnvQueue: "-1"}, nil, EnvQueue},
		{map[string]string{EnvTimeout: "0s"}, nil, EnvTimeout},
		{map[string]string{EnvTimeout: "soon"}, nil, EnvTimeout},
		{map[string]string{EnvReadout: "probabilities", EnvRotations: "3", EnvStructuredOutputs: "false", EnvConcurrency: "16"}, func(s Settings) bool {
			return s.Readout == systemone.ReadoutProbabilities && s.Rotations == 3 && !s.Structured && s.Concurrency == 16
		}, ""},
		{map[string]string{EnvReadout: "guess"}, nil, EnvReadout},
		{map[string]string{EnvRotations: "0"}, nil, EnvRotations},
		{map[string]string{EnvConcurrency: "x"}, nil, EnvConcurrency},
		{map[string]string{EnvStructuredOutputs: "maybe"}, nil, EnvStructuredOutputs},
	}
	for _, tt := range tests {
		s, err := SettingsFromEnv(func(k string) string { return tt.env[k] })
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: err %v, want one naming %s", tt.env, err, tt.err)
			}
			continue
		}
		if err != nil || !tt.want(s) {
			t.Errorf("%v: %+v, %v", tt.env, s, err)
		}
	}
}
