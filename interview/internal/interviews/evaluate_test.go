package interviews

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/interviewer/offline"
	"github.com/judgeworks/interview/internal/judgetest"
	"github.com/judgeworks/interview/internal/scorer"
	"github.com/judgeworks/shared/systemone"
)

// These tests hold the rules of an evaluation (screening, scoring,
// clamping, evidence) where they run: Service.assess, whichever
// interviewer wrote the evaluation.

const judgeKey = "judge-test-key"

var (
	evalSetup  = interview.Setup{CandidateName: "Ada", Role: "Backend engineer", Experience: "5 years", Difficulty: "medium", TotalQuestions: 3}
	evalQ      = interview.Question{ID: "q1", Text: "How does a B-tree index speed up a range query?"}
	answerText = "A B-tree keeps keys sorted, so a range query finds the first key and walks the leaves."
)

// prose is an interviewer that writes fixed prose, its own numbers (which
// a judge's replace, and which are clamped) and evidence, one quote made
// up and one quoted twice.
type prose struct {
	interview.Interviewer
	calls      atomic.Int32
	err        error
	hold       time.Duration
	unscorable bool
}

func (p *prose) Evaluate(ctx context.Context, _ interview.Setup, _ interview.Question, _ []interview.Result, _ string) (interview.Evaluation, error) {
	p.calls.Add(1)
	if p.hold > 0 {
		select {
		case <-time.After(p.hold):
		case <-ctx.Done():
			return interview.Evaluation{}, ctx.Err()
		}
	}
	if p.err != nil {
		return interview.Evaluation{}, p.err
	}
	return interview.Evaluation{Scorable: !p.unscorable, Score: 140, TechnicalAccuracy: -2, Communication: 3, Feedback: "Good structure.",
		Strengths: []string{"names the leaf scan"}, Improvements: []string{"mention fan-out"},
		Evidence: []interview.Evidence{
			{Kind: interview.Strength, Point: "names the leaf scan", Quote: "walks the leaves"},
			{Kind: interview.Strength, Point: "knows hash indexes", Quote: "a hash index cannot range"},
			{Kind: interview.Improvement, Point: "mention fan-out", Quote: "walks the leaves"},
		}}, nil
}

func newJudge(t *testing.T, timeout time.Duration) (*judgetest.Server, *scorer.Judge) {
	t.Helper()
	srv := judgetest.New(judgeKey)
	t.Cleanup(srv.Close)
	return srv, scorer.NewJudge(srv.SystemOneClient(), "local/lexical-latest", timeout)
}

func onehot(i int) []float64 {
	p := make([]float64, systemone.MaxLevels)
	p[i] = 1
	return p
}

// The interviewer's numbers are clamped; its evidence is checked: a made-up
// quote is dropped with its point, a quote stands under one point.
func TestAssessClampsAndChecks(t *testing.T) {
	s := &Service{iv: &prose{}}
	ev, err := s.assess(t.Context(), evalSetup, evalQ, nil, answerText)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Score != 100 || ev.TechnicalAccuracy != 0 || ev.Communication != 3 {
		t.Fatalf("not clamped: %+v", ev)
	}
	if len(ev.Evidence) != 1 || ev.Evidence[0].Quote != "walks the leaves" || ev.Evidence[0].Point != "names the leaf scan" {
		t.Fatalf("evidence not checked: %+v", ev.Evidence)
	}
}

