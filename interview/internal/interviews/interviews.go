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
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/jobdesc"
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
	// ClaimLive says an answer holds a live claim: it is being evaluated.
	ClaimLive bool
	// Requirements are the job description's main requirements, read at
	// the start (none without one).
	Requirements []string
	// Shared says a link to the report exists.
	Shared bool
}

// MainAnswers is how many main questions have been answered: follow-ups do
// not count toward the total.
func (iv Interview) MainAnswers() int {
	n := 0
	for _, r := range iv.Results {
		if !r.Question.IsFollowUp() {
			n++
		}
	}
	return n
}

// Active is an interview in progress as the list for resuming or
// discarding shows it.
type Active struct {
	ID       string
	Setup    interviewer.Setup
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
	Setup    interviewer.Setup
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
// another user is problem.NotFound, exactly like a missing one. Times that
// decide anything (claims, completion, limits) are the database's.
type Store interface {
	// Create stores a new interview, with the requirements read from its
	// job description, unless the user already has maxInProgress in
	// progress (0: no cap), which is problem.RateLimited; the count and the
	// insert are serialised per user.
	Create(ctx context.Context, userID string, s interviewer.Setup, requirements []string, first interviewer.Question, maxInProgress int) (string, error)
	Get(ctx context.Context, userID, id string) (Interview, error)
	// Claim takes the claim on question questionID in one conditional
	// update: a live claim (younger than ClaimTTL) is problem.Conflict, as
	// is a questionID other than the current one or a completed interview.
	Claim(ctx context.Context, userID, id, questionID string) (Claim, error)
	// Complete appends r, sets next as the current question (nil after the
	// last) and clears the claim, only if token still holds it; otherwise
	// problem.Conflict.
	Complete(ctx context.Context, userID, id, token string, r interviewer.Result, next *interviewer.Question) error
	// ClaimRetry takes the claim for a second try at questionID, which
	// must be the last answered question, not tried twice yet, of an
	// interview in progress without a live claim; otherwise
	// problem.Conflict. The same claim guards answers and second tries.
	ClaimRetry(ctx context.Context, userID, id, questionID string) (Claim, error)
	// CompleteRetry stores a as the second try of result index, sets
	// current as the question being asked (nil after the last) and clears
	// the claim, only if token still holds it and that result has none;
	// otherwise problem.Conflict.
	CompleteRetry(ctx context.Context, userID, id, token string, index int, a interviewer.Attempt, current *interviewer.Question) error
	// Release clears the claim only if token still holds it.
	Release(ctx context.Context, userID, id, token string) error
	// SaveReport completes the interview with rep only if it still has
	// answers answers (results plus second tries) and no live claim; it
	// reports whether it did.
	SaveReport(ctx context.Context, userID, id string, answers int, rep report.Report) (bool, error)
	// History lists completed interviews completed before before (zero:
	// any), newest first, at most limit.
	History(ctx context.Context, userID string, before time.Time, limit int) ([]Summary, error)
	// InProgress lists interviews in progress, newest first, at most limit.
	InProgress(ctx context.Context, userID string, limit int) ([]Active, error)
	// Discard deletes an interview in progress; a completed one is
	// problem.Conflict.
	Discard(ctx context.Context, userID, id string) error
	// Share keeps tokenHash as the one link to a completed interview's
	// report, replacing any earlier link; an interview in progress is
	// problem.Conflict.
	Share(ctx context.Context, userID, id string, tokenHash []byte) error
	// Unshare deletes the interview's link, if any.
	Unshare(ctx context.Context, userID, id string) error
	// SharedInterview returns the completed interview whose link has
	// tokenHash, whoever owns it; problem.NotFound otherwise.
	SharedInterview(ctx context.Context, tokenHash []byte) (Interview, error)
	// Spend takes one token from the user's bucket for op (a zero rate:
	// none) and calls from the user's budget for the day (a zero daily:
	// none), both or neither.
	Spend(ctx context.Context, userID string, op Op, rate Rate, calls, daily int) (Spending, error)
	// Refund gives back what a Spend of op and calls took today.
	Refund(ctx context.Context, userID string, op Op, rate Rate, calls int) error
}

// Op names an operation that costs model work.
type Op string

// The metered operations.
const (
	OpStart  Op = "start"
	OpAnswer Op = "answer"
	OpFinish Op = "finish"
)

// Rate is a token bucket: Burst operations at once, then PerHour an hour.
// The zero Rate does not limit.
type Rate struct {
	Burst   int
	PerHour int
}

// Limits bound each user's model work. Zero fields do not limit.
type Limits struct {
	Start, Answer, Finish Rate
	// DailyCalls is the budget of interviewer calls per UTC day: a start
	// is one (the opening; two with a job description, whose requirements
	// are read too), an answer up to three (evaluation, the follow-up
	// check while the question may still get one, and the next question
	// unless it was the last), a second try one, a report one.
	DailyCalls int
	// MaxInProgress caps the interviews a user has in progress at once.
	MaxInProgress int
	// StoreWait bounds how long an evaluation, once paid for, is kept
	// while the database refuses to store it, its write retried (zero:
	// DefaultStoreWait), and never past the work's deadline.
	StoreWait time.Duration
}

// Default limits: generous for a person practising, tight for a script.
// Starting is the dearest to abuse (each start is an interview row and a
// model call that nobody may ever answer), answering the most frequent.
// The start burst is twice the cap on interviews in progress, so that
// whoever reaches the cap and discards one, as the refusal advises, can
// start another at once.
var (
	DefaultStart         = Rate{Burst: 2 * DefaultMaxInProgress, PerHour: 10}
	DefaultAnswer        = Rate{Burst: 10, PerHour: 60}
	DefaultFinish        = Rate{Burst: 5, PerHour: 20}
	DefaultDailyCalls    = 200
	DefaultMaxInProgress = 3
	// DefaultStoreWait keeps an evaluation through a 30 s database outage
	// and still answers well within the answer route's 90 s.
	DefaultStoreWait = 30 * time.Second
)

// DefaultLimits returns the default limits.
func DefaultLimits() Limits {
	return Limits{Start: DefaultStart, Answer: DefaultAnswer, Finish: DefaultFinish,
		DailyCalls: DefaultDailyCalls, MaxInProgress: DefaultMaxInProgress}
}

// Spending is the outcome of Store.Spend.
type Spending struct {
	OK bool
	// Daily says the day's budget refused (else the bucket); Wait is how
	// long until the same request would pass.
	Daily bool
	Wait  time.Duration
}

// CapRetryAfter is the Retry-After of a refusal at the in-progress cap.
// Nothing frees a slot by itself (the user finishes or discards an
// interview), so it only keeps automatic clients from hammering.
const CapRetryAfter = time.Minute

// Service runs interviews.
type Service struct {
	store  Store
	iv     interviewer.Interviewer
	limits Limits
}

// NewService returns a Service holding every user to limits.
func NewService(store Store, iv interviewer.Interviewer, limits Limits) *Service {
	return &Service{store: store, iv: iv, limits: limits}
}

// Mode names the interviewer in use.
func (s *Service) Mode() string { return s.iv.Mode() }

// MaxInProgress is the cap on a user's interviews in progress at once; 0:
// no cap.
func (s *Service) MaxInProgress() int { return s.limits.MaxInProgress }

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
	if in.FollowUps < 0 || in.FollowUps > MaxFollowUps {
		return in, problem.New(problem.Invalid, "followUps must be 0, 1 or 2")
	}
	in.JobDescription = strings.TrimSpace(in.JobDescription)
	if strings.ContainsRune(in.JobDescription, 0) {
		return in, problem.New(problem.Invalid, "jobDescription must not contain NUL")
	}
	if n := utf8.RuneCountInString(in.JobDescription); n > MaxJobDescription {
		return in, problem.New(problem.Unprocessable, "jobDescription is %d characters; paste at most %d (the requirements and responsibilities are enough)", n, MaxJobDescription)
	}
	return in, nil
}

