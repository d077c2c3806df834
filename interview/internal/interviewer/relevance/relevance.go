// Package relevance reads what an answer says with the word vectors of
// shared/wordvec: how much of a key point one of its sentences expresses,
// in the point's words or in others, and whether the answer says enough
// about the question to be scored at all. It reads words and their
// neighbourhoods, not sentences: it does not understand the text.
package relevance

import (
	"math"
	"strings"
	"sync"

	"github.com/judgeworks/shared/words"
	"github.com/judgeworks/shared/wordvec"
)

// floor is the cosine below which two words count as unrelated: after the
// vectors' common part is removed, loosely related words still reach 0.2
// to 0.3, so a match is scored by how far it rises above this.
const floor = 0.3

// Reader reads texts with a table of word vectors. It is read-only after
// New, so it is safe for concurrent use.
type Reader struct {
	vec *wordvec.Table
	// idf weighs words by how few of the corpus's documents use them
	// (by fold); nil weighs every word alike.
	idf     map[string]float64
	idfRare float64
}

// New returns a Reader over vec. Given a corpus (the key points of a
// question bank, say), words are also weighed by how few of its documents
// use them: in a bank about software, "data" and "server" say little about
// which point a sentence makes.
func New(vec *wordvec.Table, corpus ...string) *Reader {
	r := &Reader{vec: vec}
	if len(corpus) == 0 {
		return r
	}
	df := map[string]int{}
	for _, doc := range corpus {
		seen := map[string]bool{}
		for _, tk := range tokenizer.Tokens(doc) {
			f := fold(tk.Word)
			if !seen[f] {
				seen[f] = true
				df[f]++
			}
		}
	}
	n := float64(len(corpus))
	r.idf = make(map[string]float64, len(df))
	for f, c := range df {
		r.idf[f] = math.Log(1 + n/float64(c))
	}
	r.idfRare = math.Log(1 + n)
	return r
}

func (r *Reader) specificity(f string) float64 {
	if r.idf == nil {
		return 1
	}
	if v, ok := r.idf[f]; ok {
		return v
	}
	return r.idfRare
}

var defaultReader = sync.OnceValue(func() *Reader { return New(wordvec.Default()) })

// Default is a Reader over the embedded vectors; the first call decodes
// them (tens of milliseconds).
func Default() *Reader { return defaultReader() }

// term is a content word ready to compare.
type term struct {
	word   string // as written
	fold   string // inflections folded, for identity
	unit   []float32
	weight float64
	sign   float64 // -1 when negated
	known  bool    // the vectors hold the word
}

func (r *Reader) terms(s string) []term {
	toks := tokenizer.Tokens(s)
	out := make([]term, 0, len(toks))
	for _, tk := range toks {
		t := term{word: tk.Word, fold: fold(tk.Word), sign: 1}
		if tk.Negated {
			t.sign = -1
		}
		if w, ok := known(r.vec, tk.Word); ok {
			t.unit, _ = r.vec.Unit(w)
			t.known = true
			t.weight = r.vec.Weight(w) * r.specificity(t.fold)
		} else {
			// Unknown words (product names, acronyms, typos) weigh as
			// the rarest known ones do, but match only themselves.
			t.weight = r.specificity(t.fold)
		}
		out = append(out, t)
	}
	return out
}

// Phrase is a short description to look for: a key point's label or one
// of its keywords.
type Phrase struct {
	terms []term
	total float64
}

// Phrase reads s as a description.
func (r *Reader) Phrase(s string) Phrase {
	p := Phrase{terms: r.terms(s)}
	for _, t := range p.terms {
		p.total += t.weight
	}
	return p
}

// Without returns p less the words of s (by fold). A key point is read
// without the words of its question: the question gives them away, so an
// answer that only repeats the question must not pass for one that makes
// the point.
func (r *Reader) Without(p Phrase, s string) Phrase {
	drop := map[string]bool{}
	for _, tk := range tokenizer.Tokens(s) {
		drop[fold(tk.Word)] = true
	}
	out := Phrase{}
	for _, t := range p.terms {
		if !drop[t.fold] {
			out.terms = append(out.terms, t)
			out.total += t.weight
		}
	}
	return out
}

// Empty reports whether the phrase has no content word.
func (p Phrase) Empty() bool { return len(p.terms) == 0 }

