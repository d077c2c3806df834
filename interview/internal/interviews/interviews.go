// Package interviews runs interview sessions: start, answer with a claim so
// that each answer is evaluated once, follow-up questions and a second try
// at the question just evaluated, finish with a report whose numbers are
// ours, history, links that share a report, and the per-user limits on the
// model work all of it causes. Every operation but reading a shared report
// is scoped to one user.
package interviews

import (
	"context"
	"errors"
	"time"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer/relevance"
	"github.com/judgeworks/interview/internal/jobdesc"
	"github.com/judgeworks/interview/internal/scorer"
)

// Status values of an interview.
const (
	InProgress = "in_progress"
	Completed  = "completed"
)

// ClaimTTL is how long a claim on the current question is live. An answer
// being evaluated holds the claim; a process that died mid-evaluation leaves
// it behind, and after ClaimTTL the answer may be submitted again. Claims
// are taken and aged with the database's clock, never a replica's.
const ClaimTTL = 2 * time.Minute

// WorkTimeout bounds the model work of one answer (evaluation and next
// question) or one report. It is shorter than ClaimTTL, so an evaluation is
// stored or abandoned while its claim is still its own, and it does not
// depend on the client: work that has begun finishes and is stored even if
// the client disconnects, and a reload shows it.
const WorkTimeout = 90 * time.Second

// History pages: newest first, DefaultPage items unless the client asks
// for up to MaxPage.
const (
	DefaultPage = 20
	MaxPage     = 100
)

// Input limits.
const (
	MaxSetupChars    = 100
	MaxAnswerChars   = 10000
	MaxQuestionID    = 100
	MinQuestions     = 1
	MaxQuestions     = 20
	maxFinishRetries = 5
	// MaxJobDescription bounds a pasted job description, in characters.
	MaxJobDescription = jobdesc.MaxChars
	// MaxFollowUps bounds the follow-ups of one main question;
	// DefaultFollowUps is the setting when a start does not say. The
	// offline interviewer asks one only on a clear gap, so there the
	// default means "none unless an answer clearly lacks something".
	MaxFollowUps     = 2
	DefaultFollowUps = 1
	// maxRequirementChars bounds one requirement an interviewer read from
	// a job description.
	maxRequirementChars = 120
)

// Interview is one session as stored.
type Interview struct {
	ID      string
	Status  string
	Setup   interview.Setup
	Current *interview.Question
	Results []interview.Result
	// Answered is how many main questions Results answer
	// (interview.MainAnswers), as stored with them.
	Answered    int
	Report      *interview.Report
	CreatedAt   time.Time
	CompletedAt *time.Time
	// ClaimLive says an answer holds a live claim: it is being evaluated.
	ClaimLive bool
	// Requirements are the job description's main requirements, read at
	// the start (none without one).
	Requirements []string
	// Shared says a link to the report exists.
	Shared bool
}

// Active is an interview in progress as the list for resuming or
// discarding shows it.
type Active struct {
	ID       string
	Setup    interview.Setup
	Answered int // main questions
	// Asking is false once every question is answered (it awaits finishing).
	Asking bool
	// FollowUp says the question being asked is a follow-up.
	FollowUp  bool
	CreatedAt time.Time
}

// Summary is a completed interview as history lists it.
type Summary struct {
	ID       string
	Setup    interview.Setup
	Answered int // main questions
	// The report's averages; nil when no answer was scored.
	OverallScore       *int
	TechnicalAccuracy  *int
	CommunicationScore *int
	CompletedAt        time.Time
}

// Claim is a held claim on an interview's current question.
type Claim struct {
	Token     string
	Interview Interview
}

