// Package coherent makes an engine's answers obey the laws of probability
// that the structure and wording of a request decide, whatever the engine
// understands. Every engine (the offline engines, the chat adapter, the
// System One and Decisions providers) answers through Ask, so each rule
// is written once, here. By question:
//
//   - Options that say the same thing (systemone.Option.Text) are one
//     event: the engine is asked about one of them and their probability
//     is split evenly among them.
//   - A choice or score whose two outcomes are yes and no is the noul
//     question it spells: it is asked as one, and the answer mapped back.
//   - A yes/no question that negates another (reading.go: "… not …", "Is
//     it false that …", "no longer", "never", "fail to", "other than",
//     "neither … nor", "none of", a listed contradictory such as
//     "unresolved") is asked in its positive form and answered as the
//     complement.
//   - "level k or higher" / "at most level k" on a scale the question
//     lists in quotes is the sum over those levels of the score question.
//
// Across the questions of one request (related.go):
//
//   - Questions asked in the same form are asked once: a question and its
//     negation send the positive form once, and their answers sum to one.
//   - A yes/no question about an outcome of a choice or score of the
//     request ("… Is the answer anything other than billing?"), a
//     compound of two yes/no questions of the request ("both", "at least
//     one", "neither") and a four-way choice over two of them are worked
//     out from those questions' answers, never asked.
//
// A question's answer never depends on a question of the request it does
// not name. See docs/api.md, "Coherence".
package coherent

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/judgeworks/shared/jsonscan"
	"github.com/judgeworks/shared/systemone"
)

// maxSteps bounds the rewrites of one question: each step removes a
// negation, duplicates or a cumulative phrase, so a real question needs
// two or three.
const maxSteps = 6

// back maps the answer to a rewritten question to the answer to the
// question it came from.
type back func(systemone.Answer) (systemone.Answer, error)

// item is how one of the caller's questions is answered: its core (the
// question the rules brought it to), asked under the name asked or
// derived from other questions' answers (from), then mapped back through
// backs, last first.
type item struct {
	core  systemone.Question
	backs []back
	asked string
	from  *derivation
}

// derivation is how a derived question's core is answered: the sum of
// some outcomes of a source question (outcomeRef), or a compound or
// four-way choice read from a pair's joint distribution.
type derivation struct {
	kind shapeKind
	// src is the source question's name, keys the keys of its
	// answer's probabilities that are summed.
	src  string
	keys []string
	// pair indexes plan.pairs; op is a compound's, cells a four-way
	// choice's.
	pair  int
	op    op
	cells []cell
}

// pair is two yes/no questions of the request that compounds or four-way
// choices name, and the name under which "both" is asked of them.
type pair struct{ a, b, both string }

// plan is how a request is asked and its answers mapped back.
type plan struct {
	names []string
	items map[string]*item
	pairs []pair
}

// Rewrite returns req with every question brought to the form the rules
// fix, and the function that turns the engine's response to it into the
// response to req. The request returned asks each distinct question once
// under the name of its first asker, and also, for each pair of yes/no
// questions that compounds name, whether both hold (under a name of its
// own); derived questions are not in it. req is never changed; when no
// rule fits any question it is returned as it is, its questions map
// shared, so callers must not change the returned request's map.
func Rewrite(req systemone.Request) (systemone.Request, func(*systemone.Response) (*systemone.Response, error)) {
	if len(req.Questions) == 1 {
		// One question: nothing to relate. Most questions are in their
		// form already, and then nothing is copied.
		for name, q := range req.Questions {
			core, bs := rewrite(q)
			if bs == nil {
				return req, unchanged
			}
			out := req
			out.Questions = map[string]systemone.Question{name: core}
			p := &plan{names: []string{name}, items: map[string]*item{name: {core: core, backs: bs, asked: name}}}
			return out, p.answers(req)
		}
	}
	p := newPlan(req)
	if p == nil {
		return req, unchanged
	}
	return p.request(req), p.answers(req)
}

// unchanged maps back the response to a request Rewrite left as it was.
func unchanged(resp *systemone.Response) (*systemone.Response, error) { return resp, nil }

