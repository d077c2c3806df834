// Package semantic is the default offline engine: it answers System One
// questions by comparing the meaning of words, using the word vectors
// compiled into the binary (shared/wordvec), with no network and no model
// call. "I want my money back" supports an option described as "refunds"
// although the two share no word. It is not a language model: it reads
// words and their neighbourhoods, not sentences; see docs/semantic.md for
// the method, its measured quality and its limits.
package semantic

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/judgeworks/judge/internal/keep"
	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/coherent"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/words"
	"github.com/judgeworks/shared/wordvec"
)

// Name is the exact model name of this engine's current method; Alias floats
// to it. Bump Name whenever a change alters any answer.
const (
	Name        = "local/semantic-1.0"
	Alias       = "local/semantic-latest"
	ReleaseDate = "2026-11-23"
)

// Description is what /v1/models says of this engine.
const Description = "Offline engine for use without a language-model key: compares the meaning of words " +
	"with GloVe word vectors embedded in the judge and a small lexicon of support and hiring vocabulary, " +
	"with negation, opposites and intensity words handled; word vectors, not a language model, and it does " +
	"not understand sentences."

// The constants below were chosen on judge/testdata/eval/dev.jsonl only
// (the temperatures by a log-loss fit there); the held-out split measures
// them. See docs/semantic.md.
const (
	// floor is the cosine below which two words count as unrelated: even
	// after the common part is removed, loosely related words reach 0.2 to
	// 0.3, so a match is scored by how far it rises above this.
	floor = 0.3
	// linkSimilarity is the similarity of two words of one related group
	// (lexicon.go), on the scale where the same word is 1 and a cosine of
	// 0.79 is 0.7.
	linkSimilarity = 0.7
	// stateShare is, for noul and score questions, the part of a
	// candidate's relevance that comes from the state's side (how much of
	// the state the candidate explains); the rest is the mean support of
	// the candidate's words.
	stateShare = 0.3
	// bestShare is, for choice questions, the part of an option's
	// relevance that comes from its best-supported word; the rest is the
	// mean support of its words. A mean alone favours options described in
	// few words, which the state covers more easily.
	bestShare = 0.8
	// negatedMention is, for choice questions, how much a negated state
	// word still speaks for an option about the same thing: "I can't log
	// in" is about signing in, "the parcel never arrived" about deliveries.
	// (An opposite still counts against: "don't renew" is for cancelling.)
	negatedMention = 0.5
	// questionWeight is the weight of the word "question" that a question
	// mark in the state adds: the writer asks something.
	questionWeight = 0.5
	// Temperatures divide the relevance (in [-1, 1]) before the softmax.
	choiceTemperature = 0.16
	scoreTemperature  = 0.154
	noulTemperature   = 0.17
	// noulBias is subtracted from the yes-minus-no relevance: some
	// similarity between a question and any text is normal, and only more
	// than that is evidence for yes.
	noulBias = 0.2
	// polarWeight weighs, for score questions whose levels run from bad to
	// good (or calm to furious), how far the text's polarity lies from each
	// level's, in units of the levels' polarity range.
	polarWeight = 6.5
	// polarMin is the polarity (cosine with the sentiment axis, centred)
	// from which a word counts as evaluative.
	polarMin = 0.1
	// polarCentre is the sentiment-axis cosine of a typical neutral word.
	polarCentre = 0.05
	// severityWeight weighs, for score questions whose levels run from
	// trivial to grave ("cosmetic" … "critical"), the text's mean position
	// on the severity axis against each level's; severityCentre is the
	// position of a typical report, and severitySpread the least spread of
	// the levels on that axis for it to apply.
	severityWeight = 26.0
	severityCentre = -0.05
	severitySpread = 0.3
	// orderedMin is the least correlation of the levels' positions on an
	// axis with their order for the axis to be used: the levels must run
	// along it, not merely differ on it.
	orderedMin = 0.8
)

