package evalset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/judgeworks/shared/systemone"
)

// scripted answers each item with the distribution listed for its state,
// as a model would, at a known cost.
type scripted struct {
	p    map[string][]float64
	fail string // a state it refuses
}

const costPerDecision = 0.00002

func (s scripted) Ask(_ context.Context, req systemone.Request) (*systemone.Response, error) {
	var state string
	if err := json.Unmarshal(req.State, &state); err != nil {
		return nil, err
	}
	if state == s.fail {
		return nil, errors.New("upstream refused")
	}
	p, ok := s.p[state]
	if !ok {
		return nil, fmt.Errorf("no script for %q", state)
	}
	q := req.Questions["q"]
	if q.Type == systemone.TypeNoul {
		p = []float64{p[0], 1 - p[0]}
	}
	a, err := systemone.BuildAnswer(q, p)
	if err != nil {
		return nil, err
	}
	return &systemone.Response{Model: req.Model + "-exact", Answers: map[string]systemone.Answer{"q": a},
		Usage: systemone.Usage{InputTokens: 10, Cost: costPerDecision}}, nil
}

// tiny is a labelled set whose metrics are worked out by hand below.
var tiny = []struct {
	line string
	p    []float64
}{
	{`{"state": "c1", "question": {"type": "choice", "instructions": "x", "criteria": {"a": "", "b": ""}}, "answer": "a"}`, []float64{0.9, 0.1}},
	{`{"state": "c2", "question": {"type": "choice", "instructions": "x", "criteria": {"a": "", "b": ""}}, "answer": "a"}`, []float64{0.6, 0.4}},
	{`{"state": "c3", "question": {"type": "choice", "instructions": "x", "criteria": {"a": "", "b": ""}}, "answer": "b"}`, []float64{0.7, 0.3}},
	{`{"state": "c4", "question": {"type": "choice", "instructions": "x", "criteria": {"a": "", "b": ""}}, "answer": "b"}`, []float64{0.2, 0.8}},
	{`{"state": "c5", "question": {"type": "choice", "instructions": "x", "criteria": {"a": "", "b": "", "c": "", "d": ""}}, "answer": "c"}`, []float64{0.1, 0.1, 0.7, 0.1}},
	{`{"state": "n1", "question": {"type": "noul", "instructions": "x"}, "answer": true}`, []float64{0.9}},
	{`{"state": "n2", "question": {"type": "noul", "instructions": "x"}, "answer": "yes"}`, []float64{0.4}},
	{`{"state": "n3", "question": {"type": "noul", "instructions": "x"}, "answer": false}`, []float64{0.6}},
	{`{"state": "n4", "question": {"type": "noul", "instructions": "x"}, "answer": false}`, []float64{0.1}},
	{`{"state": "n5", "question": {"type": "noul", "instructions": "x"}, "answer": "no"}`, []float64{0.4}},
	{`{"state": "s1", "question": {"type": "score", "instructions": "x", "criteria": ["low", "mid", "high"]}, "answer": 2}`, []float64{0, 0, 1}},
	{`{"state": "s2", "question": {"type": "score", "instructions": "x", "criteria": ["low", "mid", "high"]}, "answer": "low"}`, []float64{0.5, 0.5, 0}},
	{`{"state": "s3", "question": {"type": "score", "instructions": "x", "criteria": ["low", "mid", "high"]}, "answer": "1"}`, []float64{0.2, 0.6, 0.2}},
	{`{"state": "s4", "question": {"type": "score", "instructions": "x", "criteria": ["low", "mid", "high"]}, "answer": 2}`, []float64{1, 0, 0}},
}

func writeTiny(t *testing.T, copies int) (string, scripted) {
	t.Helper()
	s := scripted{p: map[string][]float64{}}
	var b strings.Builder
	for range copies {
		for _, it := range tiny {
			b.WriteString(it.line + "\n")
			var st struct{ State string }
			if err := json.Unmarshal([]byte(it.line), &st); err != nil {
				t.Fatal(err)
			}
			s.p[st.State] = it.p
		}
	}
	path := filepath.Join(t.TempDir(), "tiny.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, s
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %.6f, want %.6f", what, got, want)
	}
}

