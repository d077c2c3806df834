// Package report builds an interview's final report. The numbers are ours:
// averages of the per-answer scores, computed here, never by the interviewer,
// which only writes the prose.
package report

import "github.com/judgeworks/interview/internal/interviewer"

// Report is the body of POST /api/interview/finish.
type Report struct {
	OverallScore       int                  `json:"overallScore"`
	TechnicalAccuracy  int                  `json:"technicalAccuracy"`
	CommunicationScore int                  `json:"communicationScore"`
	Strengths          []string             `json:"strengths"`
	Weaknesses         []string             `json:"weaknesses"`
	SuggestedTopics    []string             `json:"suggestedTopics"`
	Feedback           string               `json:"feedback"`
	QuestionResults    []interviewer.Result `json:"questionResults"`
}

// Build returns the report of results with the interviewer's prose.
func Build(results []interviewer.Result, s interviewer.Summary) Report {
	var overall, tech, comm []int
	for _, r := range results {
		overall = append(overall, r.Evaluation.Score)
		tech = append(tech, r.Evaluation.TechnicalAccuracy)
		comm = append(comm, r.Evaluation.Communication)
	}
	return Report{
		OverallScore:       Mean(overall),
		TechnicalAccuracy:  Mean(tech),
		CommunicationScore: Mean(comm),
		Strengths:          nonNil(s.Strengths),
		Weaknesses:         nonNil(s.Weaknesses),
		SuggestedTopics:    nonNil(s.SuggestedTopics),
		Feedback:           s.Feedback,
		QuestionResults:    nonNil(results),
	}
}

// Mean is the arithmetic mean of scores rounded half up to an integer, each
// score first clamped to 0–100; 0 for no scores. It is exact integer
// arithmetic, so 70 and 71 average to 71 on every platform.
func Mean(scores []int) int {
	if len(scores) == 0 {
		return 0
	}
	sum := 0
	for _, s := range scores {
		sum += min(max(s, 0), 100)
	}
	n := len(scores)
	return (2*sum + n) / (2 * n)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
