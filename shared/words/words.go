// Package words reads English text into words and follows negation through
// it: the reading the offline engines and answer relevance share. Each
// reader brings its own word lists, built on the common ones here, so the
// rules stay the same while the lists can differ where a reader needs them
// to.
package words

import (
	"strings"
	"unicode"
	"unicode/utf8"
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

// Opposites maps each word of pairs, folded by fold, to the folded words
// it is paired with, both ways: the lists of words that lie close in
// vector space but mean opposite or different things.
func Opposites(pairs [][2]string, fold func(string) string) map[string][]string {
	m := make(map[string][]string, 2*len(pairs))
	for _, p := range pairs {
		a, b := fold(p[0]), fold(p[1])
		m[a] = append(m[a], b)
		m[b] = append(m[b], a)
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

// clauseBreakers end a negation scope as punctuation does: the words
// that join or oppose two clauses, and the subject pronouns that open a
// new one. "My package never arrived and I want my money back" denies the
// arrival, not the money back. "You" and "it" are left out: they are
// objects as often as subjects ("we cannot refund you the fee").
var clauseBreakers = []string{
	"but", "however", "although", "though", "yet", "except", "and",
	"i", "we", "he", "she", "they", "im", "ive", "weve", "theyre", "theyve", "youre",
}

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

// NegatesAfter reports whether w, read right after prev, opens a
// negation though neither word does alone: "no longer", "other than",
// "rather than", "fail to" (any form of fail). Both words are folded as
// the tokenizer folds them. The second word is then no content word of
// its own.
func NegatesAfter(prev, w string) bool {
	switch w {
	case "longer":
		return prev == "no"
	case "than":
		return prev == "other" || prev == "rather"
	case "to":
		return prev == "fail" || prev == "fails" || prev == "failed" || prev == "failing"
	}
	return false
}

// EndsNegation reports whether a negation ends with w, a verb of
// receiving or arriving: what was not received is still what the text is
// about, and usually what its writer asks for ("I never received the
// invoice": the invoice is wanted, not denied).
func EndsNegation(w string) bool {
	if w == "" || w[0] != 'r' && w[0] != 'g' && w[0] != 'a' && w[0] != 'c' {
		return false // most words are spared the lookup below
	}
	switch w {
	case "receive", "received", "receives", "receiving", "get", "gets", "got", "gotten", "getting",
		"arrive", "arrived", "arrives", "arriving", "come", "comes", "came", "coming":
		return true
	}
	return false
}

// contradictories are words whose prefix says "not" and nothing more:
// each is its base word negated ("unresolved" is "not resolved"), so a
// reader may read one as the other, and a question with one as the
// complement of the question with the other. Words whose prefix makes a
// contrary rather than a contradictory ("unhappy" lies beyond "not
// happy", with a neutral middle between) are not listed, nor words whose
// prefix undoes an act ("unsubscribe", "unlock").
var contradictories = map[string]string{
	"unresolved": "resolved", "unsolved": "solved", "unfixed": "fixed", "unpaid": "paid",
	"undelivered": "delivered", "unanswered": "answered", "unavailable": "available",
	"unable": "able", "incomplete": "complete", "incorrect": "correct", "inaccurate": "accurate",
	"invalid": "valid", "unclear": "clear", "irrelevant": "relevant", "unrelated": "related",
	"insufficient": "sufficient", "unsuccessful": "successful", "unconfirmed": "confirmed",
	"unverified": "verified", "unprocessed": "processed", "unread": "read", "unopened": "opened",
	"unused": "used", "unfinished": "finished", "unauthorized": "authorized",
	"unauthorised": "authorised", "unapproved": "approved", "impossible": "possible",
	"unnecessary": "necessary", "unacceptable": "acceptable", "inappropriate": "appropriate",
	"unqualified": "qualified", "unprepared": "prepared", "uninterested": "interested",
	"inactive": "active", "disconnected": "connected", "unsupported": "supported",
	"unspecified": "specified", "undecided": "decided", "unemployed": "employed",
	"unreachable": "reachable", "unresponsive": "responsive", "unrefunded": "refunded",
	"unshipped": "shipped", "unsigned": "signed", "unreturned": "returned",
}

// Contradictory returns the word that w negates when w is a listed
// prefixed contradictory, in lower case ("unresolved" → "resolved").
func Contradictory(w string) (string, bool) {
	if len(w) < 5 || w[0] != 'u' && w[0] != 'i' && w[0] != 'd' {
		return "", false // every one opens with un-, in-, im-, ir- or dis-
	}
	base, ok := contradictories[w]
	return base, ok
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

// Words splits text into words. A word written in lower case as it is
// kept (the common case) shares the text's bytes instead of being copied,
// and so does a clause's punctuation: this is the engines' hot path.
func (tk *Tokenizer) Words(text string) []Word {
	var out []Word
	tk.scan(text, false, func(w word) {
		if out == nil {
			out = make([]Word, 0, len(text)/6+1)
		}
		out = append(out, Word{Text: w.text, Punct: w.punct})
	})
	return out
}

// role is what a word does in a reader's reading.
type role uint8

const (
	content role = iota
	negator
	breaker
	stop
)

// roleOf is w's role by the reader's lists, tried in that order.
func (tk *Tokenizer) roleOf(w string) role {
	switch {
	case tk.Negators[w]:
		return negator
	case tk.Breakers[w]:
		return breaker
	case tk.Stop[w]:
		return stop
	}
	return content
}

// word is a word scan has read, its role when asked for, and the
// punctuation that follows it. With roles, whatever the word's role, pair
// is the word when it is one of a negating pair (NegatesAfter), as a
// constant, and ends whether a negation ends with it (EndsNegation).
type word struct {
	text  string
	role  role
	punct string
	pair  string
	ends  bool
}

// scan reads text word by word and calls yield with each word and the
// punctuation that follows it, in order. With roles each word's role is
// looked up, and a word that is not content has no text: a word copied
// from the text (written in upper case, "I", "The", or with an apostrophe)
// is then copied only if it is content.
func (tk *Tokenizer) scan(text string, roles bool, yield func(word)) {
	// The current word began at start; buf holds it once it differs from
	// text[start:i]. The word read last waits in last for its punctuation.
	start, copied := -1, false
	var buf []byte
	var last word
	waiting := false
	part := func(end int) {
		if start < 0 {
			return
		}
		if waiting {
			yield(last)
		}
		last, waiting = word{}, true
		switch {
		case !copied:
			last.text = text[start:end]
			if roles {
				last.role = tk.roleOf(last.text)
				last.pair, last.ends = negationWord(last.text)
			}
		case roles:
			// A lookup with string(buf) copies nothing.
			if last.role = tk.roleOf(string(buf)); last.role == content {
				last.text = string(buf)
			}
			last.pair, last.ends = negationWord(string(buf))
		default:
			last.text = string(buf)
		}
		start, copied = -1, false
	}
	// keep adds rune r, written as text[i:i+size], to the current word.
	keep := func(i, size int, r rune) {
		if start < 0 {
			start = i
		}
		lr := unicode.ToLower(r)
		if !copied && lr == r {
			return
		}
		if !copied {
			copied = true
			buf = append(buf[:0], text[start:i]...)
		}
		buf = utf8.AppendRune(buf, lr)
	}
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		inWord := start >= 0
		switch {
		case isLetter(r), tk.Digits && isDigit(r), inWord && strings.ContainsRune(tk.Joiners, r):
			keep(i, size, r)
		case inWord && (r == '\'' || r == '’'):
			if !copied {
				copied = true
				buf = append(buf[:0], text[start:i]...)
			}
		case isSpace(r), isDigit(r), r == '-', r == '_', strings.ContainsRune(tk.Spaces, r):
			part(i)
		default:
			part(i)
			// Punctuation before the first word ends no clause anyone
			// has read.
			if waiting {
				p := text[i : i+size]
				if r == utf8.RuneError && size == 1 {
					p = string(r) // as ranging over the text reads it
				}
				if last.punct == "" {
					last.punct = p
				} else {
					last.punct += p
				}
			}
		}
		i += size
	}
	part(len(text))
	if waiting {
		yield(last)
	}
}

// negationWord is w as NegatesAfter reads it, as a constant (never a
// copy of w; "" for a word no pair holds), and whether a negation ends
// with it (EndsNegation): one look at a word for both.
func negationWord(w string) (string, bool) {
	if len(w) < 2 || len(w) > 9 {
		return "", false // no such word is shorter or longer
	}
	switch w {
	case "no":
		return "no", false
	case "longer":
		return "longer", false
	case "other":
		return "other", false
	case "rather":
		return "rather", false
	case "than":
		return "than", false
	case "to":
		return "to", false
	case "fail":
		return "fail", false
	case "fails":
		return "fails", false
	case "failed":
		return "failed", false
	case "failing":
		return "failing", false
	}
	return "", EndsNegation(w)
}

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r)
}

func isDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}

// Tokens reads text into its content words, each marked as negated when a
// negator's scope covers it. Negators, clause breakers and stop words are
// left out, and are never copied out of the text.
func (tk *Tokenizer) Tokens(text string) []Token {
	var out []Token
	var neg Negation
	prev := ""
	tk.scan(text, true, func(w word) {
		switch {
		case w.role == negator || NegatesAfter(prev, w.pair):
			neg.Open()
		case w.role == breaker:
			neg.Close()
		case w.role == stop:
		default:
			if out == nil {
				out = make([]Token, 0, len(text)/6+1)
			}
			out = append(out, Token{Word: w.text, Negated: neg.Cover()})
		}
		prev = w.pair
		if w.punct != "" || w.ends {
			neg.Close()
			prev = ""
		}
	})
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
