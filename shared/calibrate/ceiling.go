package calibrate

import (
	"math"
	"sort"

	"github.com/judgeworks/shared/systemone"
)

// Temperature scaling reshapes a whole distribution and cannot tell a
// model that is right whenever it is sure from one that is sure too often:
// an engine that reads words, fitted where it was tuned, ends up saying
// 0.9999 about sentences it does not understand. A ceiling bounds what it
// may say by what it has shown.

// Ceiling is the highest probability that labelled predictions support:
// the largest c such that, of the items whose top probability is at least
// c, a share of at least c is right, the share counted by the rule of
// succession, (right + 1)/(n + 2), so that a few lucky answers support
// little. It is 1 when the items support every confidence they show, and
// at least 1/2 whatever they show. Items must be valid (Measure checks).
func Ceiling(items []Item) float64 {
	type pred struct {
		top   float64
		right bool
	}
	preds := make([]pred, len(items))
	for i, it := range items {
		top := systemone.Argmax(it.P)
		preds[i] = pred{it.P[top], top == it.Gold}
	}
	sort.Slice(preds, func(a, b int) bool { return preds[a].top > preds[b].top })
	// With the j most confident items in the band (tops ≥ t for t in
	// (next, preds[j-1].top]), a threshold t is supported while t ≤ their
	// share: the best such t is the smaller of the two, when it lies
	// above the next item's top.
	best, right := 0.0, 0
	for j := 0; j <= len(preds); j++ {
		if j > 0 && preds[j-1].right {
			right++
		}
		share := float64(right+1) / float64(j+2)
		upper, next := 1.0, 0.0
		if j > 0 {
			upper = preds[j-1].top
		}
		if j < len(preds) {
			next = preds[j].top
		}
		// Equal tops enter the band together: no threshold lies
		// between them.
		if upper > next && share > next {
			best = math.Max(best, math.Min(upper, share))
		}
	}
	if len(preds) > 0 && best >= preds[0].top {
		return 1
	}
	return best
}

// Mix mixes the distribution p with the uniform one, in place: (1 − α)·p
// + α/k for k outcomes. The order of the outcomes, within an answer and
// between answers of the same number of outcomes, is kept, so accuracy
// and rankings are untouched; every outcome lies in [α/k, 1 − α + α/k].
func Mix(p []float64, alpha float64) {
	if alpha <= 0 {
		return
	}
	k := float64(len(p))
	for i, x := range p {
		p[i] = (1-alpha)*x + alpha/k
	}
}

// MixYes is Mix of a yes/no answer given as its probability of yes.
func MixYes(p, alpha float64) float64 {
	return (1-alpha)*p + alpha/2
}

// Mixing is the least α in [0, 1] with which Mix brings the top
// probability of every item to at most c: the mixing a model needs for
// its answers to stay within the ceiling its labelled answers support.
func Mixing(items []Item, c float64) float64 {
	alpha := 0.0
	for _, it := range items {
		top := it.P[systemone.Argmax(it.P)]
		if top <= c {
			continue
		}
		// (1 − α)·top + α/k = c
		k := float64(len(it.P))
		alpha = math.Max(alpha, math.Min(1, (top-c)/(top-1/k)))
	}
	return alpha
}