// Mixing with the uniform distribution (calibrate.Mix) keeps yes/no and
// score answers within the confidence the engine's dev answers support
// (calibrate.Ceiling: noul 0.950, score 0.875): an engine that reads words
// is never sure of a sentence. Each is the least mixing that brings every
// dev answer of its type within that ceiling (calibrate.Mixing;
// TestMixingFitsDev works them out again). Choices are not mixed: mixing
// with k options would make the odds between two options depend on how
// many others are offered, which the engine promises they never do
// (docs/api.md, "Coherence"), and its most confident choices are borne
// out (docs/semantic.md, "Calibration").
var mixing = map[systemone.QuestionType]float64{
	systemone.TypeNoul:  0.0999,
	systemone.TypeScore: 0.1402,
}

// sentimentPairs span the axis from bad to good on which the engine reads
// a word's polarity: the mean of their differences.
var sentimentPairs = [][2]string{
	{"good", "bad"}, {"happy", "sad"}, {"excellent", "terrible"}, {"love", "hate"},
	{"pleased", "disappointed"}, {"great", "awful"}, {"best", "worst"}, {"wonderful", "horrible"},
	{"calm", "angry"}, {"nice", "nasty"}, {"satisfied", "unhappy"}, {"positive", "negative"},
}

// severityPairs span the axis from trivial to grave on which the engine
// places a report and the levels of a severity scale, where the levels
// themselves carry no sentiment.
var severityPairs = [][2]string{
	{"catastrophic", "trivial"}, {"severe", "mild"}, {"critical", "minor"}, {"serious", "slight"},
	{"disaster", "nuisance"}, {"major", "minor"}, {"urgent", "cosmetic"}, {"massive", "tiny"},
}

// severity is the weighted mean position of the terms on the severity
// axis.
func (e *Engine) severity(ts []term) float64 {
	var s, w float64
	for _, t := range ts {
		if t.unit != nil {
			s += t.weight * dot(t.unit, e.sev)
			w += t.weight
		}
	}
	if w == 0 {
		return 0
	}
	return s / w
}

// Engine answers requests from word vectors. Build it with New; it is safe
// for concurrent use.
type Engine struct {
	vec *wordvec.Table
	// cache holds the wordInfo of the words read so far, by the word as
	// written; cached counts them.
	cache  sync.Map
	cached atomic.Int64
	// questions holds what the engine made of the questions asked so far;
	// termBytes is what one of their terms may hold on to (see
	// keptQuestions).
	questions *keep.Map[*asked]
	termBytes int
	// axis runs from bad to good, sev from trivial to grave.
	axis, sev []float32
	// mixing is the mixing of each type's answers (the package's
	// mixing; none in the test that works it out).
	mixing map[systemone.QuestionType]float64
}

// New returns an engine reading vec.
func New(vec *wordvec.Table) (*Engine, error) {
	axis, err := meanDifference(vec, sentimentPairs)
	if err != nil {
		return nil, err
	}
	sev, err := meanDifference(vec, severityPairs)
	if err != nil {
		return nil, err
	}
	e := &Engine{vec: vec, axis: axis, sev: sev, mixing: mixing}
	e.questions = keep.New[*asked](keptQuestions)
	// A term and its weight, and a reading of its word with the word's
	// vector when the word cache is full, with room to spare.
	e.termBytes = 256 + 4*vec.Dims()
	return e, nil
}

// meanDifference is the unit vector along the sum of the differences of
// the unit vectors of each pair.
func meanDifference(vec *wordvec.Table, pairs [][2]string) ([]float32, error) {
	axis := make([]float32, vec.Dims())
	for _, p := range pairs {
		a, ok1 := vec.Unit(p[0])
		b, ok2 := vec.Unit(p[1])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("semantic: no vector for %q or %q", p[0], p[1])
		}
		for i := range axis {
			axis[i] += a[i] - b[i]
		}
	}
	n := float32(0)
	for _, x := range axis {
		n += x * x
	}
	n = float32(math.Sqrt(float64(n)))
	for i := range axis {
		axis[i] /= n
	}
	return axis, nil
}

