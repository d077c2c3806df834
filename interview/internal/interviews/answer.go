package interviews

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/report"
	"github.com/judgeworks/shared/server"
)

// Get returns the interview for resuming it.
func (s *Service) Get(ctx context.Context, userID, id string) (interview.Interview, error) {
	return s.store.Get(ctx, userID, id)
}

// Answered is the result of Answer; Next is nil after the last question.
type Answered struct {
	Evaluation interview.Evaluation
	Next       *interview.Question
	// AnsweredQuestions is how many main questions are answered now.
	AnsweredQuestions int
}

// checkAnswer trims and checks an answer and the id of its question.
func checkAnswer(questionID, answer string) (string, error) {
	answer = strings.TrimSpace(answer)
	// Postgres text and jsonb cannot hold NUL; refuse it here rather than fail there.
	if answer == "" || utf8.RuneCountInString(answer) > MaxAnswerChars || strings.ContainsRune(answer, 0) {
		return "", interview.Errorf(interview.Invalid, "answer must be 1 to %d characters, without NUL", MaxAnswerChars)
	}
	if questionID == "" || len(questionID) > MaxQuestionID || strings.ContainsRune(questionID, 0) {
		return "", interview.Errorf(interview.Invalid, "questionId is required")
	}
	return answer, nil
}

// Answer evaluates answer to the current question questionID; a spoken
// answer (dictated or recorded) comes with recordingSeconds, its length,
// and its evaluation then carries its delivery. The claim is
// taken before the interviewer is asked anything, so concurrent submits of
// one answer cause one evaluation; the question evaluated is the stored one.
// Once claimed, the work runs to completion under WorkTimeout whether or not
// the client is still there, and its result is stored. What comes next is
// a follow-up on the answer when the setup allows one more and the
// interviewer finds a gap, else the next main question, else nothing.
func (s *Service) Answer(ctx context.Context, userID, id, questionID, answer string, recordingSeconds *float64) (Answered, error) {
	if err := checkRecording(recordingSeconds); err != nil {
		return Answered{}, err
	}
	answer, err := checkAnswer(questionID, answer)
	if err != nil {
		return Answered{}, err
	}
	c, err := s.store.Claim(ctx, userID, id, questionID)
	if err != nil {
		return Answered{}, err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), WorkTimeout)
	defer cancel()
	iv := c.Interview
	earlier := interview.Earlier(iv.Results, *iv.Current)
	// Counted before the work, at most: when a follow-up is asked, the
	// next question it stands in for is not.
	calls := 1
	if len(earlier) < iv.Setup.FollowUps {
		calls++ // the follow-up check
	}
	mains := interview.MainAnswers(append(iv.Results[:len(iv.Results):len(iv.Results)], interview.Result{Question: *iv.Current}))
	if mains < iv.Setup.TotalQuestions {
		calls++ // the next question
	}
	if err := s.spend(ctx, userID, interview.OpAnswer, s.limits.Answer, calls); err != nil {
		s.release(ctx, userID, id, c.Token)
		return Answered{}, err
	}
	res, next, err := s.evaluate(ctx, iv, earlier, answer, recordingSeconds)
	if err != nil {
		s.release(ctx, userID, id, c.Token)
		return Answered{}, err
	}
	err = s.keep(ctx, func(ctx context.Context) error {
		return s.store.Complete(ctx, userID, id, c.Token, res, mains, next)
	})
	switch {
	case err == nil:
		return Answered{Evaluation: res.Evaluation, Next: next, AnsweredQuestions: mains}, nil
	case interview.Is(err, interview.Conflict):
		return Answered{}, err // the claim is no longer ours to release
	}
	return Answered{}, s.unstored(ctx, err, userID, id, c.Token, calls)
}