// Ask answers req with ask after Rewrite, and maps the answers back.
func Ask(ctx context.Context, req systemone.Request, ask func(context.Context, systemone.Request) (*systemone.Response, error)) (*systemone.Response, error) {
	core, back := Rewrite(req)
	resp, err := ask(ctx, core)
	if err != nil {
		return nil, err
	}
	return back(resp)
}

// rewrite brings q to its form by the rules of one question, and returns
// the maps back (nil when q is in its form).
func rewrite(q systemone.Question) (systemone.Question, []back) {
	var bs []back
	for range maxSteps {
		core, b, ok := step(q)
		if !ok {
			break
		}
		q = core
		bs = append(bs, b)
	}
	return q, bs
}

// newPlan plans a request of several questions; nil when it is to be
// asked as it is. Most requests ask unrelated questions in their form
// already: they are told apart first, by a pass that copies nothing.
func newPlan(req systemone.Request) *plan {
	if !needsPlan(req) {
		return nil
	}
	p := &plan{names: req.QuestionNames(), items: make(map[string]*item, len(req.Questions))}
	for _, name := range p.names {
		core, bs := rewrite(req.Questions[name])
		p.items[name] = &item{core: core, backs: bs, asked: name}
	}
	p.derive(req)
	p.dedupe()
	return p
}

// needsPlan reports whether some question of req is rewritten, may ask
// about another (mayReferRaw) or is asked twice: the cheap check every
// request of several questions passes through.
func needsPlan(req systemone.Request) bool {
	var buf [32]uint64
	hs := buf[:0]
	seed := maphash.MakeSeed()
	for _, q := range req.Questions {
		core, bs := rewrite(q)
		if bs != nil {
			return true
		}
		if _, _, ok := mayRefer(core); ok {
			return true
		}
		hs = append(hs, hashQuestion(seed, core))
	}
	slices.Sort(hs)
	for i := 1; i < len(hs); i++ {
		if hs[i] == hs[i-1] {
			return true
		}
	}
	return false
}

// hashQuestion is a hash of q's key (systemone.Question.AppendKey)
// written without building the key.
func hashQuestion(seed maphash.Seed, q systemone.Question) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	text := func(b []byte) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		if b == nil {
			n[7] = 0xff
		}
		h.Write(n[:])
		h.Write(b)
	}
	text([]byte(q.Type))
	text(q.Instructions)
	if q.Noul != nil {
		text(q.Noul.True)
		text(q.Noul.False)
	}
	for _, o := range q.Options {
		text([]byte(o.Name))
		text(o.Description)
	}
	h.WriteByte(byte(len(q.Options)))
	for _, l := range q.Levels {
		text(l)
	}
	return h.Sum64()
}

// dedupe asks each distinct core once, under the first name that asks it.
// Cores are compared by a hash first.
func (p *plan) dedupe() {
	seed := maphash.MakeSeed()
	type keyed struct {
		h    uint64
		name string
	}
	hs := make([]keyed, 0, len(p.names))
	for _, name := range p.names {
		if it := p.items[name]; it.from == nil {
			hs = append(hs, keyed{hashQuestion(seed, it.core), name})
		}
	}
	// A stable sort keeps the caller's order among equal hashes: the
	// first asker comes first.
	slices.SortStableFunc(hs, func(a, b keyed) int { return cmp.Compare(a.h, b.h) })
	for i := 1; i < len(hs); i++ {
		// Equal hashes: the first of the run with the same key asks.
		for j := i - 1; j >= 0 && hs[j].h == hs[i].h; j-- {
			first := p.items[hs[j].name]
			if first.asked == hs[j].name && sameQuestion(first.core, p.items[hs[i].name].core) {
				p.items[hs[i].name].asked = hs[j].name
				break
			}
		}
	}
}

func sameQuestion(a, b systemone.Question) bool {
	return string(a.AppendKey(nil)) == string(b.AppendKey(nil))
}

// request is the request the plan asks: each distinct core once, then
// whether both hold for each pair.
func (p *plan) request(req systemone.Request) systemone.Request {
	out := req
	out.Questions = make(map[string]systemone.Question, len(p.items)+len(p.pairs))
	out.Order = make([]string, 0, len(p.items)+len(p.pairs))
	for _, name := range p.names {
		if it := p.items[name]; it.from == nil && it.asked == name {
			out.Questions[name] = it.core
			out.Order = append(out.Order, name)
		}
	}
	for _, pr := range p.pairs {
		out.Questions[pr.both] = bothQuestion(req.Questions[pr.a], req.Questions[pr.b])
		out.Order = append(out.Order, pr.both)
	}
	return out
}