// term is a content word ready to compare: what the word comes to
// (wordInfo: its unit vector, nil when the word has none, its lemma,
// opposites and groups) and how the text uses it: its weight, its sign
// (-1 when negated) and its polarity.
type term struct {
	*wordInfo
	weight float64
	sign   float64
	// polarity is the signed strength of the word's sentiment as used
	// (negation and intensity applied), 0 for a word that is not
	// evaluative.
	polarity float64
}

// opposes reports whether s is one of t's opposites.
func (t term) opposes(s term) bool {
	for _, o := range t.opps {
		if o == s.lemma {
			return true
		}
	}
	return false
}

// terms reads text into terms. A prefixed opposite of a polar word
// ("unhappy") becomes the negated base word ("not happy"), so it lines up
// with other ways of saying the same thing.
func (e *Engine) terms(text string, drop map[string]bool) []term {
	toks := tokens(nil, text, drop)
	return e.appendTerms(make([]term, 0, len(toks)), toks)
}

// appendTerms appends the terms of toks to out.
func (e *Engine) appendTerms(out []term, toks []token) []term {
	for _, tk := range toks {
		w := e.word(tk.word)
		t := term{wordInfo: w, sign: 1}
		if tk.negated {
			t.sign = -1
		}
		if w.flip {
			t.sign = -t.sign
		}
		t.weight = w.freqWeight * tk.intensity
		if p := w.rawPolarity; math.Abs(p) >= polarMin {
			t.polarity = p * t.sign * tk.intensity
		}
		out = append(out, t)
		if t.sign < 0 && w.failsNegated {
			// "won't load", "doesn't work": something is broken.
			out = append(out, e.implied("broken", t.weight))
		}
		if tk.requested && mailing[tk.word] {
			// "can you not send me these emails": off the list.
			out = append(out, e.implied("unsubscribe", t.weight))
		}
	}
	return out
}

// wordInfo is what a word as written comes to whatever its context: the
// word it is read as, and that word's vector, groups, weight by frequency,
// lemma, opposites and polarity before negation and intensity.
type wordInfo struct {
	word string
	unit []float32
	// flip is set when the word is read as its negated base ("unhappy").
	flip   bool
	groups uint64
	// lemma is the word's folded form and opps the folded forms of its
	// opposites (see opposites).
	lemma        string
	opps         []string
	freqWeight   float64
	rawPolarity  float64
	failsNegated bool
}

// maxCachedWords bounds the words whose wordInfo an engine keeps, so
// texts full of made-up words cannot grow it without end; a word beyond
// it is worked out on every use.
const maxCachedWords = 8192

// word is the wordInfo of w, kept once worked out: a text's words are
// mostly the common ones, and working one out takes a dozen lookups and a
// vector.
func (e *Engine) word(w string) *wordInfo {
	if wi, ok := e.cache.Load(w); ok {
		return wi.(*wordInfo)
	}
	wi := e.readWord(w)
	if e.cached.Load() < maxCachedWords {
		if _, loaded := e.cache.LoadOrStore(w, wi); !loaded {
			e.cached.Add(1)
		}
	}
	return wi
}

func (e *Engine) readWord(word string) *wordInfo {
	wi := &wordInfo{word: word}
	w, ok := e.vec.Base(word)
	if !exactOnly[w] {
		wi.groups = groupsOf(word)
	}
	if ok && !exactOnly[w] {
		// A word the related groups know as written ("unusable")
		// keeps its own sense; only others are read as a negated base:
		// the listed contradictories ("unresolved") and prefixed
		// opposites of polar words ("unhappy").
		if base, yes := e.contradictory(word); yes && wi.groups == 0 {
			w = base
			wi.flip = true
		} else if base, yes := e.prefixedOpposite(w); yes && wi.groups == 0 {
			w = base
			wi.flip = true
		}
		wi.word = w
		wi.unit, _ = e.vec.Unit(w)
		if wi.groups == 0 && w != word {
			wi.groups = groupsOf(w)
		}
	}
	wi.freqWeight = e.vec.Weight(wi.word)
	wi.lemma = lemma(wi.word)
	wi.opps = opposites[wi.lemma]
	wi.rawPolarity = e.rawPolarity(wi.unit)
	wi.failsNegated = failsWhenNegated[wi.lemma]
	return wi
}

