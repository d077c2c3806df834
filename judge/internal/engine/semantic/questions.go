package semantic

import (
	"math"

	"github.com/judgeworks/judge/internal/keep"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/words"
)

// candidate is one answer a question offers, read before any state: the
// yes or the no of a noul question, an option, a level. Its terms carry
// their weights among the question's candidates, so a request only
// compares them with its state.
type candidate struct {
	terms []term
	// at[j] is the index of terms[j]'s word in asked.words.
	at []int
	// weights[j] is terms[j]'s weight by frequency times how few of the
	// question's candidates use its word (see evidence.mean); total is
	// their sum, added up in order.
	weights []float64
	total   float64
}

// asked is what the engine makes of a question's own text: it depends on
// the question alone, never on a state, so it is worked out once and kept
// (Engine.questions). Nothing in it is changed once built.
type asked struct {
	cands []candidate
	// words are the readings of the candidates' words, each once.
	words []*wordInfo
	// Score questions only: each level's polarity and severity, and
	// whether the levels run along the sentiment axis (polar, over lo…hi)
	// or the severity axis (graded, over slo…shi around smean).
	pols, sevs      []float64
	lo, hi          float64
	slo, shi, smean float64
	polar, graded   bool
	// terms counts the terms of all candidates.
	terms int
}

// readQuestion works q out: its candidates as terms and weights, and for a
// score question where its levels lie on the two axes.
func (e *Engine) readQuestion(q systemone.Question) *asked {
	var a asked
	switch q.Type {
	case systemone.TypeNoul:
		// Yes is the instructions plus the caller's meaning of true; no is
		// the instructions negated plus the caller's meaning of false.
		instr := e.terms(words.FromJSON(q.Instructions, false), metaWords)
		yes := append([]term(nil), instr...)
		no := make([]term, len(instr))
		for i, t := range instr {
			t.sign, t.polarity = -t.sign, -t.polarity
			no[i] = t
		}
		if q.Noul != nil {
			yes = append(yes, e.terms(systemone.ContentText(q.Noul.True), nil)...)
			no = append(no, e.terms(systemone.ContentText(q.Noul.False), nil)...)
		}
		a.cands = weigh([][]term{yes, no})
	case systemone.TypeChoice:
		// Each option is weighed alone, so the odds between two options
		// do not depend on which others are offered.
		a.cands = make([]candidate, len(q.Options))
		for i, o := range q.Options {
			text := o.Name
			if o.Described() {
				text = words.FromJSON(o.Description, false)
			}
			a.cands[i] = weigh([][]term{e.terms(text, nil)})[0]
		}
	case systemone.TypeScore:
		cands := make([][]term, len(q.Levels))
		a.pols = make([]float64, len(q.Levels))
		a.lo, a.hi = math.Inf(1), math.Inf(-1)
		for i, l := range q.Levels {
			// A level given as null has no words: only its position counts.
			cands[i] = e.terms(systemone.ContentText(l), nil)
			a.pols[i] = meanPolarity(cands[i])
			a.lo, a.hi = math.Min(a.lo, a.pols[i]), math.Max(a.hi, a.pols[i])
		}
		a.cands = weigh(cands)
		a.polar = a.hi-a.lo >= polarMin && math.Abs(ordered(a.pols)) >= orderedMin
		a.sevs = make([]float64, len(cands))
		a.slo, a.shi = math.Inf(1), math.Inf(-1)
		for i, c := range cands {
			a.sevs[i] = e.severity(c)
			a.slo, a.shi = math.Min(a.slo, a.sevs[i]), math.Max(a.shi, a.sevs[i])
			a.smean += a.sevs[i] / float64(len(cands))
		}
		a.graded = a.shi-a.slo >= severitySpread && math.Abs(ordered(a.sevs)) >= orderedMin
	}
	a.index()
	return &a
}

// index lists the candidates' words in a.words, each once, and points
// each term at its word.
func (a *asked) index() {
	at := map[*wordInfo]int{}
	for i := range a.cands {
		c := &a.cands[i]
		c.at = make([]int, len(c.terms))
		for j, t := range c.terms {
			k, ok := at[t.wordInfo]
			if !ok {
				k = len(a.words)
				at[t.wordInfo] = k
				a.words = append(a.words, t.wordInfo)
			}
			c.at[j] = k
		}
		a.terms += len(c.terms)
	}
}

// weigh gives each term of each candidate its weight: by frequency in
// English, and by how few of the candidates use its word, so words every
// candidate shares weigh little (the candidates of one question are the
// whole corpus, which keeps questions independent of each other).
func weigh(cands [][]term) []candidate {
	df := docFreq(cands)
	n := float64(len(cands))
	out := make([]candidate, len(cands))
	for i, c := range cands {
		ws := make([]float64, len(c))
		var total float64
		for j, t := range c {
			d := df(t.word)
			ws[j] = t.weight * math.Log(1+(n-d+0.5)/(d+0.5))
			total += ws[j]
		}
		out[i] = candidate{terms: c, weights: ws, total: total}
	}
	return out
}

// Bounds of the questions an engine keeps read (keep.Map, forgotten
// together when one would be passed). Each is sized at its key's bytes
// plus termBytes for each of its terms (656 bytes with 100-dimensional
// vectors: a term, its weight and, for a word beyond the word cache, its
// reading and vector), so the kept questions hold at most about 8 MiB
// whatever callers send. A question with a key of more than 4 KiB is read
// on every request.
var keptQuestions = keep.Bounds{Entries: 1024, KeyBytes: 4096, Bytes: 8 << 20}

// asked is what q comes to, kept or read now; q's key is built in sc.
func (e *Engine) asked(q systemone.Question, sc *scratch) *asked {
	sc.key = q.AppendKey(sc.key[:0])
	return e.questions.Get(sc.key, func() (*asked, int) {
		a := e.readQuestion(q)
		return a, len(sc.key) + a.terms*e.termBytes
	})
}
