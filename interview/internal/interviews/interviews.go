// Package interviews runs interview sessions: start, answer with a claim so
// that each answer is evaluated once, finish with a report whose numbers are
// ours, and history. Every operation is scoped to one user.
package interviews

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/problem"
	"github.com/judgeworks/interview/internal/report"
	"github.com/judgeworks/shared/server"
)

// Status values of an interview.
const (
	InProgress = "in_progress"
	Completed  = "completed"
)

// ClaimTTL is how long a claim on the current question is live. An answer
// being evaluated holds the claim; a process that died mid-evaluation leaves
// it behind, and after ClaimTTL the answer may be submitted again.
const ClaimTTL = 2 * time.Minute

// Input limits.
const (
	MaxSetupChars    = 100
	MaxAnswerChars   = 10000
	MaxQuestionID    = 100
	MinQuestions     = 1
	MaxQuestions     = 20
	maxFinishRetries = 5
)

// Difficulties are the accepted difficulty values.
var Difficulties = []string{"easy", "medium", "hard"}

// Interview is one session as stored.
type Interview struct {
	ID          string
	Status      string
	Setup       interviewer.Setup
	Current     *interviewer.Question
	Results     []interviewer.Result
	Report      *report.Report
	CreatedAt   time.Time
	CompletedAt *time.Time
}

// Summary is a completed interview as history lists it.
type Summary struct {
	ID                 string
	Setup              interviewer.Setup
	Answered           int
	OverallScore       int
	TechnicalAccuracy  int
	CommunicationScore int
	CompletedAt        time.Time
}

// Claim is a held claim on an interview's current question.
type Claim struct {
	Token     string
	Interview Interview
}

// Store keeps interviews. Each method is scoped to userID; an interview of
// another user is problem.NotFound, exactly like a missing one.
type Store interface {
	Create(ctx context.Context, userID string, s interviewer.Setup, first interviewer.Question) (string, error)
	Get(ctx context.Context, userID, id string) (Interview, error)
	// Claim takes the claim on question questionID in one conditional
	// update: a live claim (taken after expiredBefore) is problem.Conflict,
	// as is a questionID other than the current one or a completed interview.
	Claim(ctx context.Context, userID, id, questionID string, now, expiredBefore time.Time) (Claim, error)
	// Complete appends r, sets next as the current question (nil after the
	// last) and clears the claim, only if token still holds it; otherwise
	// problem.Conflict.
	Complete(ctx context.Context, userID, id, token string, r interviewer.Result, next *interviewer.Question) error
	// Release clears the claim only if token still holds it.
	Release(ctx context.Context, userID, id, token string) error
	// SaveReport completes the interview with rep only if it still has
	// answered results; it reports whether it did.
	SaveReport(ctx context.Context, userID, id string, answered int, rep report.Report, now time.Time) (bool, error)
	// History lists completed interviews, newest first.
	History(ctx context.Context, userID string) ([]Summary, error)
}

// Service runs interviews.
type Service struct {
	store Store
	iv    interviewer.Interviewer
	now   func() time.Time
}

// NewService returns a Service; now is the clock for claims (nil: time.Now).
func NewService(store Store, iv interviewer.Interviewer, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, iv: iv, now: now}
}

// Mode names the interviewer in use.
func (s *Service) Mode() string { return s.iv.Mode() }

// Started is the result of Start.
type Started struct {
	ID      string
	Welcome string
	First   interviewer.Question
}

// ValidateSetup trims and checks a setup.
func ValidateSetup(in interviewer.Setup) (interviewer.Setup, error) {
	fields := []struct {
		name string
		v    *string
	}{{"candidateName", &in.CandidateName}, {"role", &in.Role}, {"experience", &in.Experience}}
	for _, f := range fields {
		*f.v = strings.TrimSpace(*f.v)
		if *f.v == "" || utf8.RuneCountInString(*f.v) > MaxSetupChars || strings.ContainsRune(*f.v, 0) {
			return in, problem.New(problem.Invalid, "%s must be 1 to %d characters, without NUL", f.name, MaxSetupChars)
		}
	}
	in.Difficulty = strings.ToLower(strings.TrimSpace(in.Difficulty))
	ok := false
	for _, d := range Difficulties {
		ok = ok || in.Difficulty == d
	}
	if !ok {
		return in, problem.New(problem.Invalid, "difficulty must be one of easy, medium, hard")
	}
	if in.TotalQuestions < MinQuestions || in.TotalQuestions > MaxQuestions {
		return in, problem.New(problem.Invalid, "totalQuestions must be between %d and %d", MinQuestions, MaxQuestions)
	}
	return in, nil
}

// Start validates the setup, asks the interviewer for the opening and stores
// the new interview.
func (s *Service) Start(ctx context.Context, userID string, setup interviewer.Setup) (Started, error) {
	setup, err := ValidateSetup(setup)
	if err != nil {
		return Started{}, err
	}
	op, err := s.iv.Open(ctx, setup)
	if err != nil {
		return Started{}, upstream(err)
	}
	if err := checkQuestion(op.Question); err != nil {
		return Started{}, err
	}
	id, err := s.store.Create(ctx, userID, setup, op.Question)
	if err != nil {
		return Started{}, err
	}
	return Started{ID: id, Welcome: op.Welcome, First: op.Question}, nil
}

