package evalset

import (
	"bytes"
	"context"
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

	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/chatmodel/chatmodeltest"
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
		chatmodeltest.WriteLogprobs(w, "fake-2025", 10, chatmodeltest.Token{Text: first, P: pFirst}, chatmodeltest.Token{Text: second, P: 1 - pFirst})
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

// config is the CalibrateConfig main builds, for a provider at srv.
func config(srv *httptest.Server) CalibrateConfig {
	return CalibrateConfig{
		LLM:     chatmodel.Settings{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "ignored"},
		Adapter: []chatadapter.Option{chatadapter.WithLogger(slog.New(slog.DiscardHandler))},
	}
}

func TestCalibrateFitsAndWritesCalibration(t *testing.T) {
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
	var stdout bytes.Buffer
	err := Calibrate(context.Background(), []string{"--data", data, "--model", "fake", "--out", out}, config(srv), &stdout)
	if err != nil {
		t.Fatalf("Calibrate: %v\n%s", err, stdout.String())
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

}

// Without --out the file is the configured one (JUDGE_CALIBRATION_FILE),
// and without --model the configured model is calibrated.
func TestCalibrateDefaultsFromConfig(t *testing.T) {
	srv := overconfident(t)
	dir := t.TempDir()
	cfg := config(srv)
	cfg.File = filepath.Join(dir, "configured.json")
	if err := Calibrate(context.Background(), []string{"--data", writeItems(t, dir)}, cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	f, err := calibrate.Load(cfg.File)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Models[cfg.LLM.Model]; !ok || len(f.Models) != 1 {
		t.Fatalf("models %v, want only the configured %q", f.Models, cfg.LLM.Model)
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

func TestCalibrateNeedsData(t *testing.T) {
	err := Calibrate(context.Background(), nil, CalibrateConfig{}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--data") {
		t.Fatalf("err %v", err)
	}
}
