package relevance

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/judgeworks/shared/wordvec"
)

// negScope is how many content words after a negator it covers, unless
// punctuation or "but" ends the clause first: "without side effects"
// negates both words, "not fast, but cheap" only "fast".
const negScope = 3

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// negators start a negation scope. Contractions arrive without their
// apostrophe ("don't" → "dont").
var negators = set(
	"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without",
	"cannot", "cant", "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent",
	"wont", "wouldnt", "shouldnt", "couldnt", "hasnt", "havent", "hadnt", "nt",
	"instead",
)

// clauseBreakers end a negation scope as punctuation does.
var clauseBreakers = set("but", "however", "although", "though", "yet", "except", "whereas", "while")

// stopWords carry no topic. The list is short on purpose: "read", "first"
// or "same" can be the heart of a key point.
var stopWords = set(
	"a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for", "from", "by", "with",
	"as", "into", "about", "over", "this", "that", "these", "those", "it", "its", "is", "are",
	"was", "were", "be", "been", "being", "am", "do", "does", "did", "has", "have", "had",
	"i", "me", "my", "we", "us", "our", "you", "your", "he", "she", "him", "her", "his", "they",
	"them", "their", "there", "here", "who", "whom", "whose", "which", "what", "when", "where",
	"why", "how", "if", "then", "than", "so", "can", "could", "should", "would", "will",
	"shall", "may", "might", "must", "just", "any", "some", "all", "each", "other", "only",
	"also", "too", "very", "really", "please", "s", "t", "d", "ll", "ve", "re", "m", "im",
	"ive", "id", "youre", "theyre", "thats", "its", "get", "got", "one", "ones", "thing",
	"things", "way", "like", "such", "e", "g", "eg", "etc", "say", "let", "lets", "well",
	"yes", "ok", "okay", "um", "uh", "er", "ah", "oh", "actually", "basically",
)

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
	m := make(map[string][]string, 2*len(pairs))
	for _, p := range pairs {
		a, b := fold(p[0]), fold(p[1])
		m[a] = append(m[a], b)
		m[b] = append(m[b], a)
	}
	return m
}()

// fold reduces common inflections so that "caching", "cached" and
// "caches" meet "cache", and "stopped" meets "stop". It only has to make
// the forms of one word agree, not produce dictionary words.
func fold(w string) string {
	if len(w) <= 3 {
		return w
	}
	b := w
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		b = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		b = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "eed"):
		// "speed", "need": not a past tense.
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		b = undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "es") && len(w) >= 5 && !strings.HasSuffix(w, "ses"):
		b = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		b = w[:len(w)-1]
	}
	if len(b) > 3 {
		b = strings.TrimSuffix(b, "e")
	}
	return b
}

// undouble turns "stopp" into "stop" and "plann" into "plan"; "ll", "ss"
// and "ff" stay ("calling" → "call").
func undouble(b string) string {
	if n := len(b); n >= 3 && b[n-1] == b[n-2] && !strings.ContainsRune("aeioulsfz", rune(b[n-1])) {
		return b[:n-1]
	}
	return b
}

// token is one content word as written: lower case, with the negation that
// covers it and its byte offset in the text.
type token struct {
	word    string
	negated bool
}

// words splits s into lower-case words of letters and digits; an
// apostrophe inside a word is dropped ("don't" → "dont"), '+' and '#' stay
// ("c++", "c#"). Each word comes with whether punctuation ends a clause
// right after it.
func words(s string) (ws []string, breaks []bool) {
	word := make([]rune, 0, 32)
	flush := func(brk bool) {
		if len(word) > 0 {
			ws = append(ws, string(word))
			breaks = append(breaks, brk)
			word = word[:0]
		} else if brk && len(breaks) > 0 {
			breaks[len(breaks)-1] = true
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || ((r == '+' || r == '#') && len(word) > 0):
			word = append(word, unicode.ToLower(r))
		case (r == '\'' || r == '’') && len(word) > 0:
		case unicode.IsSpace(r) || r == '-' || r == '_' || r == '/' || r == '"' || r == '\'' || r == '(' || r == ')':
			flush(false)
		default:
			flush(true)
		}
	}
	flush(false)
	return ws, breaks
}

// tokens reads s into content words with their negation.
func tokens(s string) []token {
	ws, breaks := words(s)
	var out []token
	negLeft := 0
	for i, w := range ws {
		switch {
		case negators[w]:
			negLeft = negScope
		case clauseBreakers[w]:
			negLeft = 0
		case stopWords[w]:
		default:
			out = append(out, token{word: w, negated: negLeft > 0})
			if negLeft > 0 {
				negLeft--
			}
		}
		if breaks[i] {
			negLeft = 0
		}
	}
	return out
}

// known finds the vocabulary form of w: w itself, w without a plural or
// tense ending, w in American spelling (the vectors' source is mostly
// American: "memorise" → "memorize", "behaviour" → "behavior"), or, for a
// derived word the vectors lack, its base ("atomicity" → "atomic").
func known(vec *wordvec.Table, w string) (string, bool) {
	if vec.Has(w) {
		return w, true
	}
	for _, suf := range []string{"s", "es", "ed", "d", "ing"} {
		if b, ok := strings.CutSuffix(w, suf); ok && len(b) >= 3 && vec.Has(b) {
			return b, true
		}
	}
	for _, sp := range spellings {
		if i := strings.LastIndex(w, sp[0]); i > 0 {
			if a := w[:i] + sp[1] + w[i+len(sp[0]):]; vec.Has(a) {
				return a, true
			}
		}
	}
	for _, d := range derivations {
		if b, ok := strings.CutSuffix(w, d[0]); ok && len(b) >= 4 && vec.Has(b+d[1]) {
			return b + d[1], true
		}
	}
	return w, false
}

// spellings are British endings and their American forms.
var spellings = [][2]string{
	{"isation", "ization"}, {"ising", "izing"}, {"ised", "ized"}, {"ises", "izes"}, {"ise", "ize"},
	{"yse", "yze"}, {"our", "or"}, {"tre", "ter"}, {"ogue", "og"},
}

// derivations strip a suffix to reach a base word the vectors know.
var derivations = [][2]string{
	{"ability", "able"}, {"ibility", "ible"}, {"icity", "ic"}, {"ity", ""}, {"ness", ""},
	{"ization", "ize"}, {"isation", "ize"}, {"ation", "e"}, {"ation", ""}, {"ment", ""},
	{"ically", "ic"}, {"ly", ""}, {"ies", "y"}, {"able", ""},
}

// span is a sentence of a text: its byte range, trimmed of spaces.
type span struct{ start, end int }

// sentenceEnd reports whether r ends a sentence. A full stop between two
// letters or digits ("node.js", "3.5") does not.
func sentences(s string) []span {
	var out []span
	start := 0
	add := func(end int) {
		a, b := start, end
		for a < b {
			r, n := utf8.DecodeRuneInString(s[a:])
			if !unicode.IsSpace(r) {
				break
			}
			a += n
		}
		for b > a {
			r, n := utf8.DecodeLastRuneInString(s[:b])
			if !unicode.IsSpace(r) {
				break
			}
			b -= n
		}
		if b > a {
			out = append(out, span{a, b})
		}
	}
	for i, r := range s {
		end := false
		switch r {
		case '!', '?', ';', '\n':
			end = true
		case '.':
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			end = !(unicode.IsLetter(next) || unicode.IsDigit(next))
		}
		if end {
			add(i + utf8.RuneLen(r))
			start = i + utf8.RuneLen(r)
		}
	}
	add(len(s))
	return out
}
