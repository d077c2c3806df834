package calibrate

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/judgeworks/shared/systemone"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestScale(t *testing.T) {
	tests := []struct {
		name string
		p    []float64
		t    float64
		want []float64
	}{
		{"identity", []float64{0.7, 0.2, 0.1}, 1, []float64{0.7, 0.2, 0.1}},
		// T = 2 takes square roots: √.64 = .8, √.36 = .6 → .8/1.4, .6/1.4.
		{"soften", []float64{0.64, 0.36}, 2, []float64{0.8 / 1.4, 0.6 / 1.4}},
		// T = 0.5 squares: .6² = .36, .4² = .16 → .36/.52, .16/.52.
		{"sharpen", []float64{0.6, 0.4}, 0.5, []float64{0.36 / 0.52, 0.16 / 0.52}},
		{"zero stays zero", []float64{0.5, 0, 0.5}, 3, []float64{0.5, 0, 0.5}},
		{"tiny temperature stays finite", []float64{0.51, 0.49}, 0.01, []float64{0.98, 0.02}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Scale(tt.p, tt.t)
			sum := 0.0
			for i := range got {
				sum += got[i]
				if !near(got[i], tt.want[i], 0.005) {
					t.Fatalf("Scale(%v, %v) = %v, want %v", tt.p, tt.t, got, tt.want)
				}
			}
			if !near(sum, 1, 1e-9) {
				t.Fatalf("sum = %v", sum)
			}
		})
	}
}