// Get returns the interview for resuming it.
func (s *Service) Get(ctx context.Context, userID, id string) (Interview, error) {
	return s.store.Get(ctx, userID, id)
}

// Answered is the result of Answer; Next is nil after the last question.
type Answered struct {
	Evaluation interviewer.Evaluation
	Next       *interviewer.Question
}

// Answer evaluates answer to the current question questionID. The claim is
// taken before the interviewer is asked anything, so concurrent submits of
// one answer cause one evaluation; the question evaluated is the stored one.
func (s *Service) Answer(ctx context.Context, userID, id, questionID, answer string) (Answered, error) {
	answer = strings.TrimSpace(answer)
	// Postgres text and jsonb cannot hold NUL; refuse it here rather than fail there.
	if answer == "" || utf8.RuneCountInString(answer) > MaxAnswerChars || strings.ContainsRune(answer, 0) {
		return Answered{}, problem.New(problem.Invalid, "answer must be 1 to %d characters, without NUL", MaxAnswerChars)
	}
	if questionID == "" || len(questionID) > MaxQuestionID || strings.ContainsRune(questionID, 0) {
		return Answered{}, problem.New(problem.Invalid, "questionId is required")
	}
	now := s.now()
	c, err := s.store.Claim(ctx, userID, id, questionID, now, now.Add(-ClaimTTL))
	if err != nil {
		return Answered{}, err
	}
	res, next, err := s.evaluate(ctx, c.Interview, answer)
	if err == nil {
		err = s.store.Complete(ctx, userID, id, c.Token, res, next)
		if err == nil {
			return Answered{Evaluation: res.Evaluation, Next: next}, nil
		}
		if problem.Is(err, problem.Conflict) {
			return Answered{}, err // the claim is no longer ours to release
		}
	}
	s.release(ctx, userID, id, c.Token)
	return Answered{}, err
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

func (s *Service) evaluate(ctx context.Context, iv Interview, answer string) (interviewer.Result, *interviewer.Question, error) {
	q := *iv.Current
	ev, err := s.iv.Evaluate(ctx, iv.Setup, q, answer)
	if err != nil {
		return interviewer.Result{}, nil, upstream(err)
	}
	ev = clampEvaluation(ev)
	res := interviewer.Result{Question: q, Answer: answer, Evaluation: ev}
	done := append(append([]interviewer.Result(nil), iv.Results...), res)
	if len(done) >= iv.Setup.TotalQuestions {
		return res, nil, nil
	}
	next, err := s.iv.Next(ctx, iv.Setup, done)
	if err != nil {
		return interviewer.Result{}, nil, upstream(err)
	}
	if err := checkQuestion(next); err != nil {
		return interviewer.Result{}, nil, err
	}
	for _, r := range done {
		if r.Question.ID == next.ID {
			return interviewer.Result{}, nil, problem.New(problem.Upstream, "the interviewer repeated a question id")
		}
	}
	return res, &next, nil
}

// Finish completes the interview and returns its report. The report is
// stored only if no answer landed while it was being written; otherwise it is
// rebuilt from the new results. A finished interview returns its stored report.
func (s *Service) Finish(ctx context.Context, userID, id string) (report.Report, error) {
	for range maxFinishRetries {
		iv, err := s.store.Get(ctx, userID, id)
		if err != nil {
			return report.Report{}, err
		}
		if iv.Status == Completed && iv.Report != nil {
			return *iv.Report, nil
		}
		if len(iv.Results) == 0 {
			return report.Report{}, problem.New(problem.Conflict, "answer at least one question before finishing")
		}
		sum, err := s.iv.Summarize(ctx, iv.Setup, iv.Results)
		if err != nil {
			return report.Report{}, upstream(err)
		}
		rep := report.Build(iv.Results, sum)
		ok, err := s.store.SaveReport(ctx, userID, id, len(iv.Results), rep, s.now())
		if err != nil {
			return report.Report{}, err
		}
		if ok {
			return rep, nil
		}
	}
	return report.Report{}, problem.New(problem.Conflict, "the interview kept changing while the report was written; try again")
}

// History lists the user's completed interviews, newest first.
func (s *Service) History(ctx context.Context, userID string) ([]Summary, error) {
	return s.store.History(ctx, userID)
}

// upstream marks an interviewer failure as a 502 so the user can retry.
func upstream(err error) error {
	var p *problem.Error
	if errors.As(err, &p) {
		return err
	}
	return problem.Wrap(err, problem.Upstream, "the interviewer failed; please try again")
}

func checkQuestion(q interviewer.Question) error {
	if q.ID == "" || len(q.ID) > MaxQuestionID || strings.TrimSpace(q.Text) == "" {
		return problem.New(problem.Upstream, "the interviewer returned an empty question")
	}
	return nil
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