// Words is the number of content words of the phrase.
func (p Phrase) Words() int { return len(p.terms) }

// Sentence is one sentence of a text, with its byte range in the text.
type Sentence struct {
	Start, End int
	terms      []term
}

// Text is an answer read into sentences.
type Text struct {
	Source    string
	Sentences []Sentence
	// Words counts the words; Known those the vectors hold (or numbers
	// such as "429"); Mashed the unknown ones that look typed at random
	// (see mashed) or placeholders; Content the words that are not stop
	// words.
	Words, Known, Mashed, Content int
}

// Read splits s into sentences and reads each.
func (r *Reader) Read(s string) Text {
	t := Text{Source: s}
	for _, sp := range words.Sentences(s) {
		t.Sentences = append(t.Sentences, Sentence{Start: sp.Start, End: sp.End, terms: r.terms(s[sp.Start:sp.End])})
	}
	for _, wd := range tokenizer.Words(s) {
		w := wd.Text
		t.Words++
		switch _, ok := known(r.vec, w); {
		case placeholders[w]:
			t.Mashed++
		case ok || isNumber(w):
			t.Known++
		case mashed(w):
			t.Mashed++
		}
	}
	for _, sn := range t.Sentences {
		t.Content += len(sn.terms)
	}
	return t
}

// ContentWords counts the content words (not stop words) of sentences
// first to last.
func (t Text) ContentWords(first, last int) int {
	n := 0
	for i := max(first, 0); i <= last && i < len(t.Sentences); i++ {
		n += len(t.Sentences[i].terms)
	}
	return n
}

// Quote is the text of sentence i.
func (t Text) Quote(i int) string { return t.Span(i, i) }

// Span is the text of sentences first to last.
func (t Text) Span(first, last int) string {
	return t.Source[t.Sentences[first].Start:t.Sentences[last].End]
}

func isNumber(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return w != ""
}

// similarity is how far the cosine of two terms rises above floor, scaled
// to [0, 1]; the same word (after folding) is 1, and a word without a
// vector matches only itself.
func similarity(a, b term) float64 {
	if a.fold == b.fold {
		return 1
	}
	if a.unit == nil || b.unit == nil {
		return 0
	}
	var dot float64
	for i := range a.unit {
		dot += float64(a.unit[i]) * float64(b.unit[i])
	}
	return math.Max(0, (dot-floor)/(1-floor))
}

func contrasted(a, b term) bool {
	for _, c := range contrasts[a.fold] {
		if c == b.fold {
			return true
		}
	}
	return false
}

// support is how strongly the words ws say description word d, in
// [-1, 1]: the best match in the same sense (both negated or neither)
// minus the strongest contradiction (a match in the opposite sense, or a
// contrasting word). The word itself, in the same sense, is full support
// whatever else the sentence says.
func support(d term, ws []term) float64 {
	var aff, deny float64
	for _, w := range ws {
		if contrasted(d, w) {
			deny = math.Max(deny, 1)
			continue
		}
		s := similarity(d, w)
		if s == 0 {
			continue
		}
		if d.sign == w.sign {
			aff = math.Max(aff, s)
		} else {
			deny = math.Max(deny, s)
		}
	}
	if aff == 1 {
		return 1
	}
	return aff - deny
}

// recall is the weighted share of p's words that ws says, in [-1, 1]:
// rare words weigh more than common ones.
func recall(p Phrase, ws []term) float64 {
	if p.total == 0 {
		return 0
	}
	var got float64
	for _, d := range p.terms {
		got += d.weight * support(d, ws)
	}
	return got / p.total
}

// Match is how much of p one sentence of t (or two neighbouring ones)
// says, and which.
type Match struct {
	Score    float64
	Sentence int // -1 when t has no sentence
	// First and Last are the sentences read together to say it: Sentence
	// alone, or a pair of neighbours.
	First, Last int
}