func TestMeasureWorkedExample(t *testing.T) {
	items := []Item{
		{P: []float64{0.9, 0.1}, Gold: 0}, // right, confidence .9
		{P: []float64{0.8, 0.2}, Gold: 1}, // wrong, confidence .8
	}
	m, err := Measure(items, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Bins 9 (.9, acc 1) and 8 (.8, acc 0): ECE = ½|1−.9| + ½|0−.8| = .45.
	if !near(m.ECE, 0.45, 1e-9) {
		t.Errorf("ECE = %v, want 0.45", m.ECE)
	}
	if !near(m.Accuracy, 0.5, 1e-9) {
		t.Errorf("accuracy = %v", m.Accuracy)
	}
	// Brier: (.1² + .1²) and (.8² + .8²) → (.02 + 1.28)/2 = .65.
	if !near(m.Brier, 0.65, 1e-9) {
		t.Errorf("Brier = %v, want 0.65", m.Brier)
	}
	want := -(math.Log(0.9) + math.Log(0.2)) / 2
	if !near(m.LogLoss, want, 1e-9) {
		t.Errorf("log-loss = %v, want %v", m.LogLoss, want)
	}
}

func TestMeasureRejectsBadItems(t *testing.T) {
	for _, items := range [][]Item{
		nil,
		{{P: []float64{1}, Gold: 0}},
		{{P: []float64{0.5, 0.5}, Gold: 2}},
	} {
		if _, err := Measure(items, 1); err == nil {
			t.Errorf("Measure(%v) accepted bad input", items)
		}
		if _, err := Fit(items); err == nil {
			t.Errorf("Fit(%v) accepted bad input", items)
		}
	}
}

// synthetic draws n predictions over k outcomes whose top outcome is right
// with probability acc while the model states confidence conf.
func synthetic(n, k int, acc, conf float64, seed uint64) []Item {
	r := rand.New(rand.NewPCG(seed, 7))
	items := make([]Item, n)
	for i := range items {
		p := make([]float64, k)
		top := r.IntN(k)
		for j := range p {
			p[j] = (1 - conf) / float64(k-1)
		}
		p[top] = conf
		gold := top
		if r.Float64() >= acc {
			gold = (top + 1 + r.IntN(k-1)) % k
		}
		items[i] = Item{P: p, Gold: gold}
	}
	return items
}

func TestFitLowersECEOnOverconfidentPredictions(t *testing.T) {
	items := synthetic(2000, 4, 0.7, 0.97, 1)
	before, err := Measure(items, 1)
	if err != nil {
		t.Fatal(err)
	}
	temp, err := Fit(items)
	if err != nil {
		t.Fatal(err)
	}
	after, err := Measure(items, temp)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("T = %.3f; ECE %.4f → %.4f; log-loss %.4f → %.4f; Brier %.4f → %.4f",
		temp, before.ECE, after.ECE, before.LogLoss, after.LogLoss, before.Brier, after.Brier)
	if temp <= 1 {
		t.Fatalf("over-confident predictions need T > 1, got %v", temp)
	}
	if before.ECE < 0.2 {
		t.Fatalf("the synthetic set should start badly calibrated, ECE %v", before.ECE)
	}
	if after.ECE > before.ECE/4 {
		t.Fatalf("ECE %v → %v: temperature scaling should remove most of it", before.ECE, after.ECE)
	}
	if after.LogLoss >= before.LogLoss || after.Brier >= before.Brier {
		t.Fatalf("log-loss %v → %v, Brier %v → %v: both should fall", before.LogLoss, after.LogLoss, before.Brier, after.Brier)
	}
	if after.Accuracy != before.Accuracy {
		t.Fatalf("accuracy changed %v → %v; scaling must keep the argmax", before.Accuracy, after.Accuracy)
	}
	// With a stated 0.97 over four outcomes and a true accuracy of 0.7, the
	// best temperature makes the top probability about 0.7 again.
	top := Scale(items[0].P, temp)
	if !near(top[systemone.Argmax(top)], 0.7, 0.03) {
		t.Fatalf("calibrated top probability %v, want about 0.7", top[systemone.Argmax(top)])
	}
}

func TestFitSharpensUnderconfidentPredictions(t *testing.T) {
	items := synthetic(2000, 2, 0.9, 0.6, 2)
	temp, err := Fit(items)
	if err != nil {
		t.Fatal(err)
	}
	if temp >= 1 {
		t.Fatalf("under-confident predictions need T < 1, got %v", temp)
	}
}

func TestFitKeepsCalibratedPredictions(t *testing.T) {
	items := synthetic(4000, 3, 0.8, 0.8, 3)
	temp, err := Fit(items)
	if err != nil {
		t.Fatal(err)
	}
	if !near(temp, 1, 0.1) {
		t.Fatalf("calibrated predictions got T = %v, want about 1", temp)
	}
}

func TestFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calibration.json")
	f, err := Load(path)
	if err != nil {
		t.Fatalf("missing file: %v", err)
	}
	if len(f.Models) != 0 {
		t.Fatalf("missing file loaded %v", f.Models)
	}
	f.Models["gpt-x"] = Model{Readout: "logprobs", Temperatures: map[string]float64{"choice": 1.7, "noul": 0.8}}
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	g, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model, readout, qtype string
		want                  float64
	}{
		{"gpt-x", "logprobs", "choice", 1.7},
		{"gpt-x", "logprobs", "noul", 0.8},
		{"gpt-x", "logprobs", "score", 1},        // type not fitted
		{"gpt-x", "probabilities", "choice", 1},  // other readout
		{"other-model", "logprobs", "choice", 1}, // other model
	}
	for _, tt := range tests {
		if got := g.Temperature(tt.model, tt.readout, tt.qtype); got != tt.want {
			t.Errorf("Temperature(%s, %s, %s) = %v, want %v", tt.model, tt.readout, tt.qtype, got, tt.want)
		}
	}
}

func TestLoadRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	tests := map[string]string{
		"not json":          `{`,
		"wrong version":     `{"version": 9, "models": {}}`,
		"temperature 0":     `{"version": 1, "models": {"m": {"temperatures": {"choice": 0}}}}`,
		"temperature large": `{"version": 1, "models": {"m": {"temperatures": {"choice": 1000}}}}`,
	}
	for name, body := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil {
			t.Errorf("%s: Load accepted %s", name, body)
		}
	}
}
