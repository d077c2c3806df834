package interviews

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/jobdesc"
)

// Started is the result of Start.
type Started struct {
	ID      string
	Welcome string
	First   interview.Question
}

// ValidateSetup trims and checks a setup.
func ValidateSetup(in interview.Setup) (interview.Setup, error) {
	fields := []struct {
		name string
		v    *string
	}{{"candidateName", &in.CandidateName}, {"role", &in.Role}, {"experience", &in.Experience}}
	for _, f := range fields {
		*f.v = strings.TrimSpace(*f.v)
		if *f.v == "" || utf8.RuneCountInString(*f.v) > MaxSetupChars || strings.ContainsRune(*f.v, 0) {
			return in, interview.Errorf(interview.Invalid, "%s must be 1 to %d characters, without NUL", f.name, MaxSetupChars)
		}
	}
	in.Difficulty = strings.ToLower(strings.TrimSpace(in.Difficulty))
	if levels := interview.Difficulties(); !slices.Contains(levels, in.Difficulty) {
		return in, interview.Errorf(interview.Invalid, "difficulty must be one of %s", strings.Join(levels, ", "))
	}
	if in.TotalQuestions < MinQuestions || in.TotalQuestions > MaxQuestions {
		return in, interview.Errorf(interview.Invalid, "totalQuestions must be between %d and %d", MinQuestions, MaxQuestions)
	}
	if in.FollowUps < 0 || in.FollowUps > MaxFollowUps {
		return in, interview.Errorf(interview.Invalid, "followUps must be 0, 1 or 2")
	}
	in.JobDescription = strings.TrimSpace(in.JobDescription)
	if strings.ContainsRune(in.JobDescription, 0) {
		return in, interview.Errorf(interview.Invalid, "jobDescription must not contain NUL")
	}
	if n := utf8.RuneCountInString(in.JobDescription); n > MaxJobDescription {
		return in, interview.Errorf(interview.Unprocessable, "jobDescription is %d characters; paste at most %d (the requirements and responsibilities are enough)", n, MaxJobDescription)
	}
	return in, nil
}

// Start validates the setup, asks the interviewer for the opening (and,
// with a job description, for its requirements) and stores the new
// interview. The cap on interviews in progress is checked before the model
// is asked and enforced again when the interview is stored.
func (s *Service) Start(ctx context.Context, userID string, setup interview.Setup) (Started, error) {
	setup, err := ValidateSetup(setup)
	if err != nil {
		return Started{}, err
	}
	if limit := s.limits.MaxInProgress; limit > 0 {
		open, err := s.store.InProgress(ctx, userID, limit)
		if err != nil {
			return Started{}, err
		}
		if len(open) >= limit {
			return Started{}, interview.AtCap(limit)
		}
	}
	calls := 1
	if setup.JobDescription != "" {
		calls = 2
	}
	if err := s.spend(ctx, userID, interview.OpStart, s.limits.Start, calls); err != nil {
		return Started{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, WorkTimeout)
	defer cancel()
	var (
		op   interview.Opening
		reqs []string
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		op, err = s.iv.Open(gctx, setup)
		return err
	})
	if setup.JobDescription != "" {
		g.Go(func() (err error) {
			reqs, err = s.iv.Requirements(gctx, setup)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return Started{}, upstream(err)
	}
	op.Question.Kind, op.Question.ParentID = interview.Main, ""
	if err := checkQuestion(op.Question); err != nil {
		return Started{}, err
	}
	id, err := s.store.Create(ctx, userID, setup, cleanRequirements(reqs), op.Question, s.limits.MaxInProgress)
	if err != nil {
		return Started{}, err
	}
	return Started{ID: id, Welcome: op.Welcome, First: op.Question}, nil
}

// cleanRequirements keeps what may be stored and shown of an
// interviewer's requirements: trimmed, non-empty, without NUL, at most
// maxRequirementChars each and jobdesc.MaxRequirements in all.
func cleanRequirements(reqs []string) []string {
	out := []string{}
	for _, r := range reqs {
		r = strings.TrimSpace(strings.ReplaceAll(r, "\x00", ""))
		if r == "" {
			continue
		}
		if utf8.RuneCountInString(r) > maxRequirementChars {
			r = string([]rune(r)[:maxRequirementChars-1]) + "…"
		}
		out = append(out, r)
		if len(out) == jobdesc.MaxRequirements {
			break
		}
	}
	return out
}
