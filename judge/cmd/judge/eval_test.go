package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/judgeworks/shared/proctest"
)

// judge eval runs the served offline engine over the held-out split and
// prints and writes the report.
func TestEvalCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(proctest.Build(t, "."), "eval", "--data", "../../testdata/eval/heldout.jsonl",
		"--model", "local/semantic-latest", "--fit", "../../testdata/eval/dev.jsonl", "--json", out)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("judge eval: %v\n%s", err, b)
	}
	for _, want := range []string{"model local/semantic-latest (answered as local/semantic-1.0)", "choice", "noul", "score", "ECE after", "wrote " + out} {
		if !strings.Contains(string(b), want) {
			t.Errorf("output lacks %q:\n%s", want, b)
		}
	}
	var r struct {
		Answered string
		Items    int
		Types    map[string]struct {
			N           int      `json:"n"`
			AUC         *float64 `json:"auc"`
			CostPer1000 float64  `json:"cost_per_1000_usd"`
			Temperature *float64 `json:"temperature"`
		}
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	noul := r.Types["noul"]
	if r.Answered != "local/semantic-1.0" || r.Items < 150 || noul.N == 0 || noul.AUC == nil || noul.Temperature == nil {
		t.Errorf("report %s", raw)
	}
	// Priced as served: the default 0.042 USD per million input tokens
	// over a few dozen tokens a decision.
	if c := r.Types["choice"].CostPer1000; c <= 0 || c > 0.1 {
		t.Errorf("choice cost per 1,000 decisions %v USD", c)
	}

	bad := exec.Command(proctest.Build(t, "."), "eval", "--data", "../../testdata/eval/heldout.jsonl", "--model", "nope-latest")
	bad.Env = cmd.Env
	if b, err := bad.CombinedOutput(); err == nil || !strings.Contains(string(b), "local/semantic-1.0") {
		t.Errorf("an unknown model: %v, want an error naming the served models:\n%s", err, b)
	}
}