// Best finds the sentence of t that says most of p. A sentence is read
// with its neighbour, too: a point is often made across two sentences
// ("The client sends a key. The server stores it."); Sentence is then the
// one that says more of it alone, and First and Last name both.
func (t Text) Best(p Phrase) Match {
	best := Match{Sentence: -1, First: -1, Last: -1}
	for i, s := range t.Sentences {
		sc := recall(p, s.terms)
		if sc > best.Score || best.Sentence < 0 {
			best = Match{Score: sc, Sentence: i, First: i, Last: i}
		}
		if i+1 < len(t.Sentences) {
			pair := append(append([]term(nil), s.terms...), t.Sentences[i+1].terms...)
			// A pair counts for a little less than one sentence saying
			// the same: it is weaker evidence that the words belong
			// together.
			if sc2 := pairShare * recall(p, pair); sc2 > best.Score {
				j := i
				if recall(p, t.Sentences[i+1].terms) > sc {
					j = i + 1
				}
				best = Match{Score: sc2, Sentence: j, First: i, Last: i + 1}
			}
		}
	}
	return best
}

const pairShare = 0.9

// Topicality is the weighted share of the answer's content words that relate
// to the words of the question (and of any reference text, such as key
// points), in [-1, 1]: "I like pizza" shares nothing with a question about
// rate limiters, a wrong but earnest answer shares a good deal.
func (r *Reader) Topicality(answer Text, question string, reference ...string) float64 {
	return answer.About(r.Topic(question, reference...))
}

// Topic is what a question is about: its words and those of its reference
// texts, read once to compare many answers with.
type Topic struct{ terms []term }

// Topic reads a question and its reference texts.
func (r *Reader) Topic(question string, reference ...string) Topic {
	var about []term
	for _, s := range append([]string{question}, reference...) {
		about = append(about, r.terms(s)...)
	}
	return Topic{terms: about}
}

// About is Topicality against a topic read beforehand.
func (t Text) About(topic Topic) float64 {
	var got, total float64
	for _, sn := range t.Sentences {
		for _, w := range sn.terms {
			total += w.weight
			got += w.weight * math.Max(0, support(w, topic.terms))
		}
	}
	if total == 0 {
		return 0
	}
	return got / total
}

// Reasons an answer is not enough to score, as the feedback says them.
const (
	NoAnswer = "no answer was given."
	Nonsense = "the answer is not made of words we recognise."
	TooShort = "the answer is too short to judge; say at least one full sentence."
	OffTopic = "the answer does not address the question."
)

// Screen returns why t is not enough to score, or "" when it may be
// scored. It needs no question: it catches empty text, noise (most words
// keyboard mashing, unknown to the vectors and unlike English, or
// placeholders such as "blah" and "lorem ipsum") and answers of fewer than
// three content words ("I like pizza", "I don't know", what a dictation
// that failed leaves). Whether a longer answer is on topic is the caller's
// to judge, with what it knows of the question: one that is not is still
// an answer, and scored.
func Screen(t Text) string {
	switch {
	case t.Words == 0:
		return NoAnswer
	case 2*t.Mashed > t.Words:
		return Nonsense
	case t.Content < minContent:
		return TooShort
	}
	return ""
}

// minContent is the fewest content words (not stop words) of a scorable
// answer: "Use a token bucket" has three.
const minContent = 3

// placeholders are what is typed to fill a box, not to say anything; they
// count as mashing.
var placeholders = words.Set("blah", "lorem", "ipsum", "dolor", "foo", "baz", "asdf", "qwerty", "xyz", "aaa", "la",
	"na", "hmm", "meh")

// keyboardRuns are letters in keyboard order, which mashing produces.
var keyboardRuns = []string{"qwe", "wer", "ert", "rty", "tyu", "yui", "uio", "iop", "asd", "sdf", "dfg", "fgh",
	"ghj", "hjk", "jkl", "zxc", "xcv", "cvb", "vbn", "bnm", "lkj", "kjh", "jhg", "hgf", "gfd", "fds", "dsa", "mnb", "nbv", "bvc", "vcx", "cxz"}

// mashed reports whether an unknown word looks typed at random rather than
// a name or a term the vectors lack ("kubernetes", "idempotency"): no
// vowel, five consonants in a row, or three letters in keyboard order.
func mashed(w string) bool {
	if isNumber(w) || strings.ContainsAny(w, "0123456789+#") {
		return false
	}
	run, vowels := 0, 0
	for _, r := range w {
		if strings.ContainsRune("aeiouy", r) {
			vowels++
			run = 0
			continue
		}
		if run++; run >= 5 {
			return true
		}
	}
	if vowels == 0 {
		return true
	}
	for _, k := range keyboardRuns {
		if strings.Contains(w, k) {
			return true
		}
	}
	return false
}
