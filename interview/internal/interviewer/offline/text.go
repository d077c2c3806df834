package offline

import (
	"strings"

	"github.com/judgeworks/shared/words"
)

// reader reads answers, key point keywords, role keywords and the rubric's
// cues alike, through shared/words: every word folded (words.Fold: British
// spellings, plurals and other inflections), phrases found across hyphens
// and words written together ("post-mortem" and "postmortem"). '+' and '#'
// stay inside words so "c++" and "c#" survive; everything else parts words,
// so "node.js" and "node js" read alike.
var reader = words.Tokenizer{Digits: true, Joiners: "+#"}

// read reads s for finding phrases in it.
func read(s string) words.Passage { return reader.Passage(s) }

// phraseList is a list of phrases to look for: keywords or cues.
type phraseList []words.Passage

// phrases reads each of ss as a phrase, leaving out any without a word.
func phrases(ss ...string) phraseList {
	out := make(phraseList, 0, len(ss))
	for _, s := range ss {
		if p := read(s); p.Len() > 0 {
			out = append(out, p)
		}
	}
	return out
}

// in reports whether one of the phrases occurs in p.
func (l phraseList) in(p words.Passage) bool {
	for _, ph := range l {
		if p.Has(ph) {
			return true
		}
	}
	return false
}

// count counts how many distinct phrases of the list occur in p.
func (l phraseList) count(p words.Passage) int {
	n := 0
	for _, ph := range l {
		if p.Has(ph) {
			n++
		}
	}
	return n
}

// hasDigit reports whether a word of p holds a digit.
func hasDigit(p words.Passage) bool {
	for i := range p.Len() {
		if strings.ContainsAny(p.Word(i), "0123456789") {
			return true
		}
	}
	return false
}

// sentences counts sentences of at least three words, so "Yes." or a list
// of bare keywords does not pass for structure.
func sentences(s string) int {
	n := 0
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '\n' || r == ';' }) {
		if len(strings.Fields(part)) >= 3 {
			n++
		}
	}
	return n
}
