// Package lexical is one of the judge's two offline engines (the default
// is judge/internal/engine/semantic): it answers System One questions from
// the words of the text alone, with no network and no model, and is the
// fastest of the engines. It is not a language model and does not
// understand the text; see docs/judge.md for the method and its limits.
// judge/cmd/judge (engines.go) registers it beside the others in
// judge/internal/registry.
package lexical

import (
	"context"
	"fmt"
	"math"

	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/coherent"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/words"
)

// Name is the exact model name of this engine's current method; Alias floats
// to it. Bump Name whenever a change alters any answer.
const (
	Name        = "local/lexical-1.0"
	Alias       = "local/lexical-latest"
	ReleaseDate = "2026-11-22"
)

// Temperature divides relevance before the softmax. Relevance lies in
// [-2, 2] (see relevance); at 0.4 a candidate that covers all of its
// distinctive terms once is e^2.5 ≈ 12 times as likely as one with no match,
// strong but never certain, which suits evidence this shallow.
const Temperature = 0.4

// mixing mixes yes/no answers with the uniform distribution
// (calibrate.Mix) so that they stay within the confidence the engine's dev
// answers support (calibrate.Ceiling: 0.571): they reach 0.92 and are
// right about half the time there. Its score answers are borne out as
// they are, and choices are never mixed, as in the semantic engine
// (TestMixingFitsDev works this out again).
var mixing = map[systemone.QuestionType]float64{
	systemone.TypeNoul:  0.8316,
	systemone.TypeScore: 0,
}

// Engine answers requests lexically. The zero value is ready to use and safe
// for concurrent use.
type Engine struct {
	// unmixed leaves the answers as the words give them, for the test
	// that works out mixing.
	unmixed bool
}

// Ask answers every question of req from req.State. Each question is answered
// from the state and its own text only, so asking it alone or beside questions
// it does not name gives the same answer, and neither option order nor
// question names matter. The laws of probability that structure and English
// wording decide (shared/coherent) hold by construction.
func (e Engine) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	if e.unmixed {
		return coherent.Ask(ctx, req, askUnmixed)
	}
	return coherent.Ask(ctx, req, askMixed)
}

// askMixed and askUnmixed are ask of each Engine as functions that hold
// nothing: a method value of e would be allocated on every request.
var (
	askMixed = func(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
		return Engine{}.ask(ctx, req)
	}
	askUnmixed = func(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
		return Engine{unmixed: true}.ask(ctx, req)
	}
)

func (e Engine) ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	state := stateTerms(words.FromJSON(req.State, true))
	answers := make(map[string]systemone.Answer, len(req.Questions))
	for name, q := range req.Questions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a, err := e.answer(state, q)
		if err != nil {
			return nil, err
		}
		answers[name] = a
	}
	return &systemone.Response{Model: Name, Answers: answers}, nil
}

// answer weighs each candidate of q (see compile) against the state's
// terms.
func (e Engine) answer(state []words.Token, q systemone.Question) (systemone.Answer, error) {
	c, err := kept(q)
	if err != nil {
		return systemone.Answer{}, err
	}
	// Most questions have few candidates: their weights fit on the stack.
	var buf [16]float64
	w := c.weights(state, buf[:0])
	if !e.unmixed {
		calibrate.Mix(w, mixing[q.Type])
	}
	return systemone.BuildAnswer(q, w)
}

// weights is the distribution over q's candidates, compiled as c, that the
// state's terms give, appended to out.
func (c *compiled) weights(state []words.Token, out []float64) []float64 {
	// Most questions read few terms: their counts fit on the stack.
	var buf [64]float64
	var counts []float64
	if n := 2 * len(c.slots); n <= len(buf) {
		counts = buf[:n]
	} else {
		counts = make([]float64, n)
	}
	for _, t := range state {
		if k, ok := c.slots[t.Word]; ok {
			if t.Negated {
				counts[k+1]++
			} else {
				counts[k]++
			}
		}
	}
	logits := out
	for _, cand := range c.cands {
		logits = append(logits, relevance(counts, cand)/Temperature)
	}
	return softmax(logits)
}

