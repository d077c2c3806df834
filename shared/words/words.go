// Package words reads English text into words and follows negation through
// it: the reading the offline engines and answer relevance share. Each
// reader brings its own word lists, built on the common ones here, so the
// rules stay the same while the lists can differ where a reader needs them
// to.
package words

import (
	"strings"
	"unicode"
)

// scope is how many content words after a negator its negation covers,
// unless the clause ends first. Three covers "not very urgent at all" and
// "without side effects", and lets "not fast, but cheap" negate only
// "fast".
const scope = 3

// Set makes a lookup set of ws.
func Set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// negators start a negation scope in every reader. Contractions arrive
// without their apostrophe ("don't" → "dont", "n't" → "nt").
var negators = []string{
	"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without",
	"cannot", "cant", "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent",
	"wont", "wouldnt", "shouldnt", "couldnt", "hasnt", "havent", "hadnt", "nt",
}

// clauseBreakers end a negation scope as punctuation does.
var clauseBreakers = []string{"but", "however", "although", "though", "yet", "except"}

// stopWords carry no topic for any reader: articles, prepositions,
// pronouns, auxiliaries and quantifiers. Question words are not among
// them, because one reader needs them.
var stopWords = []string{
	"a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for", "from", "by", "with",
	"as", "into", "about", "over", "this", "that", "these", "those", "it", "its", "is", "are",
	"was", "were", "be", "been", "being", "am", "do", "does", "did", "has", "have", "had",
	"i", "me", "my", "we", "our", "you", "your", "he", "she", "him", "her", "his", "they",
	"them", "their", "there", "here", "who", "whom", "whose", "if", "then", "than", "can",
	"could", "should", "would", "will", "shall", "may", "might", "must", "just", "any", "some",
	"all", "each", "other", "only", "also", "too", "please", "s", "t",
}

// Negators is the set of the common negators and more.
func Negators(more ...string) map[string]bool { return with(negators, more) }

// ClauseBreakers is the set of the common clause breakers ("but",
// "however", …) and more.
func ClauseBreakers(more ...string) map[string]bool { return with(clauseBreakers, more) }

// StopWords is the set of the common stop words and more.
func StopWords(more ...string) map[string]bool { return with(stopWords, more) }

func with(base, more []string) map[string]bool {
	m := Set(base...)
	for _, w := range more {
		m[w] = true
	}
	return m
}

// Word is a word of a text as written, lower case, with the punctuation
// that ends its clause right after it (empty when the clause goes on).
type Word struct {
	Text  string
	Punct string
}

// Token is a content word and whether a negation covers it.
type Token struct {
	Word    string
	Negated bool
}

// Tokenizer reads text by one reader's rules. Letters always belong to a
// word, and an apostrophe inside a word is dropped ("don't" → "dont").
// White space, '-' and '_' part words; any other rune not taken by the
// fields below ends a clause, and with it any negation.
type Tokenizer struct {
	// Digits keeps digits in words ("mp3", "2fa"); otherwise they part
	// words.
	Digits bool
	// Joiners belong to a word once it has begun ("c++", "c#").
	Joiners string
	// Spaces part words without ending a clause, like white space.
	Spaces string

	Negators, Breakers, Stop map[string]bool
}

// Words splits text into words.
func (tk *Tokenizer) Words(text string) []Word {
	var out []Word
	word := make([]rune, 0, 32)
	part := func() {
		if len(word) > 0 {
			out = append(out, Word{Text: string(word)})
			word = word[:0]
		}
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r), tk.Digits && unicode.IsDigit(r), len(word) > 0 && strings.ContainsRune(tk.Joiners, r):
			word = append(word, unicode.ToLower(r))
		case len(word) > 0 && (r == '\'' || r == '’'):
		case unicode.IsSpace(r), unicode.IsDigit(r), r == '-', r == '_', strings.ContainsRune(tk.Spaces, r):
			part()
		default:
			part()
			// Punctuation before the first word ends no clause anyone
			// has read.
			if n := len(out); n > 0 {
				out[n-1].Punct += string(r)
			}
		}
	}
	part()
	return out
}

// Tokens reads text into its content words, each marked as negated when a
// negator's scope covers it. Negators, clause breakers and stop words are
// left out.
func (tk *Tokenizer) Tokens(text string) []Token {
	var out []Token
	var neg Negation
	for _, w := range tk.Words(text) {
		switch {
		case tk.Negators[w.Text]:
			neg.Open()
		case tk.Breakers[w.Text]:
			neg.Close()
		case tk.Stop[w.Text]:
		default:
			out = append(out, Token{Word: w.Text, Negated: neg.Cover()})
		}
		if w.Punct != "" {
			neg.Close()
		}
	}
	return out
}

// Negation follows one negation through a clause, for a reader that walks
// the words itself: a negator opens it over the next three content words,
// and a clause breaker or punctuation closes it.
type Negation struct{ left int }

// Open starts a negation's scope.
func (n *Negation) Open() { n.left = scope }

// Close ends the scope: the clause is over.
func (n *Negation) Close() { n.left = 0 }

// Active reports whether a negation is in scope.
func (n *Negation) Active() bool { return n.left > 0 }

// Cover reports whether the negation covers the next content word, and
// counts that word against the scope.
func (n *Negation) Cover() bool {
	if n.left == 0 {
		return false
	}
	n.left--
	return true
}