// Start validates the setup, asks the interviewer for the opening (and,
// with a job description, for its requirements) and stores the new
// interview. The cap on interviews in progress is checked before the model
// is asked and enforced again when the interview is stored.
func (s *Service) Start(ctx context.Context, userID string, setup interviewer.Setup) (Started, error) {
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
			return Started{}, AtCap(limit)
		}
	}
	calls := 1
	if setup.JobDescription != "" {
		calls = 2
	}
	if err := s.spend(ctx, userID, OpStart, s.limits.Start, calls); err != nil {
		return Started{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, WorkTimeout)
	defer cancel()
	var (
		op   interviewer.Opening
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
	op.Question.Kind, op.Question.ParentID = interviewer.Main, ""
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

// AtCap is the refusal to start an interview beyond limit in progress.
func AtCap(limit int) error {
	p := problem.New(problem.RateLimited, "You have %d interviews in progress, the most at once. Finish or discard one to start another.", limit)
	p.RetryAfter = CapRetryAfter
	return p
}

// spend takes the model work of one op from the user's limits, or returns
// the refusal as a sentence for the page with its Retry-After.
func (s *Service) spend(ctx context.Context, userID string, op Op, rate Rate, calls int) error {
	if rate == (Rate{}) && s.limits.DailyCalls == 0 {
		return nil
	}
	sp, err := s.store.Spend(ctx, userID, op, rate, calls, s.limits.DailyCalls)
	if err != nil || sp.OK {
		return err
	}
	wait := max(sp.Wait, time.Second)
	var p *problem.Error
	switch {
	case sp.Daily:
		p = problem.New(problem.RateLimited, "You have used today's %d model calls. They renew at midnight UTC, in %s.", s.limits.DailyCalls, about(wait))
	case op == OpStart:
		p = problem.New(problem.RateLimited, "You have started several interviews in a short time. You can start another in %s.", about(wait))
	case op == OpAnswer:
		p = problem.New(problem.RateLimited, "You have sent many answers in a short time. You can send this one in %s.", about(wait))
	default:
		p = problem.New(problem.RateLimited, "You have asked for many reports in a short time. You can ask for this one in %s.", about(wait))
	}
	p.RetryAfter = wait
	return p
}

// about says a wait as a person would, rounded up.
func about(d time.Duration) string {
	secs := int((d + time.Second - 1) / time.Second)
	switch {
	case secs < 90:
		return fmt.Sprintf("%d seconds", max(secs, 1))
	case secs < 90*60:
		return fmt.Sprintf("about %d minutes", (secs+59)/60)
	default:
		return fmt.Sprintf("about %d hours", (secs+3599)/3600)
	}
}

// Get returns the interview for resuming it.
func (s *Service) Get(ctx context.Context, userID, id string) (Interview, error) {
	return s.store.Get(ctx, userID, id)
}

// Answered is the result of Answer; Next is nil after the last question.
// MainAnswers counts the main questions answered, this answer included.
type Answered struct {
	Evaluation  interviewer.Evaluation
	Next        *interviewer.Question
	MainAnswers int
}

// checkAnswer trims and checks an answer and the id of its question.
func checkAnswer(questionID, answer string) (string, error) {
	answer = strings.TrimSpace(answer)
	// Postgres text and jsonb cannot hold NUL; refuse it here rather than fail there.
	if answer == "" || utf8.RuneCountInString(answer) > MaxAnswerChars || strings.ContainsRune(answer, 0) {
		return "", problem.New(problem.Invalid, "answer must be 1 to %d characters, without NUL", MaxAnswerChars)
	}
	if questionID == "" || len(questionID) > MaxQuestionID || strings.ContainsRune(questionID, 0) {
		return "", problem.New(problem.Invalid, "questionId is required")
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
	thread := threadOf(iv.Results, *iv.Current)
	// Counted before the work, at most: when a follow-up is asked, the
	// next question it stands in for is not.
	calls := 1
	if len(thread) < iv.Setup.FollowUps {
		calls++ // the follow-up check
	}
	mains := iv.MainAnswers()
	if !iv.Current.IsFollowUp() {
		mains++
	}
	if mains < iv.Setup.TotalQuestions {
		calls++ // the next question
	}
	if err := s.spend(ctx, userID, OpAnswer, s.limits.Answer, calls); err != nil {
		s.release(ctx, userID, id, c.Token)
		return Answered{}, err
	}
	res, next, err := s.evaluate(ctx, iv, thread, answer, recordingSeconds)
	if err != nil {
		s.release(ctx, userID, id, c.Token)
		return Answered{}, err
	}
	err = s.keep(ctx, func(ctx context.Context) error {
		return s.store.Complete(ctx, userID, id, c.Token, res, next)
	})
	switch {
	case err == nil:
		return Answered{Evaluation: res.Evaluation, Next: next, MainAnswers: mains}, nil
	case problem.Is(err, problem.Conflict):
		return Answered{}, err // the claim is no longer ours to release
	}
	return Answered{}, s.unstored(ctx, err, userID, id, c.Token, calls)
}

// keep runs write, which stores a result already paid for, again while
// the database fails (any error that is not a problem of ours), until
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
		var p *problem.Error
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
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ClaimTTL)
		defer cancel()
		// The refund first: once the claim is released the answer may be
		// sent again, and it must find its calls back.
		released, refunded := false, false
		for wait := 50 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
			if !refunded {
				refunded = s.store.Refund(ctx, userID, OpAnswer, s.limits.Answer, calls) == nil
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
	p := problem.Wrap(err, problem.Unavailable,
		"Your answer was evaluated, but it could not be saved because the database is unavailable. Nothing was recorded and it does not count against your limits. Send the same answer again in a minute.")
	p.RetryAfter = time.Minute
	return p
}

// threadOf is what has been answered on q's main question before q: for a
// follow-up, its main question's result and the follow-ups' since (they
// come right after it); nothing for a main question.
func threadOf(results []interviewer.Result, q interviewer.Question) []interviewer.Result {
	if !q.IsFollowUp() {
		return nil
	}
	for i, r := range results {
		if r.Question.ID != q.ParentID {
			continue
		}
		end := i + 1
		for end < len(results) && results[end].Question.IsFollowUp() && results[end].Question.ParentID == q.ParentID {
			end++
		}
		return results[i:end:end]
	}
	return nil
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

// after is what is asked once thread (a main question's result and its
// follow-ups', the last one just evaluated or tried again) is answered: a
// follow-up while the setup allows one more and the interviewer finds a
// gap, else the next main question, else nothing. all is every result.
func (s *Service) after(ctx context.Context, iv Interview, thread, all []interviewer.Result) (*interviewer.Question, error) {
	// An answer with nothing to score ("It depends.") is followed up
	// too: a vague answer is exactly what an interviewer probes, and the
	// follow-up's answer is evaluated with it.
	if len(thread)-1 < iv.Setup.FollowUps {
		f, ok, err := s.iv.FollowUp(ctx, iv.Setup, thread)
		if err != nil {
			return nil, upstream(err)
		}
		if ok {
			main := thread[0].Question
			f.ID = fmt.Sprintf("%s-f%d", main.ID, len(thread))
			f.Kind, f.ParentID = interviewer.FollowUp, main.ID
			if err := checkQuestion(f); err != nil {
				return nil, err
			}
			return &f, nil
		}
	}
	done := report.Counted(all)
	if len(done) >= iv.Setup.TotalQuestions {
		return nil, nil
	}
	next, err := s.iv.Next(ctx, iv.Setup, done)
	if err != nil {
		return nil, upstream(err)
	}
	next.Kind, next.ParentID = interviewer.Main, ""
	if err := checkQuestion(next); err != nil {
		return nil, err
	}
	for _, r := range all {
		if r.Question.ID == next.ID {
			return nil, problem.New(problem.Upstream, "the interviewer repeated a question id")
		}
	}
	return &next, nil
}

// Retried is the result of Retry.
type Retried struct {
	Evaluation    interviewer.Evaluation
	PreviousScore int
	// Next is the question being asked after the second try: a follow-up
	// asked on the first try is asked again of the better attempt, so it
	// may change or give way to the next main question.
	Next *interviewer.Question
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
	thread := threadOf(results[:last], first.Question)
	main := first.Question
	if len(thread) > 0 {
		main = thread[0].Question
	}
	// A follow-up asked on the first try is asked again of the better
	// attempt: the second try may have closed the gap it asks about.
	pending := iv.Current != nil && iv.Current.IsFollowUp() && iv.Current.ParentID == main.ID
	calls := 1
	if pending {
		calls += 2 // the follow-up check and the next question it may give way to
	}
	if err := s.spend(ctx, userID, OpAnswer, s.limits.Answer, calls); err != nil {
		s.release(ctx, userID, id, c.Token)
		return Retried{}, err
	}
	ev, err := s.judge(ctx, iv.Setup, first.Question, thread, answer)
	current := iv.Current
	if err == nil && pending {
		tried := slices.Clone(results)
		tried[last].Retry = &interviewer.Attempt{Answer: answer, Evaluation: ev}
		current, err = s.after(ctx, iv, append(thread, tried[last]), tried)
	}
	if err == nil {
		err = s.store.CompleteRetry(ctx, userID, id, c.Token, last, interviewer.Attempt{Answer: answer, Evaluation: ev}, current)
		if err == nil {
			return Retried{Evaluation: ev, PreviousScore: first.Evaluation.Score, Next: current}, nil
		}
		if problem.Is(err, problem.Conflict) {
			return Retried{}, err
		}
	}
	s.release(ctx, userID, id, c.Token)
	return Retried{}, err
}

// answers counts what a report is built from: every answer, second tries
// included, so a second try landing while the report is written makes it
// rebuild.
func answers(results []interviewer.Result) int {
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
func (s *Service) Finish(ctx context.Context, userID, id string) (report.Report, error) {
	// Like an answer's, a report that has begun is written and stored even
	// if the client goes away, so it is not paid for twice.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), WorkTimeout)
	defer cancel()
	spent := false
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
		if iv.ClaimLive {
			return report.Report{}, problem.New(problem.Conflict, "an answer is still being evaluated; finish once its feedback is shown")
		}
		if !spent {
			// One report is one call, however often an answer landing
			// meanwhile makes it rebuild.
			if err := s.spend(ctx, userID, OpFinish, s.limits.Finish, 1); err != nil {
				return report.Report{}, err
			}
			spent = true
		}
		sum, err := s.iv.Summarize(ctx, iv.Setup, report.Counted(iv.Results))
		if err != nil {
			return report.Report{}, upstream(err)
		}
		rep := report.Build(iv.Results, sum, iv.Requirements)
		ok, err := s.store.SaveReport(ctx, userID, id, answers(iv.Results), rep)
		if err != nil {
			return report.Report{}, err
		}
		if ok {
			return rep, nil
		}
	}
	return report.Report{}, problem.New(problem.Conflict, "the interview kept changing while the report was written; try again")
}

// History lists the user's completed interviews completed before before
// (zero: any), newest first, limit at most (0: DefaultPage).
func (s *Service) History(ctx context.Context, userID string, before time.Time, limit int) ([]Summary, error) {
	if limit == 0 {
		limit = DefaultPage
	}
	if limit < 1 || limit > MaxPage {
		return nil, problem.New(problem.Invalid, "limit must be 1 to %d", MaxPage)
	}
	return s.store.History(ctx, userID, before, limit)
}

// InProgress lists the user's interviews in progress, newest first.
func (s *Service) InProgress(ctx context.Context, userID string) ([]Active, error) {
	return s.store.InProgress(ctx, userID, MaxPage)
}

// Discard deletes an interview in progress, freeing its slot under the cap.
// A completed interview stays (409): it belongs to the history.
func (s *Service) Discard(ctx context.Context, userID, id string) error {
	return s.store.Discard(ctx, userID, id)
}

// upstream marks an interviewer failure as a 502 so the user can retry.
func upstream(err error) error {
	var p *problem.Error
	if errors.As(err, &p) {
		return err
	}
	return problem.Wrap(err, problem.Upstream, "the interviewer failed; please try again")
}

// checkRecording accepts no length (a typed answer) or one of 1 to 3600
// seconds.
func checkRecording(seconds *float64) error {
	if seconds == nil {
		return nil
	}
	if v := *seconds; math.IsNaN(v) || v < interviewer.MinRecordingSeconds || v > interviewer.MaxRecordingSeconds {
		return problem.New(problem.Invalid, "recordingSeconds must be a number from %d to %d", interviewer.MinRecordingSeconds, interviewer.MaxRecordingSeconds)
	}
	return nil
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
