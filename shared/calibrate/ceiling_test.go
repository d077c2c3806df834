package calibrate

import (
	"math"
	"slices"
	"testing"
)

// repeat is n items whose top outcome has probability top, right ones
// first.
func repeat(n, right int, top float64) []Item {
	out := make([]Item, n)
	for i := range out {
		gold := 0
		if i >= right {
			gold = 1
		}
		out[i] = Item{P: []float64{top, 1 - top}, Gold: gold}
	}
	return out
}

func TestCeilingWorkedExample(t *testing.T) {
	// Tops 0.99 (5 of 5 right), 0.9 (4 of 5), 0.6 (5 of 10). Bands: the
	// five at 0.99 support (5+1)/(5+2) = 0.857, below 0.9 where the
	// band widens, so nothing in (0.9, 0.99]; the ten at 0.9 or more
	// support 10/12 = 0.833, which lies in (0.6, 0.9]: the ceiling.
	items := slices.Concat(repeat(5, 5, 0.99), repeat(5, 4, 0.9), repeat(10, 5, 0.6))
	if c := Ceiling(items); math.Abs(c-10.0/12) > 1e-12 {
		t.Errorf("Ceiling = %v, want 10/12", c)
	}
	// Items that bear out every confidence they show need no ceiling.
	if c := Ceiling(repeat(10, 9, 0.6)); c != 1 {
		t.Errorf("Ceiling of well-supported items = %v, want 1", c)
	}
	// A coin flip at 0.9 supports no more than a little over a half.
	if c := Ceiling(repeat(20, 10, 0.9)); math.Abs(c-0.5) > 1e-12 {
		t.Errorf("Ceiling of a coin flip = %v, want 11/22", c)
	}
}

func TestMixingBringsEveryAnswerWithin(t *testing.T) {
	items := []Item{
		{P: []float64{0.99, 0.01}, Gold: 0},
		{P: []float64{0.9, 0.05, 0.05}, Gold: 0},
		{P: []float64{0.5, 0.5}, Gold: 1},
	}
	const c = 0.8
	alpha := Mixing(items, c)
	// The noul at 0.99 needs the most: (0.99 − 0.8)/(0.99 − 0.5).
	if want := 0.19 / 0.49; math.Abs(alpha-want) > 1e-12 {
		t.Fatalf("Mixing = %v, want %v", alpha, want)
	}
	for _, it := range items {
		p := slices.Clone(it.P)
		Mix(p, alpha)
		sum := 0.0
		for _, x := range p {
			sum += x
		}
		if top := slices.Max(p); top > c+1e-12 || math.Abs(sum-1) > 1e-12 {
			t.Errorf("%v mixed: %v", it.P, p)
		}
		if slices.Index(p, slices.Max(p)) != slices.Index(it.P, slices.Max(it.P)) {
			t.Errorf("%v mixed changed its top outcome: %v", it.P, p)
		}
	}
	if y := MixYes(0.99, alpha); math.Abs(y-c) > 1e-12 {
		t.Errorf("MixYes(0.99) = %v, want %v", y, c)
	}
	if Mixing(items, 1) != 0 {
		t.Error("a ceiling of 1 takes mixing")
	}
}
