package interviews

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/scorer"
)

// assess evaluates answer to q, given what was answered on q's main
// question before it (thread): a follow-up is judged with its parent, as
// everything said on the main question against the main question.
//
// Every rule an evaluation must satisfy runs here, once, whichever
// interviewer wrote it (the interviewers return their raw judgement):
//  1. screening: an answer with nothing to judge (Screen) is not
//     scorable, and neither the interviewer nor the judge is asked;
//  2. scoring: with a judge, its two scores replace the interviewer's
//     numbers of a scorable answer (scorer.Overall combines them); the
//     interviewer and the judge are asked at once, and if either fails the
//     other is cancelled and nothing half-scored is kept;
//  3. clamping: every score in 0–100;
//  4. evidence: interviewer.Checked keeps the quotes that occur in what was
//     said, each once, and zeroes an evaluation that is not scorable.
func (s *Service) assess(ctx context.Context, setup interviewer.Setup, q interviewer.Question, thread []interviewer.Result, answer string) (interviewer.Evaluation, error) {
	if len(thread) > 0 {
		said := append(thread[:len(thread):len(thread)], interviewer.Result{Answer: answer})
		q, answer = thread[0].Question, interviewer.Combined(said)
	}
	screen := s.screen
	if screen == nil { // a Service made in this package's tests
		screen = Screen
	}
	if reason := screen(answer); reason != "" {
		return interviewer.Checked(interviewer.NotScorable(reason), answer), nil
	}
	var (
		ev     interviewer.Evaluation
		scores scorer.Scores
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		ev, err = s.iv.Evaluate(gctx, setup, q, answer)
		return err
	})
	if s.judge != nil {
		g.Go(func() (err error) {
			scores, err = s.judge.Score(gctx, setup, q, answer)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return interviewer.Evaluation{}, upstream(err)
	}
	if s.judge != nil && ev.Scorable {
		ev.TechnicalAccuracy, ev.Communication = scores.TechnicalAccuracy, scores.Communication
		ev.Score = scorer.Overall(scores.TechnicalAccuracy, scores.Communication)
	}
	return interviewer.Checked(clampEvaluation(ev), answer), nil
}

func (s *Service) evaluate(ctx context.Context, iv Interview, thread []interviewer.Result, answer string, recordingSeconds *float64) (interviewer.Result, *interviewer.Question, error) {
	q := *iv.Current
	ev, err := s.assess(ctx, iv.Setup, q, thread, answer)
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