// compile works out what answering q needs of q alone: its candidates,
// each as a bag of terms weighed by inverse frequency, in the order
// BuildAnswer takes their weights.
func compile(q systemone.Question) (*compiled, error) {
	switch q.Type {
	case systemone.TypeNoul:
		return weigh(noulCandidates(q), true), nil
	case systemone.TypeChoice:
		// The options come in their canonical order (limits.Check puts
		// them so), so every sum runs in the same order whatever order
		// the caller listed them in and whatever it named them, and the
		// answer is identical to the last bit.
		return weigh(choiceCandidates(q), false), nil
	case systemone.TypeScore:
		return weigh(scoreCandidates(q), true), nil
	}
	// Validate refuses unknown types before a request reaches a backend.
	return nil, fmt.Errorf("unknown question type %q", q.Type)
}

// noulCandidates weighs a "yes" text against a "no" text. Yes is the
// instructions plus the caller's meaning of true; no is the instructions
// negated plus the caller's meaning of false. With no evidence either way
// the answer is 0.5.
func noulCandidates(q systemone.Question) []bag {
	instr := terms(words.FromJSON(q.Instructions, true))
	yes, no := bag{}, bag{}
	yes.add(instr)
	no.add(instr.negate())
	if q.Noul != nil {
		yes.add(terms(systemone.ContentText(q.Noul.True)))
		no.add(terms(systemone.ContentText(q.Noul.False)))
	}
	return []bag{yes, no}
}

// choiceCandidates is what each option says (its description, else its
// name: systemone.Option.Text). Each option is weighed alone, so the odds
// between two options do not depend on which others are offered: the
// probabilities are a softmax of per-option scores.
func choiceCandidates(q systemone.Question) []bag {
	cands := make([]bag, len(q.Options))
	for i, o := range q.Options {
		if o.Described() {
			cands[i] = terms(words.FromJSON(o.Description, true))
		} else {
			cands[i] = terms(o.Name)
		}
	}
	return cands
}

// scoreCandidates is each level's text; the score is then the expected
// level.
func scoreCandidates(q systemone.Question) []bag {
	cands := make([]bag, len(q.Levels))
	for i, l := range q.Levels {
		// A level given as null has no words: only its position counts.
		cands[i] = terms(systemone.ContentText(l))
	}
	return cands
}

func softmax(logits []float64) []float64 {
	top := math.Inf(-1)
	for _, x := range logits {
		top = math.Max(top, x)
	}
	sum := 0.0
	for i := range logits {
		logits[i] = math.Exp(logits[i] - top)
		sum += logits[i]
	}
	for i := range logits {
		logits[i] /= sum
	}
	return logits
}

// inverseFrequency weighs each term by how few of the question's candidates
// use it (the BM25 form of IDF, always positive). A word every option shares
// says little about which option fits; the candidates of one question are
// the whole corpus, which keeps questions independent of each other.
func inverseFrequency(cands []bag) map[string]float64 {
	df := map[string]float64{}
	for _, c := range cands {
		for t := range c {
			df[t]++
		}
	}
	n := float64(len(cands))
	idf := make(map[string]float64, len(df))
	for t, d := range df {
		idf[t] = math.Log(1 + (n-d+0.5)/(d+0.5))
	}
	return idf
}

// relevance is the IDF-weighted share of the candidate's terms that the state
// affirms, minus the share it denies: each term counts saturate(times the
// state says it) − saturate(times the state says its negation), weighted by
// IDF, over the candidate's total IDF. The result lies in [-2, 2]; a
// candidate with no terms scores 0. counts holds the state's counts in the
// candidate's slots (see compiled).
func relevance(counts []float64, cand []weighed) float64 {
	var got, total float64
	for _, t := range cand {
		total += t.idf
		got += t.idf * (saturate(counts[t.says]) - saturate(counts[t.denies]))
	}
	if total == 0 {
		return 0
	}
	return got / total
}

// saturate grows with repetition but flattens out (1, 1.33, 1.5 … → 2), so
// one word said ten times cannot outweigh several different matching words.
func saturate(tf float64) float64 {
	if tf <= 0 {
		return 0
	}
	return 2 * tf / (tf + 1)
}

// PlannedInputTokens is the request's own tokens: it reads the request once.
func (Engine) PlannedInputTokens(_ systemone.Request, tokens int) int { return tokens }
