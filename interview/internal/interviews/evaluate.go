package interviews

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/scorer"
)

// assess evaluates answer, the answer to q, given what was answered on
// q's main question before it (earlier; nothing for a main question). The
// evaluation judges this one answer: earlier answers are its context,
// never judged again, and every quote and figure is of answer alone.
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
//  4. interviewer.Checked: the quotes that occur in the answer, each once;
//     an answer not scorable zeroed, one off its question scored at most
//     interviewer.MaxOffTopicScore and crediting nothing.
func (s *Service) assess(ctx context.Context, setup interview.Setup, q interview.Question, earlier []interview.Result, answer string) (interview.Evaluation, error) {
	screen := s.screen
	if screen == nil { // a Service made in this package's tests
		screen = Screen
	}
	if reason := screen(answer); reason != "" {
		return interviewer.Checked(interviewer.NotScorable(reason), answer), nil
	}
	var (
		ev     interview.Evaluation
		scores scorer.Scores
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		ev, err = s.iv.Evaluate(gctx, setup, q, earlier, answer)
		return err
	})
	if s.judge != nil {
		g.Go(func() (err error) {
			scores, err = s.judge.Score(gctx, setup, q, earlier, answer)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return interview.Evaluation{}, upstream(err)
	}
	if s.judge != nil && (ev.Scorable || ev.OffTopic) {
		ev.TechnicalAccuracy, ev.Communication = scores.TechnicalAccuracy, scores.Communication
		ev.Score = scorer.Overall(scores.TechnicalAccuracy, scores.Communication)
	}
	return interviewer.Checked(clampEvaluation(ev), answer), nil
}

func (s *Service) evaluate(ctx context.Context, iv interview.Interview, earlier []interview.Result, answer string, recordingSeconds *float64) (interview.Result, *interview.Question, error) {
	q := *iv.Current
	ev, err := s.assess(ctx, iv.Setup, q, earlier, answer)
	if err != nil {
		return interview.Result{}, nil, err
	}
	if recordingSeconds != nil {
		ev.Delivery = interviewer.MeasureDelivery(answer, *recordingSeconds)
	}
	res := interview.Result{Question: q, Answer: answer, Evaluation: ev}
	thread := append(earlier[:len(earlier):len(earlier)], res)
	next, err := s.after(ctx, iv, thread, append(iv.Results[:len(iv.Results):len(iv.Results)], res))
	if err != nil {
		return interview.Result{}, nil, err
	}
	return res, next, nil
}

// clampEvaluation keeps scores in 0–100 whatever the interviewer returned.
func clampEvaluation(e interview.Evaluation) interview.Evaluation {
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
