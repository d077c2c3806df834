package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/judgeworks/interview/internal/interviewer"
)

const rateAnswer = "I would use a token bucket per API key, refilled every second, with the counters in Redis so every instance agrees."

func evaluationWith(evidence string) string {
	return strings.Replace(goodEvaluation, `"evidence":[{"kind":"strength","point":"Named the token bucket","quote":"token bucket per key"}]`, `"evidence":`+evidence, 1)
}

// The reply comes back as the model wrote it; what is stored is what the
// service's check (interviewer.Checked) keeps of it.
func TestMadeUpQuotesAreDropped(t *testing.T) {
	reply := evaluationWith(`[{"kind":"strength","point":"Named the token bucket","quote":"a Token Bucket per API key"},` +
		`{"kind":"strength","point":"Knows sliding windows","quote":"a sliding window log in memory"},` +
		`{"kind":"improvement","point":"Say what happens over the limit","quote":"with the counters in Redis"}]`)
	cs := &chatServer{replies: []string{reply}}
	iv := newInterviewer(t, cs)
	e, err := iv.Evaluate(context.Background(), setup, interviewer.Question{ID: "q1", Text: "Design a rate limiter."}, rateAnswer)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.bodies) != 1 {
		t.Fatalf("%d calls, want 1 (one quote was real)", len(cs.bodies))
	}
	if len(e.Evidence) != 3 {
		t.Fatalf("the reply's evidence was changed: %+v", e.Evidence)
	}
	e = interviewer.Checked(e, rateAnswer)
	if len(e.Evidence) != 2 || e.Evidence[0].Quote != "a token bucket per API key" || e.Evidence[1].Quote != "with the counters in Redis" {
		t.Fatalf("evidence %+v", e.Evidence)
	}
	for _, s := range e.Strengths {
		if s == "Knows sliding windows" {
			t.Error("the point of a made-up quote was added to strengths")
		}
	}
	if e.Improvements[len(e.Improvements)-1] != "Say what happens over the limit" {
		t.Errorf("an evidence point missing from its list is added: %v", e.Improvements)
	}
}

func TestAllQuotesMadeUpRetriesOnce(t *testing.T) {
	madeUp := evaluationWith(`[{"kind":"strength","point":"Named the token bucket","quote":"leaky bucket with a queue"}]`)
	fixed := evaluationWith(`[{"kind":"strength","point":"Named the token bucket","quote":"token bucket per API key"}]`)
	cs := &chatServer{replies: []string{madeUp, fixed}}
	iv := newInterviewer(t, cs)
	e, err := iv.Evaluate(context.Background(), setup, interviewer.Question{ID: "q1", Text: "Design a rate limiter."}, rateAnswer)
	if err != nil || len(cs.bodies) != 2 || len(e.Evidence) != 1 {
		t.Fatalf("err %v, %d calls, evidence %+v", err, len(cs.bodies), e.Evidence)
	}
	_, texts := messages(t, cs.bodies[1])
	if !strings.Contains(texts[len(texts)-1], "no evidence quote occurs in the answer") {
		t.Errorf("the retry does not say why: %q", texts[len(texts)-1])
	}

	// Made up twice: the second reply stands, without its quotes.
	cs = &chatServer{replies: []string{madeUp, madeUp, fixed}}
	iv = newInterviewer(t, cs)
	e, err = iv.Evaluate(context.Background(), setup, interviewer.Question{ID: "q1", Text: "Design a rate limiter."}, rateAnswer)
	if err != nil || len(cs.bodies) != 2 || len(interviewer.Checked(e, rateAnswer).Evidence) != 0 || e.Score != 72 {
		t.Fatalf("err %v, %d calls, %+v", err, len(cs.bodies), e)
	}
}

func TestModelSaysNotScorable(t *testing.T) {
	reply := strings.Replace(goodEvaluation, `"scorable":true`, `"scorable":false`, 1)
	cs := &chatServer{replies: []string{reply}}
	iv := newInterviewer(t, cs)
	e, err := iv.Evaluate(context.Background(), setup, interviewer.Question{ID: "q1", Text: "Design a rate limiter."},
		"My favourite holiday was in Italy, where we ate pasta every single day.")
	if err != nil || e.Scorable {
		t.Fatalf("err %v %+v", err, e)
	}
}

func TestSTAROnlyForBehaviouralQuestions(t *testing.T) {
	reply := strings.Replace(evaluationWith(`[]`), `"star":{"situation":false,"task":false,"action":false,"result":false}`,
		`"star":{"situation":true,"task":false,"action":true,"result":true}`, 1)
	story := "At my last job the release slipped twice, so I split it into smaller parts and we shipped on time."
	for q, want := range map[string]bool{"Tell me about a time a project was late.": true, "Design a rate limiter.": false} {
		cs := &chatServer{replies: []string{reply}}
		e, err := newInterviewer(t, cs).Evaluate(context.Background(), setup, interviewer.Question{ID: "q1", Text: q}, story)
		if err != nil || (e.Star != nil) != want || (want && (!e.Star.Situation || e.Star.Task || !e.Star.Result)) {
			t.Errorf("%q: err %v star %+v", q, err, e.Star)
		}
	}
}

// The model is asked to refuse an answer to another question and to quote
// only what carries a point; what it refuses is stored as not scorable.
func TestAnswerToAnotherQuestionIsNotScored(t *testing.T) {
	reply := `{"scorable":false,"score":0,"technicalAccuracy":0,"communication":0,"feedback":"The answer is about web performance, a different question than the one asked.","strengths":[],"improvements":["Answer the question asked"],"evidence":[],"star":{"situation":false,"task":false,"action":false,"result":false}}`
	cs := &chatServer{replies: []string{reply}}
	iv := newInterviewer(t, cs)
	e, err := iv.Evaluate(context.Background(), setup, interviewer.Question{ID: "q1", Text: "How do CSR, SSR and static generation differ?"},
		"I would measure with Lighthouse, split the bundle into chunks and lazy-load images below the fold.")
	if err != nil || e.Scorable || e.Score != 0 {
		t.Fatalf("%+v %v", e, err)
	}
	sys := cs.requests()[0]["messages"].([]any)[0].(map[string]any)["content"].(string)
	for _, want := range []string{"answers a different question than the one asked", "each evidence quote must carry its point"} {
		if !strings.Contains(sys, want) {
			t.Errorf("the evaluation prompt does not say %q", want)
		}
	}
}