// bothQuestion asks whether the yes/no questions a and b both hold, in
// the form readCompound reads.
func bothQuestion(a, b systemone.Question) systemone.Question {
	ta, _ := instructionText(a)
	tb, _ := instructionText(b)
	return systemone.Question{Type: systemone.TypeNoul,
		Instructions: stringJSON("Is the answer yes to both " + strconv.Quote(strings.TrimSpace(ta)) + " and " + strconv.Quote(strings.TrimSpace(tb)) + "?")}
}

// answers maps the engine's response to the plan's request back to the
// response to req.
func (p *plan) answers(req systemone.Request) func(*systemone.Response) (*systemone.Response, error) {
	return func(resp *systemone.Response) (*systemone.Response, error) {
		if resp == nil {
			return resp, nil
		}
		final := make(map[string]systemone.Answer, len(p.items))
		// The questions asked first: every source is one of them.
		for _, name := range p.names {
			it := p.items[name]
			if it.from != nil {
				continue
			}
			a, ok := resp.Answers[it.asked]
			if !ok {
				continue // the registry reports a question left unanswered
			}
			a, err := it.mapBack(a)
			if err != nil {
				return nil, fmt.Errorf("question %q: %w", name, err)
			}
			final[name] = a
		}
		joints := make([]joint, len(p.pairs))
		for i, pr := range p.pairs {
			j, err := jointOf(final[pr.a], final[pr.b], resp.Answers[pr.both])
			if err != nil {
				return nil, fmt.Errorf("questions %q and %q: %w", pr.a, pr.b, err)
			}
			joints[i] = j
		}
		for _, name := range p.names {
			it := p.items[name]
			if it.from == nil {
				continue
			}
			a, err := it.from.answer(it.core, final, joints)
			if err == nil {
				a, err = it.mapBack(a)
			}
			if err != nil {
				return nil, fmt.Errorf("question %q: %w", name, err)
			}
			final[name] = a
		}
		r := *resp
		r.Answers = final
		r.Order = req.QuestionNames()
		return &r, nil
	}
}

// mapBack is the answer to the caller's question from a, the answer to
// its core.
func (it *item) mapBack(a systemone.Answer) (systemone.Answer, error) {
	for i := len(it.backs) - 1; i >= 0; i-- {
		var err error
		if a, err = it.backs[i](a); err != nil {
			return systemone.Answer{}, err
		}
	}
	return a, nil
}

// step applies the first rule that fits q.
func step(q systemone.Question) (systemone.Question, back, bool) {
	if core, b, ok := duplicates(q); ok {
		return core, b, true
	}
	if core, b, ok := yesNoPair(q); ok {
		return core, b, true
	}
	text, ok := noulText(q)
	if !ok {
		return q, nil, false
	}
	if core, b, ok := negation(q, text); ok {
		return core, b, true
	}
	if core, b, ok := cumulative(text); ok {
		return core, b, true
	}
	return q, nil, false
}

// duplicates asks a choice with options that say the same thing (the same
// Text) about one of each, and splits each one's probability evenly among
// the options that say it.
func duplicates(q systemone.Question) (systemone.Question, back, bool) {
	if q.Type != systemone.TypeChoice {
		return q, nil, false
	}
	first := make(map[string]int, len(q.Options))
	kept := make([]systemone.Option, 0, len(q.Options))
	count := make([]int, 0, len(q.Options))
	of := make([]int, len(q.Options))
	for i, o := range q.Options {
		t := o.Text()
		j, seen := first[t]
		if !seen {
			j = len(kept)
			first[t] = j
			kept = append(kept, o)
			count = append(count, 0)
		} else if o.Name < kept[j].Name {
			// The one asked about is the smallest name, so the rewritten
			// question is the same whatever order the caller listed them in.
			kept[j] = o
		}
		count[j]++
		of[i] = j
	}
	if len(kept) == len(q.Options) {
		return q, nil, false
	}
	orig := q
	core := q
	core.Options = kept
	if len(kept) == 1 {
		// One event: certain. Asked as a two-option choice it would not
		// even be valid, so no engine is needed.
		return q, nil, false
	}
	return core, func(a systemone.Answer) (systemone.Answer, error) {
		w := make([]float64, len(orig.Options))
		for i := range orig.Options {
			w[i] = a.Probabilities[kept[of[i]].Name] / float64(count[of[i]])
		}
		return systemone.BuildAnswer(orig, w)
	}, true
}

