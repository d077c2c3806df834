package lexical

import (
	"sort"
	"strings"

	"github.com/judgeworks/shared/words"
)

// negPrefix marks a term that appeared inside a negation's scope, so "not
// urgent" yields the term "not_urgent", which never matches "urgent".
const negPrefix = "not_"

// tokenizer follows negation as the semantic engine does, so both read
// "not urgent" alike; unlike there, digits belong to words. Question words
// are stop words here, because instructions are usually phrased as
// questions ("Is the customer angry?").
var tokenizer = words.Tokenizer{
	Digits:   true,
	Spaces:   "'’",
	Negators: words.Negators("aint"),
	Breakers: words.ClauseBreakers(),
	Stop: words.StopWords(
		"what", "which", "when", "where", "why", "how", "so", "such", "very", "really", "quite",
	),
}

// bag counts the terms of a text.
type bag map[string]float64

// terms turns text into stemmed content terms (words.Stem), negated ones
// prefixed.
func terms(text string) bag {
	b := bag{}
	for _, tk := range tokenizer.Tokens(text) {
		tk = read(tk)
		t := words.Stem(tk.Word)
		if tk.Negated {
			t = negPrefix + t
		}
		b[t]++
	}
	return b
}

// read is tk as the engine reads it: a listed contradictory
// ("unresolved") as its base word negated ("not resolved").
func read(tk words.Token) words.Token {
	if base, ok := words.Contradictory(tk.Word); ok {
		return words.Token{Word: base, Negated: !tk.Negated}
	}
	return tk
}

// negate flips the polarity of every term: the reading of "the opposite of
// this text" used for a noul question's "no" side when the caller gave none.
func (b bag) negate() bag {
	out := make(bag, len(b))
	for t, n := range b {
		out[flip(t)] += n
	}
	return out
}

func flip(t string) string {
	if s, ok := strings.CutPrefix(t, negPrefix); ok {
		return s
	}
	return negPrefix + t
}

func (b bag) add(o bag) {
	for t, n := range o {
		b[t] += n
	}
}

// sortedTerms gives a fixed iteration order, so float sums are identical on
// every run whatever the map order.
func (b bag) sortedTerms() []string {
	ts := make([]string, 0, len(b))
	for t := range b {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	return ts
}
