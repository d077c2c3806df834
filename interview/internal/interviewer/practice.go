package interviewer

import "strings"

// Attempt is one answer to a question with its evaluation; a Result's
// Retry is the second.
type Attempt struct {
	Answer     string     `json:"answer"`
	Evaluation Evaluation `json:"evaluation"`
}

// Best is the attempt that counts: the second try when it scored higher
// than the first, else the first.
func (r Result) Best() Attempt {
	if r.Retry != nil && r.Retry.Evaluation.Score > r.Evaluation.Score {
		return *r.Retry
	}
	return Attempt{Answer: r.Answer, Evaluation: r.Evaluation}
}

// Combined is everything the candidate said on a main question: the
// counted answer of each result of thread (the main question's, then its
// follow-ups'), in order, a blank line apart. A follow-up is evaluated
// with its parent by evaluating this against the main question.
func Combined(thread []Result) string {
	parts := make([]string, 0, len(thread))
	for _, r := range thread {
		parts = append(parts, r.Best().Answer)
	}
	return strings.Join(parts, "\n\n")
}