// yesNoPair asks a choice or score whose two outcomes are yes and no (or
// true and false) as the noul question they spell, with the same
// instructions.
func yesNoPair(q systemone.Question) (systemone.Question, back, bool) {
	var texts []string
	switch q.Type {
	case systemone.TypeChoice:
		if len(q.Options) != 2 {
			return q, nil, false
		}
		for _, o := range q.Options {
			texts = append(texts, o.Text())
		}
	case systemone.TypeScore:
		if len(q.Levels) != 2 {
			return q, nil, false
		}
		for _, l := range q.Levels {
			texts = append(texts, systemone.ContentText(l))
		}
	default:
		return q, nil, false
	}
	yes := -1
	switch [2]string{answerWord(texts[0]), answerWord(texts[1])} {
	case [2]string{"yes", "no"}, [2]string{"true", "false"}:
		yes = 0
	case [2]string{"no", "yes"}, [2]string{"false", "true"}:
		yes = 1
	default:
		return q, nil, false
	}
	orig := q
	core := systemone.Question{Type: systemone.TypeNoul, Instructions: q.Instructions}
	return core, func(a systemone.Answer) (systemone.Answer, error) {
		if a.Noul == nil {
			return systemone.Answer{}, fmt.Errorf("a noul question answered as %s", a.Type)
		}
		w := []float64{1 - *a.Noul, 1 - *a.Noul}
		w[yes] = *a.Noul
		return systemone.BuildAnswer(orig, w)
	}, true
}

// answerWord is s in lower case without surrounding spaces and
// punctuation: "Yes." and " YES" are yes.
func answerWord(s string) string {
	return strings.ToLower(strings.Trim(s, " \t\r\n.!?\"'()"))
}

// complement is the answer to a noul question's opposite.
func complement(a systemone.Answer) (systemone.Answer, error) {
	if a.Noul == nil {
		return systemone.Answer{}, fmt.Errorf("a noul question answered as %s", a.Type)
	}
	return systemone.NoulAnswerOf(1 - *a.Noul)
}

// negation answers a noul question that negates another as the
// complement of the other. The other question's meanings of yes and no,
// when given, are this one's swapped. text is q's (noulText).
func negation(q systemone.Question, text string) (systemone.Question, back, bool) {
	base, ok := Negated(text)
	if !ok {
		return q, nil, false
	}
	core := q
	core.Instructions = stringJSON(base)
	if q.Noul != nil {
		core.Noul = &systemone.NoulCriteria{True: q.Noul.False, False: q.Noul.True}
	}
	return core, complement, true
}

// noulText is a noul question's instructions when they are one string of
// text: what the reading rules read.
func noulText(q systemone.Question) (string, bool) {
	if q.Type != systemone.TypeNoul {
		return "", false
	}
	return jsonscan.StringValue(q.Instructions)
}

func stringJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// cumulative answers "is it level k or higher" (or "at most level k") on a
// scale the instructions list as quoted levels, lowest first, by asking
// the score question on that scale and summing the levels the phrase
// covers. text is the noul question's (noulText).
func cumulative(text string) (systemone.Question, back, bool) {
	c, ok := ReadCumulative(text)
	if !ok {
		return systemone.Question{}, nil, false
	}
	core := systemone.Question{Type: systemone.TypeScore, Instructions: stringJSON(c.Question), Levels: systemone.Texts(c.Levels...)}
	return core, func(a systemone.Answer) (systemone.Answer, error) {
		if a.Type != systemone.TypeScore {
			return systemone.Answer{}, fmt.Errorf("a score question answered as %s", a.Type)
		}
		lo, hi := c.Level, len(c.Levels)-1
		if !c.Higher {
			lo, hi = 0, c.Level
		}
		p := 0.0
		for i := lo; i <= hi; i++ {
			p += a.Probabilities[strconv.Itoa(i)]
		}
		return systemone.NoulAnswerOf(p)
	}, true
}