func TestEvaluateKnownAnswers(t *testing.T) {
	path, s := writeTiny(t, 1)
	items, err := readItems(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Evaluate(context.Background(), s, "m", items, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.Answered != "m-exact" || r.Items != len(tiny) {
		t.Errorf("answered %q, %d items", r.Answered, r.Items)
	}
	c := r.Types[systemone.TypeChoice]
	// Right on c1, c2, c4, c5; chance (4·½ + ¼)/5.
	near(t, "choice accuracy", c.Accuracy, 0.8)
	near(t, "choice chance", c.Chance, 0.45)
	near(t, "choice kappa", c.Kappa, (0.8-0.45)/0.55)
	// Brier .02 + .32 + .98 + .08 + .12; ECE bins .9 (|1−.9|), .6 (|1−.6|),
	// .8 (|1−.8|) and .7 holding c3 wrong and c5 right (|1 − 1.4|).
	near(t, "choice Brier", c.Brier, 1.52/5)
	near(t, "choice ECE", c.ECE, (0.1+0.4+0.2+0.4)/5)
	if c.MAE != nil || c.AUC != nil || c.Temperature != nil {
		t.Errorf("choice has score, noul or calibration figures: %+v", c)
	}
	near(t, "choice cost per 1,000", c.CostPer1000, 1000*costPerDecision)
	if c.LatencyP50 < 0 || c.LatencyP95 < c.LatencyP50 {
		t.Errorf("latency p50 %v, p95 %v", c.LatencyP50, c.LatencyP95)
	}

	n := r.Types[systemone.TypeNoul]
	// Yes at .9 and .4, no at .6, .1, .4: .9 beats all three, .4 beats .1
	// and ties .4: 4.5 of 6 pairs.
	if n.AUC == nil {
		t.Fatal("no AUC for noul")
	}
	near(t, "noul AUC", *n.AUC, 4.5/6)
	near(t, "noul accuracy", n.Accuracy, 3.0/5) // n1, n4, n5
	near(t, "noul kappa", n.Kappa, (0.6-0.5)/0.5)

	sc := r.Types[systemone.TypeScore]
	if sc.MAE == nil || sc.MAEMiddle == nil {
		t.Fatal("no MAE for score")
	}
	// Expected levels 2, .5, 1, 0 against 2, 0, 1, 2; the middle is 1.
	near(t, "score MAE", *sc.MAE, 2.5/4)
	near(t, "score MAE of the middle", *sc.MAEMiddle, 3.0/4)
	near(t, "score accuracy", sc.Accuracy, 3.0/4) // s1, s3, and s2 whose tie goes to level 0
	near(t, "score chance", sc.Chance, 1.0/3)
}

func TestAUCEdges(t *testing.T) {
	mk := func(ps []float64, golds []int) []outcome {
		out := make([]outcome, len(ps))
		for i := range ps {
			out[i] = outcome{p: []float64{ps[i], 1 - ps[i]}, gold: golds[i]}
		}
		return out
	}
	if a, ok := aucOf(mk([]float64{0.9, 0.8, 0.2}, []int{0, 0, 1})); !ok || a != 1 {
		t.Errorf("perfect ranking: %v %v", a, ok)
	}
	if a, ok := aucOf(mk([]float64{0.1, 0.8}, []int{0, 1})); !ok || a != 0 {
		t.Errorf("inverted ranking: %v %v", a, ok)
	}
	if a, ok := aucOf(mk([]float64{0.5, 0.5, 0.5}, []int{0, 1, 1})); !ok || a != 0.5 {
		t.Errorf("all tied: %v %v", a, ok)
	}
	if _, ok := aucOf(mk([]float64{0.5, 0.7}, []int{0, 0})); ok {
		t.Error("AUC with one label only")
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	if q := quantile(xs, 0.5); q != 5 {
		t.Errorf("p50 = %v", q)
	}
	if q := quantile(xs, 0.95); q != 10 {
		t.Errorf("p95 = %v", q)
	}
	if q := quantile([]float64{3}, 0.95); q != 3 {
		t.Errorf("p95 of one = %v", q)
	}
}

// A fit on another file reports after-calibration figures.
func TestEvaluateWithFit(t *testing.T) {
	path, s := writeTiny(t, 3)
	items, err := readItems(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Evaluate(context.Background(), s, "m", items[:len(tiny)], items, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Types[systemone.TypeChoice]
	if c.Temperature == nil {
		t.Fatal("choice not fitted")
	}
	t.Logf("choice: T %.3f, ECE %.3f → %.3f, Brier %.3f → %.3f", *c.Temperature, c.ECE, *c.ECEAfter, c.Brier, *c.BrierAfter)
	// Right 4 times in 5 at a mean top probability of .74: under-confident,
	// so the fit sharpens (T < 1), which cannot worsen the Brier score of
	// the very items it was fitted on.
	if *c.Temperature >= 1 || *c.BrierAfter > c.Brier {
		t.Errorf("choice after a fit: T %v, Brier %v → %v", *c.Temperature, c.Brier, *c.BrierAfter)
	}
	// 12 noul and 12 score fitting items, MinItems 10: both fitted too.
	if r.Types[systemone.TypeNoul].Temperature == nil || r.Types[systemone.TypeScore].Temperature == nil {
		t.Error("noul or score not fitted")
	}
}

func TestRunEvalPrintsAndWritesJSON(t *testing.T) {
	path, s := writeTiny(t, 1)
	out := filepath.Join(t.TempDir(), "report.json")
	var stdout bytes.Buffer
	if err := RunEval(context.Background(), []string{"--data", path, "--model", "m", "--json", out}, s, &stdout); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	text := stdout.String()
	for _, want := range []string{"model m (answered as m-exact), 14 items", "choice", "noul", "score", "0.800", "0.625 (0.750)", "wrote " + out} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Types[systemone.TypeChoice].N != 5 || *r.Types[systemone.TypeNoul].AUC != 0.75 || r.Data != path {
		t.Errorf("JSON report %s", b)
	}
}

func TestRunEvalErrors(t *testing.T) {
	path, s := writeTiny(t, 1)
	s.fail = "n3"
	var stdout bytes.Buffer
	err := RunEval(context.Background(), []string{"--data", path, "--model", "m"}, s, &stdout)
	if err == nil || !strings.Contains(err.Error(), "line 8") || !strings.Contains(err.Error(), "upstream refused") {
		t.Errorf("a failing item: %v, want its line and cause", err)
	}
	if err := RunEval(context.Background(), []string{"--data", path}, s, &stdout); err == nil {
		t.Error("ran without --model")
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"state": "x", "question": {"type": "noul", "instructions": "x"}, "answer": "maybe"}`+"\n"), 0o600)
	if err := RunEval(context.Background(), []string{"--data", bad, "--model", "m"}, s, &stdout); err == nil || !strings.Contains(err.Error(), ":1:") {
		t.Errorf("a bad label: %v, want the line", err)
	}
}
