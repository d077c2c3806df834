package systemone

import (
	"math"
	"strconv"
)

// YesThreshold is the probability at which a noul answer reads as yes.
const YesThreshold = 0.5

// NoulAnswer is a typed noul answer.
type NoulAnswer struct {
	// P is the probability of yes (true).
	P float64
}

// Yes reports whether the answer leans to yes: p ≥ 0.5.
func (a NoulAnswer) Yes() bool { return a.P >= YesThreshold }

// Confident reports whether the more likely side has probability at least
// min, whichever side it is.
func (a NoulAnswer) Confident(min float64) bool { return math.Max(a.P, 1-a.P) >= min }

// ChoiceAnswer is a typed choice answer.
type ChoiceAnswer struct {
	Choice        string
	Probabilities map[string]float64
	Confidence    float64
}

// Confident reports whether the confidence is at least min.
func (a ChoiceAnswer) Confident(min float64) bool { return a.Confidence >= min }

// ScoreAnswer is a typed score answer.
type ScoreAnswer struct {
	// Score is the expected level, a fractional index into Legend.
	Score float64
	// Legend maps level indexes ("0", "1", …) to level texts: each level
	// as ContentText reads it ("" for a level given as null).
	Legend map[string]string
	// Probabilities maps level indexes to their probability.
	Probabilities map[string]float64
	Confidence    float64
}

// Confident reports whether the confidence is at least min.
func (a ScoreAnswer) Confident(min float64) bool { return a.Confidence >= min }

// Level is the text of the level nearest to Score.
func (a ScoreAnswer) Level() string {
	return a.Legend[strconv.Itoa(int(math.Round(a.Score)))]
}

// Nouls returns the well-formed noul answers by question name. An answer
// that does not match its type (no probability, or one outside [0, 1]) is
// left out rather than read as zero.
func (r *Response) Nouls() map[string]NoulAnswer {
	out := map[string]NoulAnswer{}
	if r == nil {
		return out
	}
	for name, a := range r.Answers {
		if p, ok := a.noulP(); ok {
			out[name] = NoulAnswer{P: p}
		}
	}
	return out
}

// Choices returns the well-formed choice answers by question name.
func (r *Response) Choices() map[string]ChoiceAnswer {
	out := map[string]ChoiceAnswer{}
	if r == nil {
		return out
	}
	for name, a := range r.Answers {
		if a.Type != TypeChoice || a.Choice == "" || a.Confidence == nil || !finite(*a.Confidence) {
			continue
		}
		out[name] = ChoiceAnswer{Choice: a.Choice, Probabilities: a.Probabilities, Confidence: *a.Confidence}
	}
	return out
}

// Scores returns the well-formed score answers by question name.
func (r *Response) Scores() map[string]ScoreAnswer {
	out := map[string]ScoreAnswer{}
	if r == nil {
		return out
	}
	for name, a := range r.Answers {
		if a.Type != TypeScore || a.Score == nil || !finite(*a.Score) || a.Confidence == nil || !finite(*a.Confidence) {
			continue
		}
		legend := make(map[string]string, len(a.Legend))
		for k, l := range a.Legend {
			legend[k] = ContentText(l)
		}
		out[name] = ScoreAnswer{Score: *a.Score, Legend: legend, Probabilities: a.Probabilities, Confidence: *a.Confidence}
	}
	return out
}

// ClearlyYes is a fail-closed check for safety questions phrased so that
// yes is safe ("is this message appropriate?"): it is true only when the
// named answer exists, is a well-formed noul answer, and p(yes) ≥ min.
// Anything missing or odd counts as not safe.
func (r *Response) ClearlyYes(name string, min float64) bool {
	p, ok := r.noul(name)
	return ok && p >= min
}

// ClearlyNo is the fail-closed check for questions phrased so that no is
// safe ("does this contain personal data?"): true only when the named
// answer exists, is a well-formed noul answer, and p(no) = 1 − p(yes) ≥ min.
func (r *Response) ClearlyNo(name string, min float64) bool {
	p, ok := r.noul(name)
	return ok && 1-p >= min
}

func (r *Response) noul(name string) (float64, bool) {
	if r == nil {
		return 0, false
	}
	a, ok := r.Answers[name]
	if !ok {
		return 0, false
	}
	return a.noulP()
}

func (a Answer) noulP() (float64, bool) {
	if a.Type != TypeNoul || a.Noul == nil {
		return 0, false
	}
	p := *a.Noul
	if !finite(p) || p < 0 || p > 1 {
		return 0, false
	}
	return p, true
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