// joint is the joint distribution of two yes/no answers: p[cell].
type joint [4]float64

// jointOf is the joint distribution of the yes/no answers a and b, with
// "both" as the engine answered it, bounded by a and b (Fréchet).
func jointOf(a, b, bothAnswer systemone.Answer) (joint, error) {
	if a.Noul == nil || b.Noul == nil || bothAnswer.Noul == nil {
		return joint{}, fmt.Errorf("a yes/no question not answered yes or no")
	}
	pa, pb := *a.Noul, *b.Noul
	p11 := math.Min(math.Min(pa, pb), math.Max(math.Max(0, pa+pb-1), *bothAnswer.Noul))
	return joint{both: p11, firstOnly: pa - p11, secondOnly: pb - p11, neither: math.Max(0, 1-pa-pb+p11)}, nil
}

// answer is the answer to core, a derived question, from the final
// answers of the questions asked and the pairs' joints.
func (d *derivation) answer(core systemone.Question, final map[string]systemone.Answer, joints []joint) (systemone.Answer, error) {
	switch d.kind {
	case outcomeRef:
		src, ok := final[d.src]
		if !ok {
			return systemone.Answer{}, fmt.Errorf("question %q left unanswered", d.src)
		}
		p := 0.0
		for _, k := range d.keys {
			p += src.Probabilities[k]
		}
		return systemone.NoulAnswerOf(p)
	case compound:
		j := joints[d.pair]
		switch d.op {
		case and:
			return systemone.NoulAnswerOf(j[both])
		case or:
			return systemone.NoulAnswerOf(1 - j[neither])
		case nor:
			return systemone.NoulAnswerOf(j[neither])
		}
		return systemone.NoulAnswerOf(1 - j[both])
	}
	j := joints[d.pair]
	w := make([]float64, len(d.cells))
	for i, c := range d.cells {
		w[i] = j[c]
	}
	return systemone.BuildAnswer(core, w)
}

// derive finds the questions of the plan that ask about others of the
// request, and plans their answers.
func (p *plan) derive(req systemone.Request) {
	type candidate struct {
		name  string
		text  string
		cells []cell
	}
	var cands []candidate
	for _, name := range p.names {
		if text, cells, ok := mayRefer(p.items[name].core); ok {
			cands = append(cands, candidate{name, text, cells})
		}
	}
	if cands == nil {
		return
	}
	isCand := make(map[string]bool, len(cands))
	for _, c := range cands {
		isCand[c.name] = true
	}
	// The questions that may be named: those that ask about no other,
	// by their instructions as the caller wrote them.
	nouls, scales := map[string]string{}, map[string][]string{}
	for _, name := range p.names {
		q := req.Questions[name]
		if _, _, ok := mayRefer(q); ok || isCand[name] {
			continue
		}
		text, ok := instructionText(q)
		if !ok {
			continue
		}
		switch q.Type {
		case systemone.TypeNoul:
			if _, taken := nouls[norm(text)]; !taken {
				nouls[norm(text)] = name
			}
		default:
			scales[norm(text)] = append(scales[norm(text)], name)
		}
	}
	indexes := map[string]map[string]int{}
	for _, c := range cands {
		it := p.items[c.name]
		if a, b, rest, ok := namedPair(c.text, nouls); ok {
			d := &derivation{pair: p.pairOf(a, b)}
			if c.cells != nil {
				d.kind, d.cells = pairChoice, c.cells
			} else if d.op, ok = readOp(rest); ok {
				d.kind = compound
			} else {
				continue
			}
			if p.pairs[d.pair].a != a {
				d.swap() // the pair is kept in the other order
			}
			it.from = d
			continue
		}
		if c.cells != nil {
			continue
		}
		if src, keys, ok := outcomeOf(c.text, scales, req, indexes); ok {
			it.from = &derivation{kind: outcomeRef, src: src, keys: keys}
		}
	}
}

