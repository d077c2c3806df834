package interviews

import (
	"context"
	"time"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/report"
)

// answers counts what a report is built from: every answer, second tries
// included, so a second try landing while the report is written makes it
// rebuild.
func answers(results []interview.Result) int {
	n := len(results)
	for _, r := range results {
		if r.Retry != nil {
			n++
		}
	}
	return n
}

// Finish completes the interview and returns its report. The report is
// stored only if no answer landed while it was being written; otherwise it is
// rebuilt from the new results. A finished interview returns its stored
// report. While an answer is being evaluated (a live claim) it is 409: the
// report would leave that answer out. The interviewer writes the prose from
// one result per main question, the one that counts.
func (s *Service) Finish(ctx context.Context, userID, id string) (interview.Report, error) {
	// Like an answer's, a report that has begun is written and stored even
	// if the client goes away, so it is not paid for twice.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), WorkTimeout)
	defer cancel()
	spent := false
	for range maxFinishRetries {
		iv, err := s.store.Get(ctx, userID, id)
		if err != nil {
			return interview.Report{}, err
		}
		if iv.Status == interview.Completed && iv.Report != nil {
			return *iv.Report, nil
		}
		if len(iv.Results) == 0 {
			return interview.Report{}, interview.Errorf(interview.Conflict, "answer at least one question before finishing")
		}
		if iv.ClaimLive {
			return interview.Report{}, interview.Errorf(interview.Conflict, "an answer is still being evaluated; finish once its feedback is shown")
		}
		if !spent {
			// One report is one call, however often an answer landing
			// meanwhile makes it rebuild.
			if err := s.spend(ctx, userID, interview.OpFinish, s.limits.Finish, 1); err != nil {
				return interview.Report{}, err
			}
			spent = true
		}
		sum, err := s.iv.Summarize(ctx, iv.Setup, report.Counted(iv.Results))
		if err != nil {
			return interview.Report{}, upstream(err)
		}
		rep := report.Build(iv.Results, sum, iv.Requirements)
		ok, err := s.store.SaveReport(ctx, userID, id, answers(iv.Results), rep)
		if err != nil {
			return interview.Report{}, err
		}
		if ok {
			return rep, nil
		}
	}
	return interview.Report{}, interview.Errorf(interview.Conflict, "the interview kept changing while the report was written; try again")
}

// History lists the user's completed interviews completed before before
// (zero: any), newest first, limit at most (0: DefaultPage).
func (s *Service) History(ctx context.Context, userID string, before time.Time, limit int) ([]interview.HistoryEntry, error) {
	if limit == 0 {
		limit = DefaultPage
	}
	if limit < 1 || limit > MaxPage {
		return nil, interview.Errorf(interview.Invalid, "limit must be 1 to %d", MaxPage)
	}
	return s.store.History(ctx, userID, before, limit)
}

// InProgress lists the user's interviews in progress, newest first.
func (s *Service) InProgress(ctx context.Context, userID string) ([]interview.Active, error) {
	return s.store.InProgress(ctx, userID, MaxPage)
}

// Discard deletes an interview in progress, freeing its slot under the cap.
// A completed interview stays (409): it belongs to the history.
func (s *Service) Discard(ctx context.Context, userID, id string) error {
	return s.store.Discard(ctx, userID, id)
}
