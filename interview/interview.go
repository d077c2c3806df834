// Package interview is the mock-interview service's domain, the centre
// every other package of the service speaks: the nouns (users, an
// interview's setup, its questions, the answers with their evaluations, the
// report), the error type with its codes, and the interfaces the adapters
// around it implement: the stores (package postgres), Google's token
// verifier (package google) and the interviewers (packages llm and offline).
// It imports nothing of the service.
package interview

import (
	"context"
	"time"
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

// Interview is one session as stored.
type Interview struct {
	ID      string
	Status  string
	Setup   Setup
	Current *Question
	Results []Result
	// Answered is how many main questions Results answer
	// (MainAnswers), as stored with them.
	Answered    int
	Report      *Report
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
	Setup    Setup
	Answered int // main questions
	// Asking is false once every question is answered (it awaits finishing).
	Asking bool
	// FollowUp says the question being asked is a follow-up.
	FollowUp  bool
	CreatedAt time.Time
}

// HistoryEntry is a completed interview as history lists it.
type HistoryEntry struct {
	ID       string
	Setup    Setup
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

// InterviewStore keeps interviews. Each method is scoped to userID; an interview of
// another user is NotFound, exactly like a missing one. Times that
// decide anything (claims, completion, limits) are the database's.
type InterviewStore interface {
	// Create stores a new interview, with the requirements read from its
	// job description, unless the user already has maxInProgress in
	// progress (0: no cap), which is RateLimited; the count and the
	// insert are serialised per user.
	Create(ctx context.Context, userID string, s Setup, requirements []string, first Question, maxInProgress int) (string, error)
	Get(ctx context.Context, userID, id string) (Interview, error)
	// Claim takes the claim on question questionID in one conditional
	// update: a live claim (younger than ClaimTTL) is Conflict, as
	// is a questionID other than the current one or a completed interview.
	Claim(ctx context.Context, userID, id, questionID string) (Claim, error)
	// Complete appends r, keeps answered as the count of main questions
	// answered, sets next as the current question (nil after the last) and
	// clears the claim, only if token still holds it; otherwise
	// Conflict.
	Complete(ctx context.Context, userID, id, token string, r Result, answered int, next *Question) error
	// ClaimRetry takes the claim for a second try at questionID, which
	// must be the last answered question, not tried twice yet, of an
	// interview in progress without a live claim; otherwise
	// Conflict. The same claim guards answers and second tries.
	ClaimRetry(ctx context.Context, userID, id, questionID string) (Claim, error)
	// CompleteRetry stores a as the second try of result index, sets
	// current as the question being asked (nil after the last) and clears
	// the claim, only if token still holds it and that result has none;
	// otherwise Conflict.
	CompleteRetry(ctx context.Context, userID, id, token string, index int, a Attempt, current *Question) error
	// Release clears the claim only if token still holds it.
	Release(ctx context.Context, userID, id, token string) error
	// SaveReport completes the interview with rep only if it still has
	// answers answers (results plus second tries) and no live claim; it
	// reports whether it did.
	SaveReport(ctx context.Context, userID, id string, answers int, rep Report) (bool, error)
	// History lists completed interviews completed before before (zero:
	// any), newest first, at most limit.
	History(ctx context.Context, userID string, before time.Time, limit int) ([]HistoryEntry, error)
	// InProgress lists interviews in progress, newest first, at most limit.
	InProgress(ctx context.Context, userID string, limit int) ([]Active, error)
	// Discard deletes an interview in progress; a completed one is
	// Conflict.
	Discard(ctx context.Context, userID, id string) error
	// Share keeps tokenHash as the one link to a completed interview's
	// report, replacing any earlier link; an interview in progress is
	// Conflict.
	Share(ctx context.Context, userID, id string, tokenHash []byte) error
	// Unshare deletes the interview's link, if any.
	Unshare(ctx context.Context, userID, id string) error
	// SharedInterview returns the completed interview whose link has
	// tokenHash, whoever owns it; NotFound otherwise.
	SharedInterview(ctx context.Context, tokenHash []byte) (Interview, error)
	// Spend takes one token from the user's bucket for op (a zero rate:
	// none) and calls from the user's budget for the day (a zero daily:
	// none), both or neither.
	Spend(ctx context.Context, userID string, op Op, rate Rate, calls, daily int) (Spending, error)
	// Refund gives back what a Spend of op and calls took today.
	Refund(ctx context.Context, userID string, op Op, rate Rate, calls int) error
}
