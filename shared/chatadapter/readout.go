package chatadapter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode"

	"github.com/judgeworks/shared/systemone"
)

// TopLogprobs is the widest top-logprobs window OpenAI-compatible
// providers offer; a logprobs call shows the model at most this many
// labels, and larger choices go through the tournament (see tournament).
const TopLogprobs = 20

// errNoLogprobs means the provider answered without logprobs: the model
// or the server does not offer them, and the probabilities readout must
// be used instead.
var errNoLogprobs = errors.New("the provider returned no logprobs")

// malformedError is a reply that does not follow the asked format. Its
// text is shown to the model in the corrective message.
type malformedError struct{ reason string }

func (e *malformedError) Error() string { return e.reason }

func malformed(format string, args ...any) error {
	return &malformedError{reason: fmt.Sprintf(format, args...)}
}

// tokenLabel reduces a token to the label it spells: " A", "A", "a", "A.",
// "(A)", "**A" and "A:" all spell A. Only the first token of the reply is
// read, so variants differ only in spacing, case and punctuation around a
// label, never in extra words.
func tokenLabel(tok string) string {
	return strings.ToLower(strings.TrimFunc(tok, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r)
	}))
}

// readLogprobs turns the top logprobs of the answer token into one
// probability per label. Variants of a label are summed. A label outside
// the window is not impossible, only rarer than every listed token, so it
// gets the smaller of the smallest listed probability and an even share of
// the mass the window does not list; then the result is renormalised over
// the labels. When no label is in the window at all the model answered
// something else, and the reply is malformed.
func readLogprobs(tops []tokenLogprob, labels []string) ([]float64, error) {
	index := make(map[string]int, len(labels))
	for i, l := range labels {
		index[strings.ToLower(l)] = i
	}
	mass := make([]float64, len(labels))
	seen := make([]bool, len(labels))
	listed, smallest, found := 0.0, 1.0, false
	for _, t := range tops {
		if math.IsNaN(t.Logprob) || t.Logprob > 0 {
			continue
		}
		p := math.Exp(t.Logprob)
		listed += p
		smallest = math.Min(smallest, p)
		if i, ok := index[tokenLabel(t.Token)]; ok {
			mass[i] += p
			seen[i] = true
			found = true
		}
	}
	if !found {
		got := make([]string, 0, 5)
		for _, t := range tops[:min(5, len(tops))] {
			got = append(got, fmt.Sprintf("%q", t.Token))
		}
		return nil, malformed("the answer token was none of the labels %s (top tokens: %s)",
			strings.Join(labels, ", "), strings.Join(got, ", "))
	}
	missing := 0
	for _, s := range seen {
		if !s {
			missing++
		}
	}
	if missing > 0 {
		share := math.Min(smallest, math.Max(0, 1-listed)/float64(missing))
		for i, s := range seen {
			if !s {
				mass[i] = share
			}
		}
	}
	return systemone.Normalize(mass)
}

// sumTolerance is how far from 1 the numbers of a probabilities reply may
// sum when normalisation is off.
const sumTolerance = 0.01

// parseProbabilities reads a probabilities reply: a JSON object with one
// finite, non-negative number per label and no other keys. A code fence
// around the object is tolerated (models without structured outputs add
// one); anything else is malformed. With normalize the numbers are scaled
// to sum to 1; without it they must already sum to 1 within sumTolerance.
func parseProbabilities(content string, labels []string, normalize bool) ([]float64, error) {
	s := strings.TrimSpace(content)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		rest = strings.TrimPrefix(rest, "json")
		if body, ok := strings.CutSuffix(strings.TrimSpace(rest), "```"); ok {
			s = strings.TrimSpace(body)
		}
	}
	if s == "" {
		return nil, malformed("the reply was empty; it must be a JSON object")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, malformed("the reply is not a JSON object")
	}
	index := make(map[string]int, len(labels))
	for i, l := range labels {
		index[l] = i
	}
	probs := make([]float64, len(labels))
	seen := make([]bool, len(labels))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, malformed("the reply is not valid JSON: %v", err)
		}
		key, _ := tok.(string)
		i, ok := index[key]
		if !ok {
			return nil, malformed("unknown key %q; the keys must be exactly %s", key, strings.Join(labels, ", "))
		}
		if seen[i] {
			return nil, malformed("key %q appears twice", key)
		}
		seen[i] = true
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, malformed("the reply is not valid JSON: %v", err)
		}
		n, ok := v.(json.Number)
		if !ok {
			return nil, malformed("the value of %q is not a number", key)
		}
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) || f < 0 {
			return nil, malformed("the value of %q is %s; it must be a number from 0 to 1", key, n)
		}
		probs[i] = f
	}
	if _, err := dec.Token(); err != nil {
		return nil, malformed("the reply is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, malformed("the reply has text after the JSON object")
	}
	for i, s := range seen {
		if !s {
			return nil, malformed("key %q is missing", labels[i])
		}
	}
	sum := 0.0
	for _, p := range probs {
		sum += p
	}
	if sum == 0 {
		return nil, malformed("all probabilities are 0")
	}
	if !normalize && math.Abs(sum-1) > sumTolerance {
		return nil, malformed("the probabilities sum to %g, not 1", sum)
	}
	return systemone.Normalize(probs)
}
