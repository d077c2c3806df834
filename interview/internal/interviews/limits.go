package interviews

import (
	"context"
	"fmt"
	"time"

	"github.com/judgeworks/interview"
)

// Limits bound each user's model work. Zero fields do not limit.
type Limits struct {
	Start, Answer, Finish interview.Rate
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
// start another at once. Answers (and second tries) refill one every 8
// seconds: a person cannot read a question and answer it faster than
// every 10 seconds for long, so someone answering that fast for as long
// as they practise is never refused, and the burst covers a few quicker
// ones ("I don't know", a second try); a script sending answers back to
// back gets the burst, then one every 8 seconds.
var (
	DefaultStart         = interview.Rate{Burst: 2 * DefaultMaxInProgress, PerHour: 10}
	DefaultAnswer        = interview.Rate{Burst: 10, PerHour: 450}
	DefaultFinish        = interview.Rate{Burst: 5, PerHour: 20}
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

// spend takes the model work of one op from the user's limits, or returns
// the refusal as a sentence for the page with its Retry-After.
func (s *Service) spend(ctx context.Context, userID string, op interview.Op, rate interview.Rate, calls int) error {
	if rate == (interview.Rate{}) && s.limits.DailyCalls == 0 {
		return nil
	}
	sp, err := s.store.Spend(ctx, userID, op, rate, calls, s.limits.DailyCalls)
	if err != nil || sp.OK {
		return err
	}
	wait := max(sp.Wait, time.Second)
	var p *interview.Error
	switch {
	case sp.Daily:
		p = interview.Errorf(interview.RateLimited, "You have used today's %d model calls. They renew at midnight UTC, in %s.", s.limits.DailyCalls, about(wait))
	case op == interview.OpStart:
		p = interview.Errorf(interview.RateLimited, "You have started several interviews in a short time. You can start another in %s.", about(wait))
	case op == interview.OpAnswer:
		p = interview.Errorf(interview.RateLimited, "You have sent many answers in a short time. You can send this one in %s.", about(wait))
	default:
		p = interview.Errorf(interview.RateLimited, "You have asked for many reports in a short time. You can ask for this one in %s.", about(wait))
	}
	p.RetryAfter = wait
	return p
}

// about says a wait as a person would, rounded up.
func about(d time.Duration) string {
	secs := int((d + time.Second - 1) / time.Second)
	switch {
	case secs <= 1:
		return "1 second"
	case secs < 90:
		return fmt.Sprintf("%d seconds", secs)
	case secs < 90*60:
		return fmt.Sprintf("about %d minutes", (secs+59)/60)
	default:
		return fmt.Sprintf("about %d hours", (secs+3599)/3600)
	}
}
