// Package limits holds the judge's bounds on a request beyond its shape
// (docs/api.md, "Judge: POST /v1/systemone"): the token limits, counted
// with the judge's tokenizer. Check validates a request once and returns
// what later stages need of it, so nothing downstream validates, counts
// or orders again.
package limits

import (
	"fmt"

	"github.com/judgeworks/judge/internal/keep"
	"github.com/judgeworks/shared/systemone"
)

// Token limits of a request.
const (
	// MaxStateAndQuestionTokens bounds the state plus the longest question:
	// what one model call sees when questions are asked one at a time.
	MaxStateAndQuestionTokens = 32_000
	// MaxRequestTokens bounds the whole request: state plus every question.
	MaxRequestTokens = 64_000
)

// Counter counts the tokens of a text. *tokens.Counter satisfies it.
type Counter interface {
	Count(s string) int
}

// Checked is a request that passed Check, with what checking it found:
// later stages (the token charge, the registry, the engines) read it here
// instead of deriving it again.
type Checked struct {
	// Request is the request with each choice's options in their
	// canonical order (systemone.CanonicalOptions): the order every
	// engine shows and sums them in, so engines do not sort again.
	systemone.Request
	// Tokens is the request's input tokens: the state once plus every
	// question (name, instructions, criteria, one piece per line).
	Tokens int
	// asked are the questions as the caller sent them, when there is a
	// choice among them: what Arrange writes answers by.
	asked map[string]systemone.Question
}

// Arrange puts resp's answers in the caller's order, whichever order the
// engine kept (or the request a cached answer was stored for): the
// questions as they were sent, and each choice's probabilities as its
// options were listed, not in the canonical order the engines read them in
// nor sorted by name (docs/api.md, "Judge: POST /v1/systemone").
func (c Checked) Arrange(resp *systemone.Response) {
	resp.Order = c.QuestionNames()
	for name, q := range c.asked {
		if q.Type != systemone.TypeChoice {
			continue
		}
		a, ok := resp.Answers[name]
		if !ok {
			continue
		}
		a.Order = make([]string, len(q.Options))
		for i, o := range q.Options {
			a.Order[i] = o.Name
		}
		resp.Answers[name] = a
	}
}

// Check validates req: its shape (systemone.Request.Validate), then the
// token limits (state plus the longest question at most 32,000 tokens; the
// whole request at most 64,000), each text tokenised once. The error is a
// *systemone.ValidationError listing every problem. req is not changed.
//
// Counting stops where the request is refused: a text is counted to
// 32,000 tokens at most, and the questions until the whole passes 64,000,
// so that refusing a body of a megabyte costs the counting of about that
// many tokens, not of the megabyte. A refusal says how many tokens there
// are when they were all counted, else only that they are too many.
func Check(req systemone.Request, count Counter) (Checked, error) {
	if err := req.Validate(); err != nil {
		// Token counts of a malformed request would only add noise.
		return Checked{}, err
	}
	state := countUpTo(count, systemone.ContentText(req.State), MaxStateAndQuestionTokens)
	longest, total, all := 0, state, state <= MaxStateAndQuestionTokens
	if all {
		for name, q := range req.Questions {
			n := question(count, name, q)
			longest = max(longest, n)
			total += n
			if n > MaxStateAndQuestionTokens || total > MaxRequestTokens {
				all = false // refused: not counted to the end
				break
			}
		}
	}
	var v systemone.Problems
	switch {
	case state+longest <= MaxStateAndQuestionTokens:
	case all:
		v.Add(fmt.Sprintf("state plus the longest question is %d tokens, more than the limit of %d", state+longest, MaxStateAndQuestionTokens),
			"too_long", "body", "state")
	default:
		v.Add(fmt.Sprintf("state plus the longest question is more than the limit of %d tokens", MaxStateAndQuestionTokens),
			"too_long", "body", "state")
	}
	switch {
	case total <= MaxRequestTokens:
	case all:
		v.Add(fmt.Sprintf("the request is %d tokens, more than the limit of %d", total, MaxRequestTokens), "too_long", "body")
	default:
		v.Add(fmt.Sprintf("the request is more than the limit of %d tokens", MaxRequestTokens), "too_long", "body")
	}
	if err := v.Err(); err != nil {
		return Checked{}, err
	}
	return canonical(req, total), nil
}

