package interviews

import (
	"context"

	"github.com/judgeworks/interview/internal/interviewer"
)

// judge evaluates answer to q, given what was answered on q's main
// question before it (thread): a follow-up is judged with its parent, as
// everything said on the main question against the main question. Its
// evidence quotes are checked against what was said.
func (s *Service) judge(ctx context.Context, setup interviewer.Setup, q interviewer.Question, thread []interviewer.Result, answer string) (interviewer.Evaluation, error) {
	if len(thread) > 0 {
		said := append(thread[:len(thread):len(thread)], interviewer.Result{Answer: answer})
		q, answer = thread[0].Question, interviewer.Combined(said)
	}
	ev, err := s.iv.Evaluate(ctx, setup, q, answer)
	if err != nil {
		return interviewer.Evaluation{}, upstream(err)
	}
	return interviewer.Checked(clampEvaluation(ev), answer), nil
}

func (s *Service) evaluate(ctx context.Context, iv Interview, thread []interviewer.Result, answer string, recordingSeconds *float64) (interviewer.Result, *interviewer.Question, error) {
	q := *iv.Current
	ev, err := s.judge(ctx, iv.Setup, q, thread, answer)
	if err != nil {
		return interviewer.Result{}, nil, err
	}
	if recordingSeconds != nil {
		ev.Delivery = interviewer.MeasureDelivery(answer, *recordingSeconds)
	}
	res := interviewer.Result{Question: q, Answer: answer, Evaluation: ev}
	thread = append(thread[:len(thread):len(thread)], res)
	next, err := s.after(ctx, iv, thread, append(iv.Results[:len(iv.Results):len(iv.Results)], res))
	if err != nil {
		return interviewer.Result{}, nil, err
	}
	return res, next, nil
}

// clampEvaluation keeps scores in 0–100 whatever the interviewer returned.
func clampEvaluation(e interviewer.Evaluation) interviewer.Evaluation {
	c := func(v int) int { return min(max(v, 0), 100) }
	e.Score, e.TechnicalAccuracy, e.Communication = c(e.Score), c(e.TechnicalAccuracy), c(e.Communication)
	if e.Strengths == nil {
		e.Strengths = []string{}
	}
	if e.Improvements == nil {
		e.Improvements = []string{}
	}
	return e
}
