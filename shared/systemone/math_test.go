package systemone

import (
	"encoding/json"
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-4 }

func TestScoreConfidence(t *testing.T) {
	tests := []struct {
		probs []float64
		want  float64
	}{
		// The worked example: m = 4, d = .365, u = 1.2, 1 − d/u ≈ 0.6958.
		{[]float64{.005, .005, .04, .25, .70}, 0.6958},
		{[]float64{0, 0, 1}, 1},
		{[]float64{1, 0, 0, 0}, 1},
		// Uniform over 3 levels: m = 0 (first max), d = 1, u = 2/3 → clipped to 0.
		{[]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, 0},
		// Mass split between the extremes: d = 0.5·4, u = 1.2 → 0.
		{[]float64{.5, 0, 0, 0, .5}, 0},
		// Two levels: u = 0.5; d = 0.2 → 0.6.
		{[]float64{.2, .8}, 0.6},
		// Mass on neighbours of the top level is penalised less than far away.
		{[]float64{0, .2, .6, .2, 0}, 1 - 0.4/1.2},
		{[]float64{.2, 0, .6, 0, .2}, 1 - 0.8/1.2},
	}
	for _, tt := range tests {
		if got := ScoreConfidence(tt.probs); !near(got, tt.want) {
			t.Errorf("ScoreConfidence(%v) = %.4f, want %.4f", tt.probs, got, tt.want)
		}
	}
}

func TestChoiceConfidence(t *testing.T) {
	tests := []struct {
		probs []float64
		want  float64
	}{
		{[]float64{.81, .19}, 0.62},
		{[]float64{.5, .5}, 0},
		{[]float64{1, 0, 0}, 1},
		{[]float64{.25, .25, .25, .25}, 0},
		{[]float64{.6, .2, .2}, (3*.6 - 1) / 2},
		// Below uniform cannot happen for a max, but rounding may push it: clipped.
		{[]float64{.333, .333, .334}, (3*.334 - 1) / 2},
	}
	for _, tt := range tests {
		if got := ChoiceConfidence(tt.probs); !near(got, tt.want) {
			t.Errorf("ChoiceConfidence(%v) = %.4f, want %.4f", tt.probs, got, tt.want)
		}
	}
}

func TestScoreValue(t *testing.T) {
	if got := ScoreValue([]float64{.1, .6, .3}); !near(got, 1.2) {
		t.Errorf("ScoreValue = %v, want 1.2 (the example in docs/api.md)", got)
	}
	if got := ScoreValue([]float64{0, .4, .6}); !near(got, 1.6) {
		t.Errorf("ScoreValue = %v, want 1.6", got)
	}
}

func TestNormalize(t *testing.T) {
	got, err := Normalize([]float64{2, 6, 2})
	if err != nil {
		t.Fatal(err)
	}
	if !near(got[0], .2) || !near(got[1], .6) || !near(got[2], .2) {
		t.Errorf("Normalize = %v", got)
	}
	for _, bad := range [][]float64{nil, {0, 0}, {-1, 2}, {math.NaN(), 1}, {math.Inf(1), 1}, {math.MaxFloat64, math.MaxFloat64}} {
		if _, err := Normalize(bad); err == nil {
			t.Errorf("Normalize(%v) succeeded, want an error", bad)
		}
	}
}

func TestBuildAnswer(t *testing.T) {
	ins := json.RawMessage(`"i"`)
	noul := Question{Type: TypeNoul, Instructions: ins}
	a, err := BuildAnswer(noul, []float64{3, 1})
	if err != nil || a.Type != TypeNoul || a.Noul == nil || !near(*a.Noul, .75) || a.Confidence != nil {
		t.Errorf("noul [yes, no] = %+v, %v", a, err)
	}
	a, err = BuildAnswer(noul, []float64{.93})
	if err != nil || !near(*a.Noul, .93) {
		t.Errorf("noul p(yes) = %+v, %v", a, err)
	}

	choice := Question{Type: TypeChoice, Instructions: ins, Options: []Option{{Name: "technical"}, {Name: "billing"}}}
	a, err = BuildAnswer(choice, []float64{19, 81})
	if err != nil {
		t.Fatal(err)
	}
	if a.Choice != "billing" || !near(a.Probabilities["billing"], .81) || !near(a.Probabilities["technical"], .19) || !near(*a.Confidence, .62) {
		t.Errorf("choice = %+v", a)
	}
	// A tie is broken by name, not by position.
	for _, opts := range [][]Option{{{Name: "b"}, {Name: "a"}}, {{Name: "a"}, {Name: "b"}}} {
		a, _ = BuildAnswer(Question{Type: TypeChoice, Options: opts}, []float64{1, 1})
		if a.Choice != "a" {
			t.Errorf("tie with options %v chose %q, want a", opts, a.Choice)
		}
	}

	score := Question{Type: TypeScore, Instructions: ins, Levels: Texts("calm", "annoyed", "angry")}
	a, err = BuildAnswer(score, []float64{.1, .6, .3})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(a)
	if !near(*a.Score, 1.2) || !near(*a.Confidence, 0.4) || string(a.Legend["0"]) != `"calm"` || string(a.Legend["2"]) != `"angry"` ||
		!near(a.Probabilities["1"], .6) || len(a.Probabilities) != 3 {
		t.Errorf("score = %s", b)
	}

	if _, err := BuildAnswer(choice, []float64{1}); err == nil {
		t.Error("choice with the wrong number of weights succeeded")
	}
	if _, err := BuildAnswer(score, []float64{0, 0, 0}); err == nil {
		t.Error("score with all-zero weights succeeded")
	}
	if _, err := BuildAnswer(Question{Type: "rank"}, []float64{1}); err == nil {
		t.Error("unknown type succeeded")
	}
}
