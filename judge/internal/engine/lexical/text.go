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

// terms turns text into stemmed content terms, negated ones prefixed.
func terms(text string) bag {
	b := bag{}
	for _, tk := range tokenizer.Tokens(text) {
		tk = read(tk)
		t := stem(tk.Word)
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

// suffixes are tried longest first; the first that leaves a stem of at least
// three letters is replaced. This is deliberately lighter than Porter: it
// only folds the inflections that decide whether two phrasings match.
type suffix struct{ from, to string }

var suffixes = []suffix{
	{"ational", "ate"}, {"ization", "ize"}, {"fulness", "ful"}, {"iveness", "ive"},
	{"ousness", "ous"}, {"ities", "ity"}, {"ency", "ent"}, {"ancy", "ant"},
	{"ness", ""}, {"ment", ""}, {"ings", ""}, {"ing", ""}, {"ied", "y"}, {"ies", "y"},
	{"ed", ""}, {"ly", ""}, {"es", ""}, {"s", ""},
}

// suffixesEnding lists, for each last byte, the suffixes that end in it,
// in the order of suffixes: a word is tried only against the suffixes it
// could end in, most words against none.
var suffixesEnding = func() (by [256][]suffix) {
	for _, s := range suffixes {
		last := s.from[len(s.from)-1]
		by[last] = append(by[last], s)
	}
	return by
}()

// stem folds inflections so "charges", "charged" and "charging" meet at
// "charg", and "urgency" meets "urgent".
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	return stemWith(w, suffixesEnding[w[len(w)-1]])
}

// stemWith is stem trying the suffixes of list, in order.
func stemWith(w string, list []suffix) string {
	for _, s := range list {
		if strings.HasSuffix(w, s.from) && len(w)-len(s.from)+len(s.to) >= 3 {
			if s.from == "s" && strings.HasSuffix(w, "ss") {
				break
			}
			w = w[:len(w)-len(s.from)] + s.to
			break
		}
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	if n := len(w); n > 4 && w[n-1] == w[n-2] && w[n-1] >= 'a' && w[n-1] <= 'z' && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	return w
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
