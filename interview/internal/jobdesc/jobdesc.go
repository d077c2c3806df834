// Package jobdesc reads a job description a candidate pasted: its main
// requirements, how near a text is to it, and whether an answer covers a
// requirement. It works on words and the word vectors of shared/wordvec,
// with no language model, so the offline practice mode can use it and the
// report's coverage is computed the same way in every mode.
package jobdesc

import (
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/judgeworks/shared/words"
	"github.com/judgeworks/shared/wordvec"
)

// MaxChars bounds a job description, in characters.
const MaxChars = 10000

// MaxRequirements bounds the requirements read from one description.
const MaxRequirements = 8

// CoverThreshold is the Coverage of a requirement by an answer (the Match
// of its best sentence) from which the answer counts as covering it.
// Measured on the examples of TestCoverageExamples: the answers written for
// a requirement score 0.33 to 0.80, unrelated ones at most 0.26; on the
// product manager's interview of TestCoverageNeedsAnAnswerThatSaysIt the
// requirements no answer speaks to reach 0.27 at most. The margin is thin:
// a heuristic, not understanding.
const CoverThreshold = 0.3

// word is one content word of a text, ready for matching.
type word struct {
	form   string
	stem   string
	unit   []float32 // nil for a word the vectors do not know
	weight float64
}

// Text is a text's content words, prepared once for matching.
type Text struct {
	words []word
}

// Empty reports whether t has no content word.
func (t Text) Empty() bool { return len(t.words) == 0 }

// Prepare returns the content words of s, each distinct word once.
func Prepare(s string) Text {
	return prepare(contentWords(s), false)
}

// Terms returns the n heaviest distinct content words of s, a word used
// more often weighing more (by one plus the log of its count): what a text
// is mostly about.
func Terms(s string, n int) Text {
	t := prepare(contentWords(s), true)
	slices.SortStableFunc(t.words, func(a, b word) int {
		switch {
		case a.weight > b.weight:
			return -1
		case a.weight < b.weight:
			return 1
		}
		return 0
	})
	if len(t.words) > n {
		t.words = t.words[:n]
	}
	return t
}

func prepare(forms []string, byCount bool) Text {
	table := wordvec.Default()
	count := map[string]int{}
	var t Text
	for _, f := range forms {
		count[f]++
		if count[f] > 1 {
			continue
		}
		u, _ := table.Unit(f)
		t.words = append(t.words, word{form: f, stem: words.Fold(f), unit: u, weight: specificity(table, f)})
	}
	if byCount {
		for i := range t.words {
			t.words[i].weight *= 1 + math.Log(float64(count[t.words[i].form]))
		}
	}
	return t
}

// vocabulary is the size of the vectors' vocabulary the rank is read against.
const vocabulary = 50_000

// specificity weighs a word by how rare it is: log(rank+2)/log(50,000),
// at least 0.2; a word the vectors do not know (a product name such as
// "kubernetes", which the vectors' 2014 news text lacks) weighs 1. Common
// words say little about what a requirement asks for; rare ones say most.
// (wordvec.Weight separates only the few hundred commonest words, and
// stop words are dropped before this.)
func specificity(t *wordvec.Table, w string) float64 {
	r, ok := t.Rank(w)
	if !ok {
		return 1
	}
	return min(1, max(0.2, math.Log(float64(r+2))/math.Log(vocabulary)))
}

// Match is how much of a the text b says: the weighted mean over a's words
// of each word's best similarity with any of b's. Two words are alike 1
// when they are the same word or share a stem; otherwise by their vectors,
// the cosine's rise above 0.3 scaled to [0, 1], as the judge's semantic
// engine does (below 0.3 words are unrelated). It is 0 when a is empty.
func Match(a, b Text) float64 {
	var sum, total float64
	for _, w := range a.words {
		best := 0.0
		for _, v := range b.words {
			best = max(best, alike(w, v))
			if best == 1 {
				break
			}
		}
		sum += w.weight * best
		total += w.weight
	}
	if total == 0 {
		return 0
	}
	return sum / total
}

func alike(a, b word) float64 {
	if a.stem == b.stem {
		return 1
	}
	if len(a.stem) >= 5 && len(b.stem) >= 5 && (strings.HasPrefix(a.stem, b.stem) || strings.HasPrefix(b.stem, a.stem)) {
		return 1 // "postgres" and "postgresql"
	}
	if a.unit == nil || b.unit == nil {
		return 0
	}
	var dot float32
	for i := range a.unit {
		dot += a.unit[i] * b.unit[i]
	}
	return max(0, (float64(dot)-0.3)/0.7)
}

// Answer is an answer read for coverage: each sentence's content words.
type Answer struct{ sentences []Text }

// PrepareAnswer reads an answer's sentences (shared/words.Sentences).
func PrepareAnswer(s string) Answer {
	var a Answer
	for _, sp := range words.Sentences(s) {
		a.sentences = append(a.sentences, Prepare(s[sp.Start:sp.End]))
	}
	return a
}

// minSaying is the fewest content words of a sentence (or two neighbours)
// that says something about a requirement rather than naming it.
const minSaying = 4

// Coverage is how much of requirement the answer says in one place: the
// best Match by one of its sentences that says something (at least
// minSaying content words). Words of the requirement scattered over an
// answer, "wrote" in one sentence and "story" in another, say nothing
// about it together.
func Coverage(requirement Text, answer Answer) float64 {
	best := 0.0
	for _, s := range answer.sentences {
		if len(s.words) >= minSaying {
			best = max(best, Match(requirement, s))
		}
	}
	return best
}

// Covers reports whether answer covers requirement: Coverage at least
// CoverThreshold.
func Covers(requirement Text, answer Answer) bool {
	return !requirement.Empty() && Coverage(requirement, answer) >= CoverThreshold
}

// contentWords are the words of s that can carry a requirement: the
// vectors' word forms without stop words and the words every job
// advertisement uses.
func contentWords(s string) []string {
	var out []string
	for _, w := range wordvec.Words(s) {
		if len(w) > 1 && !ignored()[w] {
			out = append(out, w)
		}
	}
	return out
}

// ignored are the stop words (shared/words' and more: a requirement is
// never about "which", "more" or "via") and the words every job
// advertisement uses.
var ignored = sync.OnceValue(func() map[string]bool {
	return words.StopWords(append(strings.Fields(moreStopWords), strings.Fields(adWords)...)...)
})

const moreStopWords = `nor very well such ours us yours which what when where why how so but not no yes every both either neither
more most much many few own same d ll ve re m im ive id youre dont doesnt isnt arent etc ie eg
get gets got one ones thing things way while within across around through per via up out off under having`

// adWords are the words of job advertisements that name no skill.
const adWords = `experience experienced years year strong solid proven ability able skills skill
knowledge understanding familiarity familiar proficiency proficient good great excellent deep
working work works team teams role roles company join looking help helping new plus bonus nice
preferred required requirement requirements qualifications qualification responsibilities
responsibility candidate candidates ideal ideally including include includes like love passion
passionate care cares degree equivalent minimum least environment fast paced opportunity
opportunities position apply hands building build builds day days week weeks hire hiring want
wants will youll youre ll able ensure using use uses used make makes making related relevant`