// implied is a term for a word the text means without saying it.
func (e *Engine) implied(word string, weight float64) term {
	return term{wordInfo: e.word(word), sign: 1, weight: weight}
}

// maxStateTerms bounds the work per question: every state term is compared
// with every candidate term, and a state may be 32k tokens long. Beyond it
// only the heaviest distinct terms are kept (rare words, and words said
// often), which changes nothing for texts of a few hundred words.
const maxStateTerms = 400

// distinct merges repeated terms (same word, sign and polarity) into one
// whose weight is the sum, which leaves every comparison unchanged and
// makes a long text cheaper, then keeps the maxStateTerms heaviest. The
// order of the result is fixed by the text, so sums over it are
// reproducible. The terms are merged in ts's own memory: each is read
// before anything is written where it was.
func distinct(ts []term) []term {
	type key struct {
		word     string
		sign     float64
		polarity float64
	}
	// A short text is searched directly; a map pays off on long ones.
	var at map[key]int
	if len(ts) > 64 {
		at = make(map[key]int, len(ts))
	}
	out := ts[:0]
	for _, t := range ts {
		k := key{t.word, t.sign, t.polarity}
		i, ok := -1, false
		if at != nil {
			i, ok = at[k]
		} else {
			for j := range out {
				if out[j].word == t.word && out[j].sign == t.sign && out[j].polarity == t.polarity {
					i, ok = j, true
					break
				}
			}
		}
		if ok {
			out[i].weight += t.weight
			continue
		}
		if at != nil {
			at[k] = len(out)
		}
		out = append(out, t)
	}
	if len(out) <= maxStateTerms {
		return out
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return out[idx[a]].weight > out[idx[b]].weight })
	idx = idx[:maxStateTerms]
	sort.Ints(idx)
	kept := make([]term, len(idx))
	for i, j := range idx {
		kept[i] = out[j]
	}
	return kept
}

// contradictory is the base form of the word that w negates when w is a
// listed contradictory (words.Contradictory) whose base has a vector.
func (e *Engine) contradictory(w string) (string, bool) {
	base, ok := words.Contradictory(w)
	if !ok {
		return "", false
	}
	return e.vec.Base(base)
}

// prefixedOpposite reports whether w is un-, dis-, in-… plus a word of
// clear positive polarity that w is less positive than, and returns that
// word.
func (e *Engine) prefixedOpposite(w string) (string, bool) {
	for _, p := range negPrefixes {
		base, ok := strings.CutPrefix(w, p)
		if !ok || len(base) < 4 || !e.vec.Has(base) {
			continue
		}
		bu, _ := e.vec.Unit(base)
		wu, _ := e.vec.Unit(w)
		if pb := e.rawPolarity(bu); pb >= polarMin && e.rawPolarity(wu) < pb {
			return base, true
		}
	}
	return "", false
}

// rawPolarity is the centred cosine of a unit vector with the sentiment
// axis: above 0 for approving words, below for disapproving ones.
func (e *Engine) rawPolarity(unit []float32) float64 {
	if unit == nil {
		return 0
	}
	return dot(unit, e.axis) - polarCentre
}

// dot is the dot product of two vectors of equal length, four lanes at a
// time (the compiler keeps them in registers). Each step takes four
// elements of both as arrays, which checks their bounds once instead of
// at each element.
func dot(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := [4]float32(a[i:i+4]), [4]float32(b[i:i+4])
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64((s0 + s1) + (s2 + s3))
}

// Ask answers every question of req from req.State. Each question is
// answered from the state and its own text only, so asking it alone or
// beside questions it does not name gives the same answer, and neither
// option order nor question names matter. The laws of probability that
// structure and English wording decide (shared/coherent) hold by
// construction.
func (e *Engine) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	return coherent.Ask(ctx, req, e.ask)
}

