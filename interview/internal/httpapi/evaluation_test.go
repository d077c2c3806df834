package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/judgeworks/interview"
)

// quoting is an interviewer whose evaluations cite the answer, once
// faithfully and once with words the answer never said.
type quoting struct{ interview.Interviewer }

func (q quoting) Evaluate(ctx context.Context, s interview.Setup, qu interview.Question, earlier []interview.Result, answer string) (interview.Evaluation, error) {
	ev, err := q.Interviewer.Evaluate(ctx, s, qu, earlier, answer)
	ev.Evidence = []interview.Evidence{
		{Kind: interview.Strength, Point: "clear", Quote: "a token bucket per key"},
		{Kind: interview.Strength, Point: "names Redis", Quote: "the counters live in Redis"},
	}
	return ev, err
}

const spoken = "Um, I would use a token bucket per key, you know, refilled every second."

func TestSpokenAnswerAndEvidence(t *testing.T) {
	e := newEnvWrapped(t, func(iv interview.Interviewer) interview.Interviewer { return quoting{iv} })
	c := e.signUp()
	s := c.start(2)

	for _, bad := range []any{0, 0.5, 3601, -5, "30", true, []int{30}} {
		body := map[string]any{"sessionId": s.SessionID, "questionId": s.Question.ID, "answer": spoken, "recordingSeconds": bad}
		if code := must(t, c.do("POST", "/api/interview/answer", body), http.StatusBadRequest).errCode(t); code != "invalid_argument" {
			t.Errorf("recordingSeconds %v: code %s", bad, code)
		}
	}

	var a answered
	body := map[string]any{"sessionId": s.SessionID, "questionId": s.Question.ID, "answer": spoken, "recordingSeconds": 6}
	must(t, c.do("POST", "/api/interview/answer", body), http.StatusOK).json(t, &a)
	d := a.Evaluation.Delivery
	if d == nil || d.Seconds != 6 || d.Words != 14 || d.WordsPerMinute != 140 || len(d.Fillers) != 2 {
		t.Fatalf("delivery %+v", d)
	}
	// The made-up quote is dropped by the service, whatever the interviewer.
	if ev := a.Evaluation.Evidence; len(ev) != 1 || ev[0].Quote != "a token bucket per key" {
		t.Fatalf("evidence %+v", ev)
	}

	// A typed answer has no delivery; the stored evaluation keeps both.
	var typed answered
	must(t, c.answer(s.SessionID, a.NextQuestion.ID, "Typed: a token bucket per key and a shared store."), http.StatusOK).json(t, &typed)
	if typed.Evaluation.Delivery != nil {
		t.Fatalf("typed answer with delivery %+v", typed.Evaluation.Delivery)
	}
	var got sessionBody
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &got)
	if r := got.QuestionResults; len(r) != 2 || r[0].Evaluation.Delivery == nil || !r[0].Evaluation.Scorable || len(r[0].Evaluation.Evidence) != 1 {
		t.Fatalf("stored results %+v", r)
	}
}