// canonical returns req checked: each choice's options in canonical order,
// and the caller's questions kept beside them for Arrange; req's questions
// shared when it has no choice.
func canonical(req systemone.Request, tokens int) Checked {
	choices := false
	for _, q := range req.Questions {
		choices = choices || q.Type == systemone.TypeChoice
	}
	if !choices {
		return Checked{Request: req, Tokens: tokens}
	}
	// A new map filled in one pass: cheaper than cloning the caller's and
	// then writing the choices into the clone.
	asked := req.Questions
	qs := make(map[string]systemone.Question, len(req.Questions))
	for name, q := range req.Questions {
		qs[name] = q.Canonical()
	}
	req.Questions = qs
	return Checked{Request: req, Tokens: tokens, asked: asked}
}

// question counts what a model sees of one question: its name,
// instructions and criteria, one piece per line.
func question(count Counter, name string, q systemone.Question) int {
	// Most question texts fit in the array on the stack, and a kept count
	// then costs no allocation; a longer one grows as append grows it.
	var buf [512]byte
	b := buf[:0]
	b = append(b, name...)
	b = append(b, '\n')
	b = append(b, systemone.ContentText(q.Instructions)...)
	if q.Noul != nil {
		b = append(b, '\n')
		b = append(b, systemone.ContentText(q.Noul.True)...)
		b = append(b, '\n')
		b = append(b, systemone.ContentText(q.Noul.False)...)
	}
	for _, o := range q.Options {
		b = append(b, '\n')
		b = append(b, o.Name...)
		if o.Description != nil {
			b = append(b, ": "...)
			b = append(b, systemone.ContentText(o.Description)...)
		}
	}
	for _, l := range q.Levels {
		b = append(b, '\n')
		b = append(b, systemone.ContentText(l)...)
	}
	// A count past the limit stops there: every request with that
	// question is refused, so the count kept serves them all.
	if qc, ok := count.(*QuestionCounts); ok {
		return qc.counts.Get(b, func() (int, int) { return qc.CountUpTo(string(b), MaxStateAndQuestionTokens), len(b) })
	}
	return countUpTo(count, string(b), MaxStateAndQuestionTokens)
}

// countUpTo counts the tokens of s, stopping past limit when count can
// (tokens.Counter.CountUpTo: the count when it is at most limit, else a
// number above limit).
func countUpTo(count Counter, s string, limit int) int {
	if c, ok := count.(interface{ CountUpTo(string, int) int }); ok {
		return c.CountUpTo(s, limit)
	}
	return count.Count(s)
}

// QuestionCounts is a Counter that keeps the token counts of the question
// texts Check counts, by the text (keep.Map: at most 4,096 texts of at
// most 4 KiB each, forgotten together when full): clients ask the same
// questions of many states, and a question's count then costs a map
// lookup instead of a tokenisation. Every other text, the state included,
// is counted each time. Counts are the Counter's, to the token.
type QuestionCounts struct {
	Counter
	counts *keep.Map[int]
}

// RememberQuestions wraps c in a QuestionCounts.
func RememberQuestions(c Counter) *QuestionCounts {
	return &QuestionCounts{Counter: c, counts: keep.New[int](keep.Bounds{Entries: 4096, KeyBytes: 4096})}
}

// CountUpTo is the wrapped Counter's (countUpTo).
func (q *QuestionCounts) CountUpTo(s string, limit int) int { return countUpTo(q.Counter, s, limit) }
