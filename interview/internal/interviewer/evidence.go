// Package interviewer holds what every interviewer's work is held to,
// whoever does it: evidence quoted from the answer itself, the cap on an
// off-topic answer's scores, which questions are behavioural, and how a
// spoken answer was delivered. The interviewers live beside it, a language
// model (llm) and the offline practice mode (offline), each an
// interview.Interviewer.
package interviewer

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/judgeworks/interview"
)

// MaxOffTopicScore is the highest score of an answer that does not address
// its question: low enough that it never raises a report, whoever scored
// it.
const MaxOffTopicScore = 35

// Bounds on evidence.
const (
	MaxEvidence   = 12
	MaxQuoteRunes = 300
	minQuoteRunes = 3
)

// NotScorable is the evaluation of an answer with nothing to judge: every
// score 0, no strength, and reason (a sentence) as the feedback.
func NotScorable(reason string) interview.Evaluation {
	return interview.Evaluation{
		Scorable:     false,
		Feedback:     "Not enough to score: " + reason,
		Strengths:    []string{},
		Improvements: []string{"Answer the question asked, in a few full sentences: what it is, how it works, an example."},
		Evidence:     []interview.Evidence{},
	}
}

// OffTopicLead opens the feedback of an answer off its question.
const OffTopicLead = "Off-topic: the answer does not address the question asked, so it scores at most 35."

// Checked makes e safe to store and show against answer, whoever wrote it:
// every quote must occur in the answer (compared without regard to case,
// runs of spaces or the style of quotation marks, then replaced by the
// answer's own text there) and stands under one item at most; items that
// do not occur, or repeat words a kept quote shows, are dropped, and each kept
// item's point appears in the list of its kind. An evaluation that is not
// scorable has every score 0 and no strength. One off its question is an
// answer all the same: it is scored, each score at most MaxOffTopicScore,
// credits nothing (no strength) and says so first (OffTopicLead).
func Checked(e interview.Evaluation, answer string) interview.Evaluation {
	if e.OffTopic {
		e.Scorable = true
		e.Score, e.TechnicalAccuracy, e.Communication = min(e.Score, MaxOffTopicScore), min(e.TechnicalAccuracy, MaxOffTopicScore), min(e.Communication, MaxOffTopicScore)
		if !strings.HasPrefix(e.Feedback, OffTopicLead) {
			e.Feedback = strings.TrimSpace(OffTopicLead + " " + e.Feedback)
		}
	}
	credits := e.Scorable && !e.OffTopic
	var kept []interview.Evidence
	for _, ev := range e.Evidence {
		if len(kept) == MaxEvidence {
			break
		}
		if ev.Kind != interview.Strength && ev.Kind != interview.Improvement {
			continue
		}
		ev.Point = strings.TrimSpace(ev.Point)
		q, ok := FindQuote(answer, ev.Quote)
		if !ok || ev.Point == "" || (!credits && ev.Kind == interview.Strength) || repeats(kept, q) {
			continue
		}
		ev.Quote = q
		kept = append(kept, ev)
		switch {
		case ev.Kind == interview.Strength && !slices.Contains(e.Strengths, ev.Point):
			e.Strengths = append(e.Strengths, ev.Point)
		case ev.Kind == interview.Improvement && !slices.Contains(e.Improvements, ev.Point):
			e.Improvements = append(e.Improvements, ev.Point)
		}
	}
	e.Evidence = kept
	if e.Evidence == nil {
		e.Evidence = []interview.Evidence{}
	}
	if !e.Scorable {
		e.Score, e.TechnicalAccuracy, e.Communication = 0, 0, 0
	}
	if !credits {
		e.Strengths = nil
	}
	if e.Strengths == nil {
		e.Strengths = []string{}
	}
	if e.Improvements == nil {
		e.Improvements = []string{}
	}
	return e
}

// repeats reports whether quote shows words of the answer that a kept item
// shows already (see Overlap).
func repeats(kept []interview.Evidence, quote string) bool {
	for _, k := range kept {
		if Overlap(k.Quote, quote) {
			return true
		}
	}
	return false
}

// Overlap reports whether two quotes show the same words of an answer: the
// same passage, or one inside the other. A quote stands under one item at
// most, so one that overlaps a kept quote is not shown again.
func Overlap(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	return strings.Contains(a, b) || strings.Contains(b, a)
}

// FindQuote looks for quote in answer and returns the answer's own text of
// it. Case, runs of white space and curly or straight quotation marks do
// not matter, nor an ellipsis or quotation marks around the quote; anything
// else must match. A quote of fewer than three characters or more than
// MaxQuoteRunes matches nothing.
func FindQuote(answer, quote string) (string, bool) {
	quote = strings.TrimSpace(quote)
	for _, cut := range []string{"...", "…", "\"", "'", "“", "”", "‘", "’"} {
		quote = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(quote, cut), cut))
	}
	n := utf8.RuneCountInString(quote)
	if n < minQuoteRunes || n > MaxQuoteRunes {
		return "", false
	}
	fa, offsets := foldText(answer)
	fq, _ := foldText(quote)
	i := strings.Index(fa, fq)
	if i < 0 || fq == "" {
		return "", false
	}
	// offsets[k] is the byte offset in answer of folded byte k; the end is
	// the offset just past the last folded character.
	start := offsets[i]
	end := len(answer)
	if j := i + len(fq); j < len(offsets) {
		end = offsets[j]
	}
	return strings.TrimSpace(answer[start:end]), true
}

// foldText lowercases s, makes every run of white space one space and every
// quotation mark straight, and records for each byte of the result the byte
// offset in s it came from.
func foldText(s string) (string, []int) {
	var b strings.Builder
	var offsets []int
	space := false
	for i, r := range s {
		switch {
		case unicode.IsSpace(r):
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
				offsets = append(offsets, i)
			}
			space = true
			continue
		case r == '’' || r == '‘':
			r = '\''
		case r == '“' || r == '”':
			r = '"'
		}
		space = false
		r = unicode.ToLower(r)
		for range utf8.RuneLen(r) {
			offsets = append(offsets, i)
		}
		b.WriteRune(r)
	}
	return b.String(), offsets
}

// behaviouralCues open the questions that ask for a story from the
// candidate's past.
var behaviouralCues = []string{
	"tell me about a time", "tell me about a situation", "tell me about when", "describe a time",
	"describe a situation", "give an example of a time", "give me an example of a time",
	"give an example of when", "walk me through a time", "share an example of", "a time when you",
	"a time you", "talk about a time", "have you ever", "recall a time", "think of a time",
}

// Behavioural reports whether the question asks for a story from the
// candidate's past, which the STAR structure (situation, task, action,
// result) fits.
func Behavioural(question string) bool {
	q := strings.Join(strings.Fields(strings.ToLower(question)), " ")
	q = strings.ReplaceAll(q, "’", "'")
	for _, c := range behaviouralCues {
		if strings.Contains(q, c) {
			return true
		}
	}
	return false
}