// Store keeps interviews. Each method is scoped to userID; an interview of
// another user is interview.NotFound, exactly like a missing one. Times that
// decide anything (claims, completion, limits) are the database's.
type Store interface {
	// Create stores a new interview, with the requirements read from its
	// job description, unless the user already has maxInProgress in
	// progress (0: no cap), which is interview.RateLimited; the count and the
	// insert are serialised per user.
	Create(ctx context.Context, userID string, s interview.Setup, requirements []string, first interview.Question, maxInProgress int) (string, error)
	Get(ctx context.Context, userID, id string) (Interview, error)
	// Claim takes the claim on question questionID in one conditional
	// update: a live claim (younger than ClaimTTL) is interview.Conflict, as
	// is a questionID other than the current one or a completed interview.
	Claim(ctx context.Context, userID, id, questionID string) (Claim, error)
	// Complete appends r, keeps answered as the count of main questions
	// answered, sets next as the current question (nil after the last) and
	// clears the claim, only if token still holds it; otherwise
	// interview.Conflict.
	Complete(ctx context.Context, userID, id, token string, r interview.Result, answered int, next *interview.Question) error
	// ClaimRetry takes the claim for a second try at questionID, which
	// must be the last answered question, not tried twice yet, of an
	// interview in progress without a live claim; otherwise
	// interview.Conflict. The same claim guards answers and second tries.
	ClaimRetry(ctx context.Context, userID, id, questionID string) (Claim, error)
	// CompleteRetry stores a as the second try of result index, sets
	// current as the question being asked (nil after the last) and clears
	// the claim, only if token still holds it and that result has none;
	// otherwise interview.Conflict.
	CompleteRetry(ctx context.Context, userID, id, token string, index int, a interview.Attempt, current *interview.Question) error
	// Release clears the claim only if token still holds it.
	Release(ctx context.Context, userID, id, token string) error
	// SaveReport completes the interview with rep only if it still has
	// answers answers (results plus second tries) and no live claim; it
	// reports whether it did.
	SaveReport(ctx context.Context, userID, id string, answers int, rep interview.Report) (bool, error)
	// History lists completed interviews completed before before (zero:
	// any), newest first, at most limit.
	History(ctx context.Context, userID string, before time.Time, limit int) ([]Summary, error)
	// InProgress lists interviews in progress, newest first, at most limit.
	InProgress(ctx context.Context, userID string, limit int) ([]Active, error)
	// Discard deletes an interview in progress; a completed one is
	// interview.Conflict.
	Discard(ctx context.Context, userID, id string) error
	// Share keeps tokenHash as the one link to a completed interview's
	// report, replacing any earlier link; an interview in progress is
	// interview.Conflict.
	Share(ctx context.Context, userID, id string, tokenHash []byte) error
	// Unshare deletes the interview's link, if any.
	Unshare(ctx context.Context, userID, id string) error
	// SharedInterview returns the completed interview whose link has
	// tokenHash, whoever owns it; interview.NotFound otherwise.
	SharedInterview(ctx context.Context, tokenHash []byte) (Interview, error)
	// Spend takes one token from the user's bucket for op (a zero rate:
	// none) and calls from the user's budget for the day (a zero daily:
	// none), both or neither.
	Spend(ctx context.Context, userID string, op Op, rate Rate, calls, daily int) (Spending, error)
	// Refund gives back what a Spend of op and calls took today.
	Refund(ctx context.Context, userID string, op Op, rate Rate, calls int) error
}

// Service runs interviews.
type Service struct {
	store  Store
	iv     interview.Interviewer
	judge  *scorer.Judge
	limits Limits
	screen func(answer string) string
}

// NewService returns a Service asking iv and holding every user to
// limits. With a judge, answers take their numbers from it; without one
// (nil), from the interviewer.
func NewService(store Store, iv interview.Interviewer, judge *scorer.Judge, limits Limits) *Service {
	return &Service{store: store, iv: iv, judge: judge, limits: limits, screen: Screen}
}

// Screen says why an answer has nothing to judge (relevance.Screen:
// empty, mashed, fewer than three content words), or "". Every answer
// passes it before an interviewer or the judge is asked.
func Screen(answer string) string {
	return relevance.Screen(relevance.Default().Read(answer))
}

// ScreenWith replaces Screen for the answers of s. The service's own tests
// keep Screen; tests of the HTTP flow, whose stand-in interviewer reads
// made-up answers ("attempt A", a row of one letter whose length is its
// score), screen nothing.
func (s *Service) ScreenWith(screen func(answer string) string) *Service {
	s.screen = screen
	return s
}

// Mode names the interviewer in use.
func (s *Service) Mode() string { return s.iv.Mode() }

// MaxInProgress is the cap on a user's interviews in progress at once; 0:
// no cap.
func (s *Service) MaxInProgress() int { return s.limits.MaxInProgress }

// upstream marks an interviewer failure as a 502 so the user can retry.
func upstream(err error) error {
	var p *interview.Error
	if errors.As(err, &p) {
		return err
	}
	return interview.Wrap(err, interview.Upstream, "the interviewer failed; please try again")
}