// keep runs write, which stores a result already paid for, again while
// the database fails (any error that is not an *interview.Error), until
// StoreWait or the work's deadline: an outage shorter than that loses
// nothing.
func (s *Service) keep(ctx context.Context, write func(context.Context) error) error {
	wait := s.limits.StoreWait
	if wait <= 0 {
		wait = DefaultStoreWait
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	pause := 50 * time.Millisecond
	for {
		err := write(ctx)
		var p *interview.Error
		if err == nil || errors.As(err, &p) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
}

// unstored answers an evaluation the database would not store: nothing of
// it was kept, so the user is told to send the answer again, and the claim
// and the calls it spent are given back, now or, while the database is
// still down, as soon as it answers within the claim's lifetime (after
// that the claim lapses by itself).
func (s *Service) unstored(ctx context.Context, err error, userID, id, token string, calls int) error {
	log := server.LoggerFrom(ctx)
	log.Error("evaluation not stored; claim and limits given back", "interview", id, "err", err)
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), interview.ClaimTTL)
		defer cancel()
		// The refund first: once the claim is released the answer may be
		// sent again, and it must find its calls back.
		released, refunded := false, false
		for wait := 50 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
			if !refunded {
				refunded = s.store.Refund(ctx, userID, interview.OpAnswer, s.limits.Answer, calls) == nil
			}
			if refunded {
				released = s.store.Release(ctx, userID, id, token) == nil
			}
			if released {
				return
			}
			select {
			case <-ctx.Done():
				log.Warn("claim or limits not given back; the claim will lapse", "interview", id, "released", released, "refunded", refunded)
				return
			case <-time.After(wait):
			}
		}
	}()
	p := interview.Wrap(err, interview.Unavailable,
		"Your answer was evaluated, but it could not be saved because the database is unavailable. Nothing was recorded and it does not count against your limits. Send the same answer again in a minute.")
	p.RetryAfter = time.Minute
	return p
}

// release gives up a claim so the user can retry at once rather than after
// ClaimTTL. It runs on a context of its own, since the request's may be what
// failed; if it fails too, the claim simply expires.
func (s *Service) release(ctx context.Context, userID, id, token string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.store.Release(rctx, userID, id, token); err != nil {
		server.LoggerFrom(ctx).Warn("claim not released; it will expire", "interview", id, "err", err)
	}
}

// after is what is asked once thread (a main question's result and its
// follow-ups', the last one just evaluated or tried again) is answered: a
// follow-up while the setup allows one more and the interviewer finds a
// gap, else the next main question, else nothing. all is every result.
func (s *Service) after(ctx context.Context, iv interview.Interview, thread, all []interview.Result) (*interview.Question, error) {
	// An answer with nothing to score ("It depends.") is followed up
	// too: a vague answer is exactly what an interviewer probes. One off
	// its question is not: there is nothing of it to probe, and the
	// question it missed is better tried again (a second try) than
	// followed up.
	if len(thread)-1 < iv.Setup.FollowUps && !thread[len(thread)-1].Best().Evaluation.OffTopic {
		f, ok, err := s.iv.FollowUp(ctx, iv.Setup, thread)
		if err != nil {
			return nil, upstream(err)
		}
		if ok {
			main := thread[0].Question
			f.ID = fmt.Sprintf("%s-f%d", main.ID, len(thread))
			f.Kind, f.ParentID = interview.FollowUp, main.ID
			if err := checkQuestion(f); err != nil {
				return nil, err
			}
			return &f, nil
		}
	}
	if interview.MainAnswers(all) >= iv.Setup.TotalQuestions {
		return nil, nil
	}
	done := report.Counted(all)
	next, err := s.iv.Next(ctx, iv.Setup, done)
	if err != nil {
		return nil, upstream(err)
	}
	next.Kind, next.ParentID = interview.Main, ""
	if err := checkQuestion(next); err != nil {
		return nil, err
	}
	for _, r := range all {
		if r.Question.ID == next.ID {
			return nil, interview.Errorf(interview.Upstream, "the interviewer repeated a question id")
		}
	}
	return &next, nil
}

// checkRecording accepts no length (a typed answer) or one of 1 to 3600
// seconds.
func checkRecording(seconds *float64) error {
	if seconds == nil {
		return nil
	}
	if v := *seconds; math.IsNaN(v) || v < interviewer.MinRecordingSeconds || v > interviewer.MaxRecordingSeconds {
		return interview.Errorf(interview.Invalid, "recordingSeconds must be a number from %d to %d", interviewer.MinRecordingSeconds, interviewer.MaxRecordingSeconds)
	}
	return nil
}

func checkQuestion(q interview.Question) error {
	if q.ID == "" || len(q.ID) > MaxQuestionID || strings.TrimSpace(q.Text) == "" {
		return interview.Errorf(interview.Upstream, "the interviewer returned an empty question")
	}
	return nil
}
