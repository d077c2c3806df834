package main_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/judgeworks/shared/proctest"
)

// judge eval runs a served offline engine over the held-out split and
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

// judge eval --coherence runs the laws on a language model by URL, through
// the served adapter: here a local endpoint whose model favours the first
// label it is shown and says yes to everything. The laws the adapter keeps
// by construction hold anyway: the structural ones, negation (the model
// is asked the positive form) and questions about other questions of the
// request; the menu's (choice set) do not.
func TestEvalCoherenceOnALanguageModel(t *testing.T) {
	example := regexp.MustCompile(`probability for each label: (\{[^}]*\})`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Role, Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		m := example.FindStringSubmatch(body.Messages[len(body.Messages)-1].Content)
		if m == nil {
			http.Error(w, "no labels", http.StatusBadRequest)
			return
		}
		var labels map[string]float64
		_ = json.Unmarshal([]byte(m[1]), &labels)
		first := m[1][2 : strings.Index(m[1][2:], `"`)+2]
		for l := range labels {
			labels[l] = 0.3 / float64(len(labels)-1)
		}
		labels[first] = 0.7
		content, _ := json.Marshal(labels)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"model": "fake-2025", "created": 1,
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": string(content)}}},
			"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 1}})
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(proctest.Build(t, "."), "eval", "--coherence", "--model", "llm-latest", "--parallel", "4", "--json", out)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LLM_BASE_URL=" + srv.URL + "/v1", "LLM_API_KEY=local",
		"LLM_MODEL=fake", "JUDGE_LLM_READOUT=probabilities"}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("judge eval --coherence: %v\n%s", err, b)
	}
	for _, want := range []string{"coherence", "representation", "negation_wrapper", "choice_set"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("output lacks %q:\n%s", want, b)
		}
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Coherence struct {
			Laws []struct {
				Law  string
				N    int
				Rate float64
			}
			Dimensions map[string]float64
		}
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	rates := map[string]float64{}
	for _, l := range r.Coherence.Laws {
		rates[l.Law] = l.Rate
	}
	for law, want := range map[string]float64{"rename_option": 1, "clone_ids": 1, "swap_descriptions": 1, "reorder_options": 1,
		"duplicate_option": 1, "noul_as_choice": 1, "noul_as_score": 1, "batch_independence": 1, "negation_wrapper": 1,
		"negation_natural": 1, "negation_templated": 1, "compound_negation": 1, "choice_indicator": 1,
		"choice_complement_other": 1, "score_cumulative_other": 1, "inclusion_exclusion": 1, "frechet_bounds": 1,
		"pair_marginals": 1, "remove_option": 0} {
		if got, ok := rates[law]; !ok || got != want {
			t.Errorf("%s: pass rate %v, want %v (%s)", law, got, want, raw)
		}
	}
}
