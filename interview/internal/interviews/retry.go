package interviews

import (
	"context"
	"slices"

	"github.com/judgeworks/interview"
)

// Retried is the result of Retry.
type Retried struct {
	Evaluation    interview.Evaluation
	PreviousScore int
	// Next is the question being asked after the second try: a follow-up
	// asked on the first try is asked again of the better attempt, so it
	// may change or give way to the next main question.
	Next *interview.Question
}

// Retry evaluates a second try at questionID, the question just evaluated
// (the last answered), once. Both answers are kept; the report counts the
// better. It takes the same claim as an answer, so it is evaluated once and
// never while an answer is, and spends from the same limits: one answer,
// one call.
func (s *Service) Retry(ctx context.Context, userID, id, questionID, answer string) (Retried, error) {
	answer, err := checkAnswer(questionID, answer)
	if err != nil {
		return Retried{}, err
	}
	c, err := s.store.ClaimRetry(ctx, userID, id, questionID)
	if err != nil {
		return Retried{}, err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), WorkTimeout)
	defer cancel()
	iv := c.Interview
	results := iv.Results
	last := len(results) - 1
	first := results[last]
	earlier := interview.Earlier(results[:last], first.Question)
	main := first.Question
	if len(earlier) > 0 {
		main = earlier[0].Question
	}
	// A follow-up asked on the first try is asked again of the better
	// attempt: the second try may have closed the gap it asks about.
	pending := iv.Current != nil && iv.Current.IsFollowUp() && iv.Current.ParentID == main.ID
	calls := 1
	if pending {
		calls += 2 // the follow-up check and the next question it may give way to
	}
	if err := s.spend(ctx, userID, interview.OpAnswer, s.limits.Answer, calls); err != nil {
		s.release(ctx, userID, id, c.Token)
		return Retried{}, err
	}
	ev, err := s.assess(ctx, iv.Setup, first.Question, earlier, answer)
	current := iv.Current
	if err == nil && pending {
		tried := slices.Clone(results)
		tried[last].Retry = &interview.Attempt{Answer: answer, Evaluation: ev}
		current, err = s.after(ctx, iv, append(earlier, tried[last]), tried)
	}
	if err == nil {
		err = s.store.CompleteRetry(ctx, userID, id, c.Token, last, interview.Attempt{Answer: answer, Evaluation: ev}, current)
		if err == nil {
			return Retried{Evaluation: ev, PreviousScore: first.Evaluation.Score, Next: current}, nil
		}
		if interview.Is(err, interview.Conflict) {
			return Retried{}, err
		}
	}
	s.release(ctx, userID, id, c.Token)
	return Retried{}, err
}