func (e *Engine) ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	sc := scratchPool.Get().(*scratch)
	defer sc.release()
	text := words.FromJSON(req.State, false)
	sc.toks = tokens(sc.toks, text, nil)
	// A term per token, and room for one the text implies.
	sc.terms = e.appendTerms(slices.Grow(sc.terms[:0], len(sc.toks)+1), sc.toks)
	if strings.Contains(text, "?") {
		// The writer asks something: "how do I…?" is a question whatever
		// it is about.
		sc.terms = append(sc.terms, e.implied("question", questionWeight))
	}
	state := distinct(sc.terms)
	answers := make(map[string]systemone.Answer, len(req.Questions))
	for name, q := range req.Questions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a, err := e.answer(state, q, sc)
		if err != nil {
			return nil, err
		}
		answers[name] = a
	}
	return &systemone.Response{Model: Name, Answers: answers}, nil
}

func (e *Engine) answer(state []term, q systemone.Question, sc *scratch) (systemone.Answer, error) {
	var w []float64
	switch q.Type {
	case systemone.TypeNoul:
		w = e.noulWeights(state, e.asked(q, sc), sc)
		w[0] = calibrate.MixYes(w[0], e.mixing[q.Type])
		return systemone.BuildAnswer(q, w)
	case systemone.TypeChoice:
		// The options come in their canonical order (limits.Check puts
		// them so), so every sum runs in the same order whatever order
		// the caller listed them in and whatever it named them, and the
		// answer is identical to the last bit.
		w = e.choiceWeights(state, e.asked(q, sc), sc)
	case systemone.TypeScore:
		w = e.scoreWeights(state, e.asked(q, sc), sc)
	default:
		// Validate refuses unknown types before a request reaches a backend.
		return systemone.Answer{}, fmt.Errorf("unknown question type %q", q.Type)
	}
	calibrate.Mix(w, e.mixing[q.Type])
	return systemone.BuildAnswer(q, w)
}

// noulWeights weighs "yes" against "no" (readQuestion says what each is).
func (e *Engine) noulWeights(state []term, a *asked, sc *scratch) []float64 {
	ev := relevances(state, a, false, sc)
	rel := [2]float64{ev[0].mixed(), ev[1].mixed()}
	p := 1 / (1 + math.Exp(-(rel[0]-rel[1]-noulBias)/noulTemperature))
	return []float64{p}
}

// choiceWeights compares what each option says (its description, else its
// name: systemone.Option.Text) with the state. Each option is weighed
// alone, so the odds between two options do not depend on which others
// are offered: the probabilities are a softmax of per-option scores.
func (e *Engine) choiceWeights(state []term, a *asked, sc *scratch) []float64 {
	ev := relevances(state, a, true, sc)
	rel := make([]float64, len(ev))
	for i, x := range ev {
		rel[i] = (bestShare*x.best + (1-bestShare)*x.mean) / choiceTemperature
	}
	return softmax(rel)
}

// scoreWeights compares each level's text with the state and, when the
// levels run along the sentiment axis, how near the state's polarity lies
// to each level's; the score is then the expected level.
func (e *Engine) scoreWeights(state []term, a *asked, sc *scratch) []float64 {
	ev := relevances(state, a, false, sc)
	logits := make([]float64, len(ev))
	for i, x := range ev {
		logits[i] = x.mixed() / scoreTemperature
	}
	// Levels that run along the sentiment axis (from "very dissatisfied" to
	// "very satisfied") are told apart by the text's polarity, where
	// vectors alone see the same topic in each.
	sp := meanPolarity(state)
	if a.polar {
		for i := range logits {
			d := (sp - a.pols[i]) / (a.hi - a.lo)
			logits[i] -= polarWeight * d * d
		}
	}
	// Levels that run from trivial to grave ("cosmetic" … "critical") and
	// carry no sentiment are told apart by the text's severity: the further
	// the text lies toward grave, the more the graver levels gain.
	if a.graded {
		ss := e.severity(state) - severityCentre
		for i := range logits {
			logits[i] += severityWeight * ss * (a.sevs[i] - a.smean) / (a.shi - a.slo)
		}
	}
	return softmax(logits)
}