// With a judge, a scorable answer's numbers are the judge's and the prose
// the interviewer's.
func TestAssessTakesTheJudgesNumbers(t *testing.T) {
	srv, j := newJudge(t, 0)
	tech := []float64{0, 0, 0, 0.1, 0.2, 0.4, 0.2, 0.1, 0, 0}
	comm := []float64{0.05, 0.05, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.15, 0.15}
	srv.SetProbabilities(scorer.TechnicalQuestion, tech)
	srv.SetProbabilities(scorer.CommunicationQuestion, comm)
	iv := &prose{}
	ev, err := (&Service{iv: iv, judge: j}).assess(t.Context(), evalSetup, evalQ, nil, answerText)
	if err != nil {
		t.Fatal(err)
	}
	wt, wc := judgetest.Expected(tech), judgetest.Expected(comm)
	if ev.TechnicalAccuracy != wt || ev.Communication != wc || ev.Score != scorer.Overall(wt, wc) {
		t.Fatalf("scores %d/%d/%d, want %d/%d/%d", ev.Score, ev.TechnicalAccuracy, ev.Communication, scorer.Overall(wt, wc), wt, wc)
	}
	if ev.Feedback != "Good structure." || len(ev.Strengths) != 1 || len(ev.Improvements) != 1 || iv.calls.Load() != 1 {
		t.Fatalf("prose lost: %+v", ev)
	}
}

func TestFailuresAreUpstreamAndWhole(t *testing.T) {
	cases := []struct {
		name    string
		arrange func(*judgetest.Server, *prose)
		timeout time.Duration
	}{
		{"judge 500", func(s *judgetest.Server, _ *prose) { s.Fail(http.StatusInternalServerError) }, 0},
		{"judge 401", func(s *judgetest.Server, _ *prose) { s.Fail(http.StatusUnauthorized) }, 0},
		{"judge 422", func(s *judgetest.Server, _ *prose) { s.Fail(http.StatusUnprocessableEntity) }, 0},
		{"judge hangs", func(s *judgetest.Server, _ *prose) { s.Delay(time.Minute) }, 200 * time.Millisecond},
		{"interviewer fails", func(_ *judgetest.Server, p *prose) { p.err = errors.New("model down") }, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, j := newJudge(t, tc.timeout)
			iv := &prose{}
			tc.arrange(srv, iv)
			start := time.Now()
			ev, err := (&Service{iv: iv, judge: j}).assess(t.Context(), evalSetup, evalQ, nil, answerText)
			if err == nil {
				t.Fatalf("no error; evaluation %+v", ev)
			}
			if ev.Feedback != "" || ev.Score != 0 {
				t.Fatalf("partial evaluation returned with the error: %+v", ev)
			}
			if !interview.Is(err, interview.Upstream) {
				t.Fatalf("error %v is not an upstream problem", err)
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("took %v", time.Since(start))
			}
		})
	}
}

// A judge failure cancels the interviewer's evaluation rather than waiting
// for it: the user hears about the failure as soon as it is known.
func TestJudgeFailureCancelsInterviewer(t *testing.T) {
	srv, j := newJudge(t, 0)
	srv.Fail(http.StatusBadRequest) // not retried
	iv := &prose{hold: time.Minute}
	start := time.Now()
	if _, err := (&Service{iv: iv, judge: j}).assess(t.Context(), evalSetup, evalQ, nil, answerText); !interview.Is(err, interview.Upstream) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("waited %v for the interviewer", d)
	}
}

// An answer with nothing to judge is screened before anyone is asked, in
// every mode; one the interviewer finds not scorable keeps its scores of 0
// whatever the judge says.
func TestNothingToScore(t *testing.T) {
	srv, j := newJudge(t, 0)
	for _, c := range []struct{ answer, reason string }{
		{"", "no answer"},
		{"   ", "no answer"},
		{"I like pizza", "too short"},
		{"I don't know, sorry.", "too short"},
		{"asdkjh qwe zxcmnb", "not made of words"},
	} {
		iv := &prose{}
		ev, err := (&Service{iv: iv, judge: j}).assess(t.Context(), evalSetup, evalQ, nil, c.answer)
		if err != nil || ev.Scorable || ev.Score != 0 || len(ev.Strengths) != 0 || len(ev.Evidence) != 0 ||
			!strings.Contains(ev.Feedback, c.reason) || iv.calls.Load() != 0 || len(srv.Requests()) != 0 {
			t.Fatalf("%q: err %v %+v, interviewer calls %d, judge calls %d", c.answer, err, ev, iv.calls.Load(), len(srv.Requests()))
		}
	}

	srv.SetProbabilities(scorer.TechnicalQuestion, onehot(9))
	iv := &prose{unscorable: true}
	ev, err := (&Service{iv: iv, judge: j}).assess(t.Context(), evalSetup, evalQ, nil, "My favourite holiday was in Italy, where we ate pasta every day.")
	if err != nil || ev.Scorable || ev.Score != 0 || ev.TechnicalAccuracy != 0 || ev.Communication != 0 || len(ev.Strengths) != 0 {
		t.Fatalf("err %v %+v", err, ev)
	}
}

