package words

import "strings"

// Passage is a text read for finding phrases in it: every word folded
// (Fold), stop words included, since a phrase such as "for example" is
// made of them. A word also stands for a run of two or three words
// written together, so a phrase written as one word finds it written in
// parts and the other way round: "postmortem" and "post-mortem", "read
// through" and "read-through", "trade-offs" and "tradeoff".
type Passage struct {
	words []string
	// joined[i] are words i and i+1, then i to i+2, written together and
	// folded ("" past the end).
	joined [][2]string
}

// Passage reads text by tk's rules.
func (tk *Tokenizer) Passage(text string) Passage {
	ws := tk.Words(text)
	p := Passage{words: make([]string, len(ws)), joined: make([][2]string, len(ws))}
	for i, w := range ws {
		p.words[i] = Fold(w.Text)
		if i+1 < len(ws) {
			two := w.Text + ws[i+1].Text
			p.joined[i][0] = Fold(two)
			if i+2 < len(ws) {
				p.joined[i][1] = Fold(two + ws[i+2].Text)
			}
		}
	}
	return p
}

// Len is the number of words.
func (p Passage) Len() int { return len(p.words) }

// Word is word i, folded.
func (p Passage) Word(i int) string { return p.words[i] }

// Has reports whether phrase occurs in p as consecutive words. Two words
// match when they fold alike, or when the phrase's word folds to five
// letters or more and p's begins with it: a phrase may write "invalidat"
// once for every derived form, while "log" must not match "login". A run
// of words written together matches only what folds exactly alike.
func (p Passage) Has(phrase Passage) bool {
	if len(phrase.words) == 0 {
		return false
	}
	for i := range p.words {
		if p.matchAt(i, phrase, 0) {
			return true
		}
	}
	return false
}

// matchAt reports whether phrase's words from j on occur in p from word i.
// Each step takes one word of each side, or one of one side against a run
// of the other's written together; a phrase is a few words, so the search
// stays small.
func (p Passage) matchAt(i int, phrase Passage, j int) bool {
	if j == len(phrase.words) {
		return true
	}
	if i == len(p.words) {
		return false
	}
	kw := phrase.words[j]
	if (p.words[i] == kw || len(kw) >= 5 && strings.HasPrefix(p.words[i], kw)) && p.matchAt(i+1, phrase, j+1) {
		return true
	}
	for k := range 2 {
		if r := p.joined[i][k]; r != "" && r == kw && p.matchAt(i+2+k, phrase, j+1) {
			return true
		}
		if r := phrase.joined[j][k]; r != "" && r == p.words[i] && p.matchAt(i+1, phrase, j+2+k) {
			return true
		}
	}
	return false
}
