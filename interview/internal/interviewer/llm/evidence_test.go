package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/judgeworks/interview"
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
	e, err := iv.Evaluate(context.Background(), setup, interview.Question{ID: "q1", Text: "Design a rate limiter."}, nil, rateAnswer)
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
	e, err := iv.Evaluate(context.Background(), setup, interview.Question{ID: "q1", Text: "Design a rate limiter."}, nil, rateAnswer)
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
	e, err = iv.Evaluate(context.Background(), setup, interview.Question{ID: "q1", Text: "Design a rate limiter."}, nil, rateAnswer)
	if err != nil || len(cs.bodies) != 2 || len(interviewer.Checked(e, rateAnswer).Evidence) != 0 || e.Score != 72 {
		t.Fatalf("err %v, %d calls, %+v", err, len(cs.bodies), e)
	}
}

// What the model finds not scorable comes back so; the service zeroes it.
func TestModelSaysNotScorable(t *testing.T) {
	reply := strings.Replace(goodEvaluation, `"scorable":true`, `"scorable":false`, 1)
	cs := &chatServer{replies: []string{reply}}
	iv := newInterviewer(t, cs)
	e, err := iv.Evaluate(context.Background(), setup, interview.Question{ID: "q1", Text: "Design a rate limiter."}, nil,
		"uh so the the microphone did not really pick that up")
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
		e, err := newInterviewer(t, cs).Evaluate(context.Background(), setup, interview.Question{ID: "q1", Text: q}, nil, story)
		if err != nil || (e.Star != nil) != want || (want && (!e.Star.Situation || e.Star.Task || !e.Star.Result)) {
			t.Errorf("%q: err %v star %+v", q, err, e.Star)
		}
	}
}

// The model is told that an answer off its question (about something
// else, or another question) is an answer, scored low; its offTopic comes
// back, and the service's check (interviewer.Checked) scores it at most 35
// with nothing credited, whatever numbers the model wrote.
func TestOffTopicAnswerIsScored(t *testing.T) {
	reply := `{"scorable":true,"offTopic":true,"score":70,"technicalAccuracy":80,"communication":60,"feedback":"The answer is about web performance, a different question than the one asked.","strengths":["Names real tools"],"improvements":["Answer the question asked"],"evidence":[{"kind":"strength","point":"Names real tools","quote":"I would measure with Lighthouse"}],"star":{"situation":false,"task":false,"action":false,"result":false}}`
	cs := &chatServer{replies: []string{reply}}
	iv := newInterviewer(t, cs)
	answer := "I would measure with Lighthouse, split the bundle into chunks and lazy-load images below the fold."
	e, err := iv.Evaluate(context.Background(), setup, interview.Question{ID: "q1", Text: "How do CSR, SSR and static generation differ?"}, nil, answer)
	if err != nil || !e.OffTopic {
		t.Fatalf("%+v %v", e, err)
	}
	e = interviewer.Checked(e, answer)
	if !e.Scorable || e.Score != interviewer.MaxOffTopicScore || e.TechnicalAccuracy > interviewer.MaxOffTopicScore ||
		e.Communication > interviewer.MaxOffTopicScore || len(e.Strengths) != 0 || len(e.Evidence) != 0 ||
		!strings.HasPrefix(e.Feedback, interviewer.OffTopicLead) {
		t.Fatalf("stored as %+v", e)
	}
	sys := cs.requests()[0]["messages"].([]any)[0].(map[string]any)["content"].(string)
	for _, want := range []string{"answers a different question than the one asked", "It is still an answer", "at most 35",
		"each evidence quote must carry its point"} {
		if !strings.Contains(sys, want) {
			t.Errorf("the evaluation prompt does not say %q", want)
		}
	}
}

// A follow-up's answer is evaluated as itself: the earlier answers are
// shown apart, as context, and a reply quoting only them is sent back
// like any made-up quote, since every quote must come from the answer
// evaluated.
func TestFollowUpEvaluatesItsOwnAnswer(t *testing.T) {
	main := interview.Result{Question: interview.Question{ID: "q1", Text: "Design a rate limiter."},
		Answer: "I booked the mountain huts four months in advance and we hiked for a week."}
	f := interview.Question{ID: "q1-f1", Text: "Where would you keep the counters?", Kind: interview.FollowUp, ParentID: "q1"}
	fromEarlier := evaluationWith(`[{"kind":"strength","point":"Named the token bucket","quote":"I booked the mountain huts four months in advance"}]`)
	fixed := evaluationWith(`[{"kind":"strength","point":"Named the token bucket","quote":"with the counters in Redis"}]`)
	cs := &chatServer{replies: []string{fromEarlier, fixed}}
	e, err := newInterviewer(t, cs).Evaluate(context.Background(), setup, f, []interview.Result{main}, rateAnswer)
	if err != nil || len(cs.bodies) != 2 {
		t.Fatalf("err %v, %d calls", err, len(cs.bodies))
	}
	if e = interviewer.Checked(e, rateAnswer); len(e.Evidence) != 1 || e.Evidence[0].Quote != "with the counters in Redis" {
		t.Fatalf("evidence %+v", e.Evidence)
	}
	_, texts := messages(t, cs.bodies[0])
	user := texts[1]
	earlier := strings.Index(user, "Earlier answer (context, not to evaluate):\n<candidate_answer>\n"+main.Answer)
	evaluated := strings.Index(user, "The answer to evaluate:\n<candidate_answer>\n"+rateAnswer)
	if earlier < 0 || evaluated < earlier || !strings.Contains(user, "Main question:\n"+main.Question.Text) || !strings.Contains(user, "Follow-up question:\n"+f.Text) {
		t.Fatalf("the follow-up's evaluation shows:\n%s", user)
	}
}