// The offline interviewer, behind the service: what the screen refuses is
// not scored and says why; what the bank finds off its question is
// scored, at most 35, crediting nothing, and says so.
func TestOfflineNotEnoughToScore(t *testing.T) {
	s := &Service{iv: offline.New()}
	ids := []string{"backend-medium-02", "frontend-easy-04", "product-management-easy-03"}
	for _, c := range []struct{ answer, reason string }{
		{"", "no answer"},
		{"I like pizza", "too short"},
		{"asdkjh qwe zxcmnb", "not made of words"},
		{"asdf qwer zxcv lorem ipsum blah blah blah", "not made of words"},
		{"I don't know, sorry.", "too short"},
	} {
		for _, id := range ids {
			e, err := s.assess(t.Context(), interview.Setup{}, interview.Question{ID: id}, nil, c.answer)
			if err != nil || e.Scorable || e.OffTopic || e.Score != 0 || len(e.Strengths) != 0 || len(e.Evidence) != 0 || !strings.Contains(e.Feedback, c.reason) {
				t.Errorf("%s %q: %v %+v", id, c.answer, err, e)
			}
		}
	}
	for _, answer := range []string{
		"My favourite holiday was in Italy, where we ate a lot of pasta and visited old churches with my family.",
		hiking,
	} {
		for _, id := range ids {
			e, err := s.assess(t.Context(), interview.Setup{}, interview.Question{ID: id}, nil, answer)
			if err != nil || !e.Scorable || !e.OffTopic || e.Score > interviewer.MaxOffTopicScore || len(e.Strengths) != 0 ||
				!strings.HasPrefix(e.Feedback, interviewer.OffTopicLead) {
				t.Errorf("%s %q: %v %+v", id, answer, err, e)
			}
		}
	}
	// A terse answer that names the point is scored, not refused.
	if e, err := s.assess(t.Context(), interview.Setup{}, interview.Question{ID: "backend-medium-02"}, nil, "idempotency key retry"); err != nil || !e.Scorable {
		t.Errorf("keywords refused: %v %+v", err, e)
	}
}

// hiking is about a hiking trip, and no question's answer.
const hiking = "Last summer I hiked the Tour du Mont Blanc with two friends. I booked the mountain huts four months in advance " +
	"because they fill up quickly, and we walked about twenty kilometres a day. The views from the Col de la Seigne were the best part."

// An answer the interviewer finds off its question is scored whoever
// gives the numbers: the judge's high scores are held to 35, and nothing
// is credited.
func TestOffTopicWithTheJudge(t *testing.T) {
	srv, j := newJudge(t, 0)
	srv.SetProbabilities(scorer.TechnicalQuestion, onehot(9))
	srv.SetProbabilities(scorer.CommunicationQuestion, onehot(9))
	s := &Service{iv: offline.New(), judge: j}
	e, err := s.assess(t.Context(), evalSetup, interview.Question{ID: "backend-medium-01", Text: "How would you design a rate limiter for a public API?"}, nil, hiking)
	if err != nil || !e.Scorable || !e.OffTopic || len(srv.Requests()) != 1 {
		t.Fatalf("err %v %+v, %d judge calls", err, e, len(srv.Requests()))
	}
	if e.Score != interviewer.MaxOffTopicScore || e.TechnicalAccuracy != interviewer.MaxOffTopicScore ||
		e.Communication != interviewer.MaxOffTopicScore || len(e.Strengths) != 0 || len(e.Evidence) != 0 {
		t.Fatalf("an off-topic answer stored as %+v", e)
	}
}