// pairOf is the index of the pair of yes/no questions a and b, added
// when new; a pair is kept once whatever order its questions are named
// in.
func (p *plan) pairOf(a, b string) int {
	for i, pr := range p.pairs {
		if pr.a == a && pr.b == b || pr.a == b && pr.b == a {
			return i
		}
	}
	both := "_both_" + strconv.Itoa(len(p.pairs)+1)
	for p.items[both] != nil {
		both = "_" + both
	}
	p.pairs = append(p.pairs, pair{a: a, b: b, both: both})
	return len(p.pairs) - 1
}

// swap reads d's cells with its two questions the other way round.
func (d *derivation) swap() {
	for i, c := range d.cells {
		switch c {
		case firstOnly:
			d.cells[i] = secondOnly
		case secondOnly:
			d.cells[i] = firstOnly
		}
	}
}

// namedPair finds the two yes/no questions of the request that text
// names (nouls maps their normalised instructions to their names), in
// the order named, and the rest of the text in lower case.
func namedPair(text string, nouls map[string]string) (string, string, string, bool) {
	var names []string
	var at []segment
	for _, s := range segments(text) {
		name, ok := nouls[norm(text[s.from:s.to])]
		if !ok || slices.Contains(names, name) {
			continue
		}
		if names, at = append(names, name), append(at, s); len(names) > 2 {
			return "", "", "", false
		}
	}
	if len(names) != 2 {
		return "", "", "", false
	}
	rest := text[:at[0].from] + " " + text[at[0].to:at[1].from] + " " + text[at[1].to:]
	return names[0], names[1], strings.ToLower(rest), true
}

// outcomeOf reads text as a question about outcomes of a choice or score
// of the request (scales maps their normalised instructions to their
// names; indexes keeps what each one's outcomes say, read once) and
// returns that question's name and the keys of the outcomes named. A
// source that cannot be told apart from another with the same
// instructions, or an outcome it does not have, reads as nothing.
func outcomeOf(text string, scales map[string][]string, req systemone.Request, indexes map[string]map[string]int) (string, []string, bool) {
	src, sp, ok := readOutcomeRef(text)
	if !ok {
		return "", nil, false
	}
	var name string
	var keys []string
	for _, n := range scales[src] {
		idx, ok := indexes[n]
		if !ok {
			idx = indexOutcomes(req.Questions[n])
			indexes[n] = idx
		}
		if k, ok := outcomeKeys(req.Questions[n], idx, sp); ok {
			if name != "" {
				return "", nil, false
			}
			name, keys = n, k
		}
	}
	return name, keys, name != ""
}

// indexOutcomes maps what each outcome of a choice or score says,
// normalised, to its place: an option's text and its name, a level's
// text. A text two outcomes share names neither.
func indexOutcomes(q systemone.Question) map[string]int {
	idx := map[string]int{}
	add := func(t string, i int) {
		if j, ok := idx[t]; ok && j != i {
			idx[t] = -1
			return
		}
		idx[t] = i
	}
	for i, o := range q.Options {
		add(norm(o.Text()), i)
		add(norm(o.Name), i)
	}
	for i, l := range q.Levels {
		add(norm(systemone.ContentText(l)), i)
	}
	return idx
}

// outcomeKeys are the keys of q's answer that sp names (idx: q's
// indexOutcomes): options by their text or name, levels by their text
// and, for a range, every level above or below.
func outcomeKeys(q systemone.Question, idx map[string]int, sp spec) ([]string, bool) {
	var at []int
	seen := make([]bool, len(q.Options)+len(q.Levels))
	for _, t := range sp.texts {
		i, ok := idx[t]
		if !ok || i < 0 || seen[i] {
			return nil, false
		}
		seen[i] = true
		at = append(at, i)
	}
	switch {
	case q.Type == systemone.TypeChoice && (sp.higher || sp.lower):
		return nil, false
	case sp.higher:
		at = rangeOf(at[0], len(q.Levels)-1)
	case sp.lower:
		at = rangeOf(0, at[0])
	}
	keys := make([]string, len(at))
	for j, i := range at {
		if q.Type == systemone.TypeChoice {
			keys[j] = q.Options[i].Name
		} else {
			keys[j] = strconv.Itoa(i)
		}
	}
	return keys, len(keys) > 0
}

func rangeOf(lo, hi int) []int {
	out := make([]int, 0, hi-lo+1)
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}
