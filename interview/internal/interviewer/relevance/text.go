package relevance

import (
	"strings"

	"github.com/judgeworks/shared/words"
	"github.com/judgeworks/shared/wordvec"
)

// tokenizer keeps digits and the signs of "c++" and "c#" in words; slashes,
// quotes and brackets part words without ending a clause. "while" and
// "whereas" end a negation too ("not fast, while…"), and "instead" starts
// one. The stop words are few on purpose: "read", "first" or "same" can be
// the heart of a key point.
var tokenizer = words.Tokenizer{
	Digits:   true,
	Joiners:  "+#",
	Spaces:   "/\"'()",
	Negators: words.Negators("instead"),
	Breakers: words.ClauseBreakers("whereas", "while"),
	Stop: words.StopWords(
		"us", "which", "what", "when", "where", "why", "how", "so", "very", "really",
		"d", "ll", "ve", "re", "m", "im", "ive", "id", "youre", "theyre", "thats", "get", "got",
		"one", "ones", "thing", "things", "way", "like", "such", "e", "g", "eg", "etc", "say",
		"let", "lets", "well", "yes", "ok", "okay", "um", "uh", "er", "ah", "oh", "actually",
		"basically",
	),
}

// contrasts are pairs of words that share their contexts, and so lie close
// in vector space, but name different or opposite things: a sentence about
// recall must not pass for one about precision, nor "write" for "read".
// Each counts against the other, unless the word itself is present too.
// Words are compared by fold.
var contrasts = func() map[string][]string {
	pairs := [][2]string{
		{"read", "write"}, {"before", "after"}, {"increase", "decrease"}, {"fast", "slow"},
		{"more", "less"}, {"more", "fewer"}, {"many", "few"}, {"client", "server"},
		{"synchronous", "asynchronous"}, {"sync", "async"}, {"stateless", "stateful"},
		{"local", "remote"}, {"local", "global"}, {"small", "large"}, {"small", "big"},
		{"same", "different"}, {"first", "last"}, {"start", "stop"}, {"success", "failure"},
		{"pass", "fail"}, {"accept", "reject"}, {"allow", "deny"}, {"allow", "block"},
		{"enable", "disable"}, {"include", "exclude"}, {"add", "remove"}, {"open", "close"},
		{"true", "false"}, {"high", "low"}, {"strong", "weak"}, {"right", "wrong"},
		{"correct", "wrong"}, {"simple", "complex"}, {"push", "pull"}, {"input", "output"},
		{"upload", "download"}, {"encrypt", "decrypt"}, {"horizontal", "vertical"},
		{"optimistic", "pessimistic"}, {"mutable", "immutable"}, {"public", "private"},
		{"internal", "external"}, {"online", "offline"}, {"supervised", "unsupervised"},
		{"overfitting", "underfitting"}, {"precision", "recall"}, {"positive", "negative"},
		{"authentication", "authorization"}, {"authentication", "authorisation"},
		{"get", "post"}, {"put", "patch"}, {"tcp", "udp"}, {"batch", "stream"},
		{"batch", "streaming"}, {"sql", "nosql"}, {"unit", "integration"},
		{"verification", "validation"}, {"severity", "priority"}, {"process", "thread"},
		{"stack", "heap"}, {"latency", "throughput"}, {"encode", "decode"},
		{"manual", "automatic"}, {"manual", "automated"}, {"frontend", "backend"},
		{"cheap", "expensive"}, {"early", "late"}, {"easy", "hard"}, {"good", "bad"},
		{"success", "fail"}, {"win", "lose"}, {"agree", "disagree"}, {"best", "worst"},
		{"better", "worse"}, {"minimum", "maximum"}, {"lower", "upper"}, {"min", "max"},
		{"inner", "outer"}, {"left", "right"}, {"row", "column"}, {"key", "value"},
		{"training", "test"}, {"train", "test"}, {"training", "validation"},
		{"classification", "regression"}, {"etl", "elt"}, {"var", "let"}, {"var", "const"},
		{"let", "const"}, {"container", "vm"}, {"ios", "android"}, {"cookie", "token"},
		{"symmetric", "asymmetric"}, {"debit", "credit"}, {"buy", "sell"},
	}
	return words.Opposites(pairs, fold)
}()

// fold is the one reading of a word's form (words.Fold): "caching",
// "cached" and "caches" meet "cache", "optimise" meets "optimized".
func fold(w string) string { return words.Fold(w) }

// known finds the vocabulary form of w: w itself, w without a plural or
// tense ending, w in American spelling (the vectors' source is mostly
// American: "memorise" → "memorize", "behaviour" → "behavior"), or, for a
// derived word the vectors lack, its base ("atomicity" → "atomic").
func known(vec *wordvec.Table, w string) (string, bool) {
	if b, ok := vec.Base(w); ok {
		return b, true
	}
	if a := words.American(w); a != w && vec.Has(a) {
		return a, true
	}
	for _, d := range derivations {
		if b, ok := strings.CutSuffix(w, d[0]); ok && len(b) >= 4 && vec.Has(b+d[1]) {
			return b + d[1], true
		}
	}
	return w, false
}

// derivations strip a suffix to reach a base word the vectors know.
var derivations = [][2]string{
	{"ability", "able"}, {"ibility", "ible"}, {"icity", "ic"}, {"ity", ""}, {"ness", ""},
	{"ization", "ize"}, {"isation", "ize"}, {"ation", "e"}, {"ation", ""}, {"ment", ""},
	{"ically", "ic"}, {"ly", ""}, {"ies", "y"}, {"able", ""},
}
