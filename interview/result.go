package interview

import "strings"

// Result is one answered question as stored in question_results. Retry
// is the candidate's second try at it, if they took one.
type Result struct {
	Question   Question   `json:"question"`
	Answer     string     `json:"answer"`
	Evaluation Evaluation `json:"evaluation"`
	Retry      *Attempt   `json:"retry,omitempty"`
}

// Attempt is one answer to a question with its evaluation; a Result's
// Retry is the second.
type Attempt struct {
	Answer     string     `json:"answer"`
	Evaluation Evaluation `json:"evaluation"`
}

// Outranks reports whether an attempt evaluated a counts before one
// evaluated b: a scored one before one with nothing to score, then the
// higher score. Of equals, the earlier counts. It is the one rule of which
// attempt counts: of a result's two tries (Best), and of a main question's
// evaluations, its follow-ups' included (the report).
func Outranks(a, b Evaluation) bool {
	if a.Scorable != b.Scorable {
		return a.Scorable
	}
	return a.Score > b.Score
}

// Best is the attempt of r that counts: the second try when it outranks
// the first, else the first.
func (r Result) Best() Attempt {
	if r.Retry != nil && Outranks(r.Retry.Evaluation, r.Evaluation) {
		return *r.Retry
	}
	return Attempt{Answer: r.Answer, Evaluation: r.Evaluation}
}

// Thread is a main question's result and its follow-ups', the results
// Start to End (exclusive). A follow-up is asked right after its main
// question or an earlier follow-up of it, so a thread is a run of results.
type Thread struct{ Start, End int }

// Threads cuts results into threads, in order. It is the one grouping of
// follow-ups with their main question. A follow-up whose main question is
// missing (never stored so) counts as a thread of its own.
func Threads(results []Result) []Thread {
	var out []Thread
	for i, r := range results {
		if n := len(out); n > 0 && r.Question.IsFollowUp() && r.Question.ParentID == results[out[n-1].Start].Question.ID {
			out[n-1].End = i + 1
			continue
		}
		out = append(out, Thread{i, i + 1})
	}
	return out
}

// Earlier is what was answered on q's main question before q: for a
// follow-up, its main question's result and the follow-ups' since; nothing
// for a main question (or a follow-up whose main question is missing).
func Earlier(results []Result, q Question) []Result {
	if !q.IsFollowUp() {
		return nil
	}
	for _, t := range Threads(results) {
		if results[t.Start].Question.ID == q.ParentID && !results[t.Start].Question.IsFollowUp() {
			return results[t.Start:t.End:t.End]
		}
	}
	return nil
}

// Combined is everything the candidate said on a main question: the
// counted answer of each result of thread (the main question's, then its
// follow-ups'), in order, a blank line apart. It is context (what a
// follow-up is asked on, what a summary reads), never one answer to judge.
func Combined(thread []Result) string {
	parts := make([]string, 0, len(thread))
	for _, r := range thread {
		parts = append(parts, r.Best().Answer)
	}
	return strings.Join(parts, "\n\n")
}

// MainAnswers is how many main questions results answer: follow-ups do not
// count toward the total. It is the one count of answered questions: the
// store keeps it beside the results (the lists read it from there), the
// API returns it as answeredQuestions and the report as questions.
func MainAnswers(results []Result) int {
	n := 0
	for _, r := range results {
		if !r.Question.IsFollowUp() {
			n++
		}
	}
	return n
}
