// Package interviews runs interview sessions: start, answer with a claim so
// that each answer is evaluated once, follow-up questions and a second try
// at the question just evaluated, finish with a report whose numbers are
// ours, history, links that share a report, and the per-user limits on the
// model work all of it causes. Every operation but reading a shared report
// is scoped to one user.
package interviews

import (
	"errors"
	"time"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer/relevance"
	"github.com/judgeworks/interview/internal/jobdesc"
	"github.com/judgeworks/interview/internal/scorer"
)

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

// Service runs interviews.
type Service struct {
	store  interview.InterviewStore
	iv     interview.Interviewer
	judge  *scorer.Judge
	limits Limits
	screen func(answer string) string
}

// NewService returns a Service asking iv and holding every user to
// limits. With a judge, answers take their numbers from it; without one
// (nil), from the interviewer.
func NewService(store interview.InterviewStore, iv interview.Interviewer, judge *scorer.Judge, limits Limits) *Service {
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
