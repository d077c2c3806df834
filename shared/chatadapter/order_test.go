package chatadapter

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/systemone"
)

// positional is a fake model with a strong position bias that also reads
// the options: an entry's weight is its position's (first favoured) times
// a factor from its text, so both where an option is shown and what it
// says move the answer, as with a real model.
func positional(w http.ResponseWriter, c chatCall) {
	bias := []float64{0.40, 0.25, 0.15, 0.12, 0.08}
	entries := c.entries()
	weights := make([]float64, len(entries))
	for i, e := range entries {
		weights[i] = bias[i%len(bias)] * float64(1+len(e[1])%7)
	}
	if c.isLogprobs() {
		tops := make([]top, len(entries))
		sum := 0.0
		for _, x := range weights {
			sum += x
		}
		for i, e := range entries {
			tops[i] = top{e[0], weights[i] / sum * 0.97}
		}
		writeLogprobs(w, tops...)
		return
	}
	parts := make([]string, len(entries))
	for i, e := range entries {
		parts[i] = fmt.Sprintf("%q: %v", e[0], weights[i])
	}
	writeContent(w, "{"+strings.Join(parts, ", ")+"}")
}

// The same five options in three orders give exactly the same
// probabilities, for both readouts, with and without rotations and with a
// calibration temperature (whose sums would show a changed order in the
// last bit).
func TestOptionOrderDoesNotMoveAnswers(t *testing.T) {
	orders := [][]string{
		{"billing", "technical", "sales", "legal", "security"},
		{"security", "legal", "sales", "technical", "billing"},
		{"sales", "billing", "security", "technical", "legal"},
	}
	cal := calibrate.File{Version: calibrate.FileVersion, Models: map[string]calibrate.Model{
		"fake-model": {Temperatures: map[string]float64{"choice": 1.7}},
	}}
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"logprobs", []Option{WithReadout(ReadoutLogprobs)}},
		{"probabilities", []Option{WithReadout(ReadoutProbabilities)}},
		{"logprobs, 2 rotations, calibrated", []Option{WithReadout(ReadoutLogprobs), WithRotations(2), WithCalibration(cal)}},
		{"probabilities, 5 rotations, calibrated", []Option{WithReadout(ReadoutProbabilities), WithRotations(5), WithCalibration(cal)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, c chatCall, n int) { positional(w, c) })
			a := newTestAdapter(t, f, tc.opts...)
			var first systemone.Answer
			for i, order := range orders {
				got := ask(t, a, request(map[string]systemone.Question{"team": choiceQ(order...)})).Answers["team"]
				if i == 0 {
					first = got
					continue
				}
				for name, p := range first.Probabilities {
					if got.Probabilities[name] != p {
						t.Errorf("order %v: p(%s) = %v, want exactly %v", order, name, got.Probabilities[name], p)
					}
				}
				if got.Choice != first.Choice || *got.Confidence != *first.Confidence {
					t.Errorf("order %v: choice %q (%v), want %q (%v)", order, got.Choice, *got.Confidence, first.Choice, *first.Confidence)
				}
			}
			// The fake's position bias is strong: shown in the caller's
			// order, the first option would win each time. Here the
			// answers agree, and the options reached the model in the
			// canonical order, whatever the caller's.
			canon := systemone.CanonicalOptions(choiceQ(orders[0]...).Options)
			for _, c := range f.recorded() {
				e := c.entries()
				if len(e) != 5 {
					t.Fatalf("a call showed %d entries", len(e))
				}
				// Rotations start the canonical order elsewhere; the
				// cycle is the same.
				start := 0
				for start < 5 && !strings.HasPrefix(e[0][1], canon[start].Name+":") {
					start++
				}
				for j := range e {
					if want := canon[(start+j)%5].Name; !strings.HasPrefix(e[j][1], want+":") {
						t.Fatalf("entries %v are not a rotation of the canonical order %v", e, names(canon))
					}
				}
			}
		})
	}
}

func names(opts []systemone.Option) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Name
	}
	return out
}
