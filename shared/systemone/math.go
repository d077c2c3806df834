package systemone

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// The formulas of docs/api.md, "Judge: POST /v1/systemone", shared by every
// engine so that answers from the judge's offline engines, the judge and the
// client-side adapter mean the same.

// Normalize scales non-negative weights so they sum to 1. It rejects an
// empty slice, negative, NaN or infinite weights, and an all-zero slice.
func Normalize(probs []float64) ([]float64, error) {
	if len(probs) == 0 {
		return nil, errors.New("no probabilities")
	}
	sum := 0.0
	for i, p := range probs {
		if math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
			return nil, fmt.Errorf("probability %d is %v; want a finite number ≥ 0", i, p)
		}
		sum += p
	}
	if sum == 0 || math.IsInf(sum, 0) {
		return nil, fmt.Errorf("probabilities sum to %v", sum)
	}
	out := make([]float64, len(probs))
	for i, p := range probs {
		out[i] = p / sum
	}
	return out, nil
}

// ChoiceConfidence is clip((k·max − 1)/(k − 1), 0, 1) for k options: 0 when
// the distribution is uniform, 1 when one option has all the mass. A single
// option is certain by construction.
func ChoiceConfidence(probs []float64) float64 {
	k := float64(len(probs))
	if len(probs) < 2 {
		return 1
	}
	top := probs[Argmax(probs)]
	return clip((k*top-1)/(k-1), 0, 1)
}

// ScoreValue is Σ i·pᵢ: the expected level, a fractional position on the
// scale (1.6 lies between level 1 and level 2).
func ScoreValue(probs []float64) float64 {
	s := 0.0
	for i, p := range probs {
		s += float64(i) * p
	}
	return s
}

// ScoreConfidence is max(0, 1 − d/u) with m = argmax, d = Σ pᵢ·|i − m| the
// expected distance from the most likely level, and u = mean over i of
// |i − (k−1)/2| the same distance for a uniform guess from the middle. It
// is high when the mass sits on or next to one level, whichever level.
func ScoreConfidence(probs []float64) float64 {
	k := len(probs)
	if k < 2 {
		return 1
	}
	m := Argmax(probs)
	d := 0.0
	for i, p := range probs {
		d += p * math.Abs(float64(i-m))
	}
	mid := float64(k-1) / 2
	u := 0.0
	for i := range probs {
		u += math.Abs(float64(i) - mid)
	}
	u /= float64(k)
	return math.Max(0, 1-d/u)
}

// Argmax returns the first index of the largest value: the most probable
// outcome, the one a one-hot answer keeps.
func Argmax(probs []float64) int {
	m := 0
	for i, p := range probs {
		if p > probs[m] {
			m = i
		}
	}
	return m
}

func clip(x, lo, hi float64) float64 {
	return math.Min(hi, math.Max(lo, x))
}

// NoulAnswerOf is the wire answer of a noul question whose probability of
// yes is pYes (clipped to [0, 1]).
func NoulAnswerOf(pYes float64) (Answer, error) {
	if math.IsNaN(pYes) {
		return Answer{}, errors.New("probability of yes is NaN")
	}
	p := clip(pYes, 0, 1)
	return Answer{Type: TypeNoul, Noul: &p}, nil
}

// BuildAnswer turns a question and one weight per outcome into the wire
// answer. Weights are normalized first. The outcomes are, by type:
//   - noul: [yes, no], or a single value that is already p(yes);
//   - choice: one per option, in the question's option order;
//   - score: one per level, lowest first.
//
// The winning choice is the most probable option; an exact tie goes to the
// smallest name, so the answer does not depend on the order of options.
func BuildAnswer(q Question, weights []float64) (Answer, error) {
	switch q.Type {
	case TypeNoul:
		switch len(weights) {
		case 1:
			return NoulAnswerOf(weights[0])
		case 2:
			p, err := Normalize(weights)
			if err != nil {
				return Answer{}, err
			}
			return NoulAnswerOf(p[0])
		}
		return Answer{}, fmt.Errorf("a noul answer takes 1 or 2 weights, got %d", len(weights))
	case TypeChoice:
		if len(weights) != len(q.Options) {
			return Answer{}, fmt.Errorf("%d weights for %d options", len(weights), len(q.Options))
		}
		p, err := Normalize(weights)
		if err != nil {
			return Answer{}, err
		}
		a := Answer{Type: TypeChoice, Probabilities: make(map[string]float64, len(p))}
		best := -1
		for i, o := range q.Options {
			a.Probabilities[o.Name] = p[i]
			if best < 0 || p[i] > p[best] || p[i] == p[best] && o.Name < q.Options[best].Name {
				best = i
			}
		}
		a.Choice = q.Options[best].Name
		c := ChoiceConfidence(p)
		a.Confidence = &c
		return a, nil
	case TypeScore:
		if len(weights) != len(q.Levels) {
			return Answer{}, fmt.Errorf("%d weights for %d levels", len(weights), len(q.Levels))
		}
		p, err := Normalize(weights)
		if err != nil {
			return Answer{}, err
		}
		a := Answer{
			Type:          TypeScore,
			Legend:        make(map[string]json.RawMessage, len(p)),
			Probabilities: make(map[string]float64, len(p)),
		}
		for i, level := range q.Levels {
			key := strconv.Itoa(i)
			a.Legend[key] = level
			a.Probabilities[key] = p[i]
		}
		s, c := ScoreValue(p), ScoreConfidence(p)
		a.Score, a.Confidence = &s, &c
		return a, nil
	}
	return Answer{}, fmt.Errorf("unknown question type %q", string(q.Type))
}