// ordered is the correlation of the levels' positions on an axis with
// their order: near 1 or -1 when the levels run along the axis.
func ordered(xs []float64) float64 {
	n := float64(len(xs))
	var mx, my float64
	for i, x := range xs {
		mx += float64(i) / n
		my += x / n
	}
	var sxy, sxx, syy float64
	for i, x := range xs {
		dx, dy := float64(i)-mx, x-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// meanPolarity is the weight-averaged polarity of the evaluative terms, 0
// when there are none.
func meanPolarity(ts []term) float64 {
	var s, w float64
	for _, t := range ts {
		if t.polarity != 0 {
			s += t.weight * t.polarity
			w += t.weight
		}
	}
	if w == 0 {
		return 0
	}
	return s / w
}

// evidence is how well the state supports one candidate, each in [-1, 1].
type evidence struct {
	// mean is the weighted mean over the candidate's words of how strongly
	// the state affirms each minus how strongly it denies it; words are
	// weighted by their inverse frequency in English (wordvec.Weight) and by
	// how few of the question's candidates use them, so words every option
	// shares weigh little (the candidates of one question are the whole
	// corpus, which keeps questions independent of each other).
	mean float64
	// best is the same for the candidate's best-supported word.
	best float64
	// side is the state's side: the weighted mean over the state's words
	// of how strongly the candidate affirms minus denies each. Words
	// unrelated to every candidate add nothing, and a candidate cannot win
	// on generic words alone.
	side float64
}

// mixed is the relevance of noul and score candidates.
func (e evidence) mixed() float64 { return (1-stateShare)*e.mean + stateShare*e.side }

// relevances weighs the evidence for each candidate. Topical (choice
// questions) asks what the state is about, so a negated word still speaks
// for a candidate about the same thing, at negatedMention. The result is
// sc's memory, valid until the next call.
func relevances(state []term, a *asked, topical bool, sc *scratch) []evidence {
	var stateTotal float64
	for _, s := range state {
		stateTotal += s.weight
	}
	// The state is read word by word against every candidate at once.
	// aff and deny hold, for the terms of every candidate in turn, the
	// strongest affirmation and denial of each by any state word; side
	// each candidate's sum over the state; sim the similarity of the
	// state word at hand with each of the question's words, each worked
	// out once however many candidates use it (a noul question's yes and
	// no share its instructions).
	nt, nc := a.terms, len(a.cands)
	buf := sc.floats(2*nt + nc + len(a.words))
	clear(buf)
	aff, deny, side, sim := buf[:nt], buf[nt:2*nt], buf[2*nt:2*nt+nc], buf[2*nt+nc:]
	for _, s := range state {
		for k, w := range a.words {
			sim[k] = similarity(s.wordInfo, w)
		}
		off := 0
		for i, c := range a.cands {
			var sAff, sDeny float64
			for j, t := range c.terms {
				v := match(s, t, sim[c.at[j]])
				if topical && v < 0 && !t.opposes(s) {
					v = -negatedMention * v
				}
				switch {
				case v > 0:
					aff[off+j] = math.Max(aff[off+j], v)
					sAff = math.Max(sAff, v)
				case v < 0:
					deny[off+j] = math.Max(deny[off+j], -v)
					sDeny = math.Max(sDeny, -v)
				}
			}
			side[i] += s.weight * (sAff - sDeny)
			off += len(c.terms)
		}
	}
	out := sc.evidence(nc)
	off := 0
	for i, c := range a.cands {
		var got float64
		best := math.Inf(-1)
		for j, w := range c.weights {
			d := aff[off+j] - deny[off+j]
			got += w * d
			best = math.Max(best, d)
		}
		off += len(c.terms)
		if c.total > 0 {
			out[i].mean = got / c.total
		}
		if len(c.terms) > 0 {
			out[i].best = best
		}
		if stateTotal > 0 {
			out[i].side = side[i] / stateTotal
		}
	}
	return out
}

// docFreq counts, for a word, the candidates that use it. A few short
// candidates are searched directly; a map pays off on many.
func docFreq(cands [][]term) func(word string) float64 {
	total := 0
	for _, c := range cands {
		total += len(c)
	}
	if total > 64 {
		df := map[string]float64{}
		for _, c := range cands {
			for j, t := range c {
				if !uses(c[:j], t.word) {
					df[t.word]++
				}
			}
		}
		return func(word string) float64 { return df[word] }
	}
	return func(word string) float64 {
		n := 0.0
		for _, c := range cands {
			if uses(c, word) {
				n++
			}
		}
		return n
	}
}

// uses reports whether one of ts is word.
func uses(ts []term, word string) bool {
	for _, t := range ts {
		if t.word == word {
			return true
		}
	}
	return false
}

// match is how strongly state word s affirms (> 0) or denies (< 0) the
// candidate term t, in [-1, 1], given the similarity of their words. Words
// that mean the same (cosine above floor) affirm when used in the same sense: the same sign, or for two
// evaluative words the same polarity ("not happy" affirms "dissatisfied";
// "happy" denies it). An opposite ("renew" for "cancel") denies as
// strongly as the word negated.
func match(s, t term, sim float64) float64 {
	if t.opposes(s) {
		return -s.sign * t.sign
	}
	if sim <= 0 {
		return 0
	}
	agree := s.sign * t.sign
	// Words of one related group mean the same thing, so their sense is
	// their sign alone; polarity decides only between other words.
	if s.polarity != 0 && t.polarity != 0 && s.groups&t.groups == 0 {
		agree = math.Copysign(1, s.polarity*t.polarity)
	}
	return agree * sim
}

// similarity is how far the cosine of two words rises above floor, scaled
// to [0, 1]; the same word is 1, and a word without a vector matches only
// itself.
func similarity(a, b *wordInfo) float64 {
	if a.word == b.word {
		return 1
	}
	sim := 0.0
	if a.groups&b.groups != 0 {
		sim = linkSimilarity
	}
	if a.unit == nil || b.unit == nil {
		return sim
	}
	return math.Max(sim, (dot(a.unit, b.unit)-floor)/(1-floor))
}

func softmax(logits []float64) []float64 {
	top := math.Inf(-1)
	for _, x := range logits {
		top = math.Max(top, x)
	}
	out := make([]float64, len(logits))
	sum := 0.0
	for i, x := range logits {
		out[i] = math.Exp(x - top)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// PlannedInputTokens is the request's own tokens: it reads the request once.
func (*Engine) PlannedInputTokens(_ systemone.Request, tokens int) int { return tokens }

// scratch is one request's working memory, reused through scratchPool so
// that a request allocates little beyond its answer: the state's tokens
// and terms, a question's key, and the candidates' evidence with each
// candidate's affirmations and denials. Nothing in it outlives the
// request.
type scratch struct {
	toks  []token
	terms []term
	key   []byte
	ev    []evidence
	fs    []float64
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxScratch bounds the tokens or terms a scratch keeps for a later
// request, and maxScratchFloats its evidence: a long state's or a long
// question's memory is let go with it.
const (
	maxScratch       = 1024
	maxScratchFloats = 4096
)

// release clears what the request left in sc (the state's words, the
// readings of its words) and keeps sc for the next one unless it grew
// large.
func (sc *scratch) release() {
	if cap(sc.toks) > maxScratch || cap(sc.terms) > maxScratch || cap(sc.key) > keptQuestions.KeyBytes || cap(sc.fs) > maxScratchFloats {
		return
	}
	clear(sc.toks[:cap(sc.toks)])
	clear(sc.terms[:cap(sc.terms)])
	scratchPool.Put(sc)
}

// evidence is n zeroed evidences of sc's memory.
func (sc *scratch) evidence(n int) []evidence {
	if cap(sc.ev) < n {
		sc.ev = make([]evidence, n)
	}
	sc.ev = sc.ev[:n]
	clear(sc.ev)
	return sc.ev
}

// floats is n floats of sc's memory, not cleared.
func (sc *scratch) floats(n int) []float64 {
	if cap(sc.fs) < n {
		sc.fs = make([]float64, n)
	}
	return sc.fs[:n]
}
