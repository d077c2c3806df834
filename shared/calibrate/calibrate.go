// Package calibrate holds temperature scaling of answer distributions: the
// scaling itself, fitting a temperature to labeled predictions by minimising
// log-loss, the calibration metrics (accuracy, ECE, Brier, log-loss), and
// the calibration file the judge loads at start-up. The chat adapter
// (shared/chatadapter) applies the temperatures; `judge calibrate`
// (judge/internal/evalset) fits them.
//
// A temperature T reshapes a distribution through its log-probabilities,
// pᵢ ∝ exp(log pᵢ / T): T > 1 softens an over-confident model, T < 1
// sharpens an under-confident one, T = 1 changes nothing, and the most
// probable outcome never changes, so accuracy is untouched.
package calibrate

import (
	"errors"
	"fmt"
	"math"

	"github.com/judgeworks/shared/systemone"
)

// Temperature bounds for fitting: outside them a model is not calibrated
// but broken (T → ∞ is a uniform guess, T → 0 a hard argmax).
const (
	MinTemperature = 0.05
	MaxTemperature = 20
)

// floor keeps log-loss finite when a model gives the right outcome no mass.
const floor = 1e-12

// Scale applies temperature t to the distribution p and returns a new,
// normalised one. Outcomes with zero probability stay at zero.
func Scale(p []float64, t float64) []float64 {
	out := make([]float64, len(p))
	if t <= 0 || math.IsNaN(t) {
		t = 1
	}
	// Subtracting the largest log keeps exp in range for small T.
	top := math.Inf(-1)
	for _, x := range p {
		if x > 0 {
			top = math.Max(top, math.Log(x)/t)
		}
	}
	sum := 0.0
	for i, x := range p {
		if x > 0 {
			out[i] = math.Exp(math.Log(x)/t - top)
			sum += out[i]
		}
	}
	if sum == 0 {
		copy(out, p)
		return out
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// Item is one labeled prediction: the model's distribution over outcomes
// and the index of the right one.
type Item struct {
	P    []float64
	Gold int
}

func (it Item) valid() error {
	if len(it.P) < 2 {
		return fmt.Errorf("a prediction needs at least 2 outcomes, got %d", len(it.P))
	}
	if it.Gold < 0 || it.Gold >= len(it.P) {
		return fmt.Errorf("gold outcome %d outside 0..%d", it.Gold, len(it.P)-1)
	}
	return nil
}

// Metrics describe how well predictions match their labels.
type Metrics struct {
	N        int     `json:"n"`
	Accuracy float64 `json:"accuracy"`
	// ECE is the top-label expected calibration error over 10 equal-width
	// confidence bins: Σ_b (n_b/N)·|accuracy_b − mean confidence_b|.
	ECE float64 `json:"ece"`
	// Brier is the multi-class Brier score, the mean over items of
	// Σᵢ (pᵢ − yᵢ)²; 0 is perfect, 2 the worst.
	Brier float64 `json:"brier"`
	// LogLoss is the mean of −log p(gold), with p floored at 1e-12.
	LogLoss float64 `json:"log_loss"`
}

// Bins is the number of confidence bins of ECE.
const Bins = 10

// Measure computes the metrics of items after scaling them by temperature t.
func Measure(items []Item, t float64) (Metrics, error) {
	if len(items) == 0 {
		return Metrics{}, errors.New("no labeled items")
	}
	var m Metrics
	var binN [Bins]int
	var binConf, binAcc [Bins]float64
	for i, it := range items {
		if err := it.valid(); err != nil {
			return Metrics{}, fmt.Errorf("item %d: %w", i, err)
		}
		p := Scale(it.P, t)
		top := systemone.Argmax(p)
		correct := 0.0
		if top == it.Gold {
			correct = 1
		}
		m.Accuracy += correct
		m.LogLoss -= math.Log(math.Max(p[it.Gold], floor))
		for j, x := range p {
			y := 0.0
			if j == it.Gold {
				y = 1
			}
			m.Brier += (x - y) * (x - y)
		}
		b := min(int(p[top]*Bins), Bins-1)
		binN[b]++
		binConf[b] += p[top]
		binAcc[b] += correct
	}
	n := float64(len(items))
	m.N = len(items)
	m.Accuracy /= n
	m.LogLoss /= n
	m.Brier /= n
	for b := range Bins {
		if binN[b] > 0 {
			m.ECE += math.Abs(binAcc[b]-binConf[b]) / n
		}
	}
	return m, nil
}

// LogLoss is the mean −log p(gold) of items scaled by t.
func LogLoss(items []Item, t float64) float64 {
	s := 0.0
	for _, it := range items {
		p := Scale(it.P, t)
		s -= math.Log(math.Max(p[it.Gold], floor))
	}
	return s / float64(len(items))
}

// Fit returns the temperature in [MinTemperature, MaxTemperature] that
// minimises the log-loss of items. The search is a golden-section search on
// log T: log-loss under temperature scaling is smooth and, in practice,
// unimodal in log T, and searching the logarithm spends as many steps
// between 0.1 and 1 as between 1 and 10.
func Fit(items []Item) (float64, error) {
	if len(items) == 0 {
		return 1, errors.New("no labeled items")
	}
	for i, it := range items {
		if err := it.valid(); err != nil {
			return 1, fmt.Errorf("item %d: %w", i, err)
		}
	}
	f := func(logT float64) float64 { return LogLoss(items, math.Exp(logT)) }
	lo, hi := math.Log(MinTemperature), math.Log(MaxTemperature)
	invPhi := (math.Sqrt(5) - 1) / 2
	x1 := hi - invPhi*(hi-lo)
	x2 := lo + invPhi*(hi-lo)
	f1, f2 := f(x1), f(x2)
	// 60 steps shrink the interval by 0.618⁶⁰ ≈ 3e-13: far below any
	// difference a calibration set can tell apart.
	for range 60 {
		if f1 <= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - invPhi*(hi-lo)
			f1 = f(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + invPhi*(hi-lo)
			f2 = f(x2)
		}
	}
	t := math.Exp((lo + hi) / 2)
	// T = 1 is the identity; prefer it when fitting gains nothing, so a
	// well-calibrated model is left exactly as it is.
	if LogLoss(items, 1) <= LogLoss(items, t) {
		return 1, nil
	}
	return t, nil
}
