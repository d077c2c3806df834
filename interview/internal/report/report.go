// Package report builds an interview's final report. The numbers are ours:
// averages of the per-answer scores, computed here, never by the interviewer,
// which only writes the prose. An answer that was not scored is left out
// of the averages; an interview with none scored has no scores at all.
package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/jobdesc"
)

// Build returns the report of results with the interviewer's prose and the
// coverage of requirements. Each main question counts once, with the best
// of its evaluations (interview.Outranks): its first answer, its second
// try, and those of its follow-ups (a follow-up's technical accuracy is of
// everything shown on the question so far). An answer off its question is
// scored, so it counts like any other; only one with nothing to score is
// left out. Requirements no answer touched are weaknesses and suggested
// topics, whatever the prose says.
func Build(results []interview.Result, s interview.Summary, requirements []string) interview.Report {
	items := make([]interview.Item, len(results))
	for i, r := range results {
		items[i] = interview.Item{Result: r}
	}
	var overall, tech, comm []int
	chosen := choose(results, interview.Threads(results))
	for _, c := range chosen {
		items[c.index].Counted = c.counted
		e := c.attempt.Evaluation
		if !e.Scorable {
			continue
		}
		overall = append(overall, e.Score)
		tech = append(tech, e.TechnicalAccuracy)
		comm = append(comm, e.Communication)
	}
	r := interview.Report{
		OverallScore:       Mean(overall),
		TechnicalAccuracy:  Mean(tech),
		CommunicationScore: Mean(comm),
		Questions:          interview.MainAnswers(results),
		Scored:             len(overall),
		Strengths:          nonNil(s.Strengths),
		Weaknesses:         nonNil(s.Weaknesses),
		SuggestedTopics:    nonNil(s.SuggestedTopics),
		Feedback:           s.Feedback,
		QuestionResults:    items,
		Requirements:       Coverage(requirements, results),
	}
	var untouched []string
	for _, req := range r.Requirements {
		if len(req.CoveredBy) == 0 {
			untouched = append(untouched, req.Text)
		}
	}
	if len(untouched) > 0 {
		r.Weaknesses = append(r.Weaknesses, fmt.Sprintf("No answer touched %d of the job description's %d requirements: %s.",
			len(untouched), len(r.Requirements), strings.Join(untouched, "; ")))
		topics := slices.Clone(untouched)
		for _, t := range r.SuggestedTopics {
			if !slices.Contains(topics, t) {
				topics = append(topics, t)
			}
		}
		r.SuggestedTopics = topics
	}
	return r
}

// choice is the attempt of a thread that counts: results[index]'s first
// answer or its second try.
type choice struct {
	index   int
	counted string
	attempt interview.Attempt
}

// choose picks the attempt of each thread that counts
// (interview.Outranks: a scored one before one that is not, then the
// higher score, the earliest of equals).
func choose(results []interview.Result, ts []interview.Thread) []choice {
	out := make([]choice, len(ts))
	for k, t := range ts {
		for i := t.Start; i < t.End; i++ {
			r := results[i]
			if i == t.Start || interview.Outranks(r.Evaluation, out[k].attempt.Evaluation) {
				out[k] = choice{i, interview.CountedAnswer, interview.Attempt{Answer: r.Answer, Evaluation: r.Evaluation}}
			}
			if r.Retry != nil && interview.Outranks(r.Retry.Evaluation, out[k].attempt.Evaluation) {
				out[k] = choice{i, interview.CountedRetry, *r.Retry}
			}
		}
	}
	return out
}

// Counted is one result per main question, as the interviewer's summary
// and next question see the interview: the main question with the answer
// and evaluation that count. When a follow-up's counts, the answer is
// everything said on the question up to it, the context it was evaluated
// in.
func Counted(results []interview.Result) []interview.Result {
	ts := interview.Threads(results)
	out := make([]interview.Result, len(ts))
	for k, c := range choose(results, ts) {
		said := append(results[ts[k].Start:c.index:c.index], interview.Result{Answer: c.attempt.Answer})
		out[k] = interview.Result{Question: results[ts[k].Start].Question, Answer: interview.Combined(said), Evaluation: c.attempt.Evaluation}
	}
	return out
}

// Coverage lists each requirement with the questions whose answers cover
// it (jobdesc.Covers): any answer counts, first or second try, main
// question or follow-up.
func Coverage(requirements []string, results []interview.Result) []interview.Requirement {
	answers := make([][]jobdesc.Answer, len(results))
	for i, r := range results {
		answers[i] = []jobdesc.Answer{jobdesc.PrepareAnswer(r.Answer)}
		if r.Retry != nil {
			answers[i] = append(answers[i], jobdesc.PrepareAnswer(r.Retry.Answer))
		}
	}
	out := make([]interview.Requirement, 0, len(requirements))
	for _, text := range requirements {
		req := jobdesc.Prepare(text)
		c := interview.Requirement{Text: text, CoveredBy: []string{}}
		for i, r := range results {
			for _, a := range answers[i] {
				if jobdesc.Covers(req, a) {
					c.CoveredBy = append(c.CoveredBy, r.Question.ID)
					break
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// Mean is the arithmetic mean of scores rounded half up to an integer, each
// score first clamped to 0–100; nil for no scores. It is exact integer
// arithmetic, so 70 and 71 average to 71 on every platform.
func Mean(scores []int) *int {
	if len(scores) == 0 {
		return nil
	}
	sum := 0
	for _, s := range scores {
		sum += min(max(s, 0), 100)
	}
	n := len(scores)
	m := (2*sum + n) / (2 * n)
	return &m
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
