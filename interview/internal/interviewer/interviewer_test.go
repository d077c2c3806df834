package interviewer

import (
	"slices"
	"testing"

	"github.com/judgeworks/interview"
)

const answer = "We keep a copy of the result.  The client sends an “idempotency key”\nwith each payment, so a retry is safe."

func TestFindQuote(t *testing.T) {
	cases := []struct {
		quote, want string
		ok          bool
	}{
		{"We keep a copy of the result.", "We keep a copy of the result.", true},
		{"the client SENDS an \"idempotency key\" with each payment", "The client sends an “idempotency key”\nwith each payment", true},
		{"…a retry is safe...", "a retry is safe", true},
		{"result. The client", "result.  The client", true},
		{"the server stores the key", "", false}, // made up
		{"a retry is unsafe", "", false},
		{"so", "", false}, // too short to prove anything
		{"", "", false},
	}
	for _, c := range cases {
		got, ok := FindQuote(answer, c.quote)
		if ok != c.ok || got != c.want {
			t.Errorf("FindQuote(%q) = %q %v, want %q %v", c.quote, got, ok, c.want, c.ok)
		}
	}
}

func TestCheckedDropsUnfoundQuotes(t *testing.T) {
	e := Checked(interview.Evaluation{
		Scorable: true, Score: 70, Strengths: []string{"Explains retries"}, Improvements: []string{},
		Evidence: []interview.Evidence{
			{Kind: interview.Strength, Point: "Explains retries", Quote: "so a retry is safe"},
			{Kind: interview.Strength, Point: "Names the storage", Quote: "we store keys in Redis for a day"},
			{Kind: interview.Improvement, Point: "Say where the copy lives", Quote: "we keep a copy of the result"},
			{Kind: "praise", Point: "x", Quote: "We keep a copy"},
		},
	}, answer)
	if len(e.Evidence) != 2 || e.Evidence[0].Quote != "so a retry is safe" || e.Evidence[1].Quote != "We keep a copy of the result" {
		t.Fatalf("evidence %+v", e.Evidence)
	}
	if slices.Contains(e.Strengths, "Names the storage") || !slices.Contains(e.Improvements, "Say where the copy lives") {
		t.Errorf("lists %v / %v", e.Strengths, e.Improvements)
	}
}

func TestCheckedNotScorable(t *testing.T) {
	e := Checked(interview.Evaluation{Scorable: false, Score: 40, TechnicalAccuracy: 30, Communication: 60, Strengths: []string{"invented"},
		Evidence: []interview.Evidence{{Kind: interview.Strength, Point: "invented", Quote: "We keep a copy"}}}, answer)
	if e.Score != 0 || e.TechnicalAccuracy != 0 || e.Communication != 0 || len(e.Strengths) != 0 || len(e.Evidence) != 0 {
		t.Fatalf("%+v", e)
	}
}

func TestBehavioural(t *testing.T) {
	for q, want := range map[string]bool{
		"Tell me about a time you disagreed with a teammate.":        true,
		"Describe a situation where a project slipped.":              true,
		"Give an example of a time you had to learn something fast.": true,
		"What is the difference between GET and POST?":               false,
		"How would you design a rate limiter?":                       false,
	} {
		if Behavioural(q) != want {
			t.Errorf("Behavioural(%q) = %v", q, !want)
		}
	}
}

func TestMeasureDelivery(t *testing.T) {
	d := MeasureDelivery("So, um, I think, like, caching is, you know, similar to a copy. Uh I like caches.", 10)
	if d.Words != 17 || d.WordsPerMinute != 102 || d.Seconds != 10 {
		t.Fatalf("%+v", d)
	}
	count := map[string]int{}
	for _, f := range d.Fillers {
		count[f.Word] = f.Count
	}
	// "I like caches" is not a filler.
	if count["um"] != 1 || count["uh"] != 1 || count["you know"] != 1 || count["like"] != 1 {
		t.Errorf("fillers %v", d.Fillers)
	}
	if d := MeasureDelivery("Short.", 90); d.WordsPerMinute != 1 || len(d.Fillers) != 0 {
		t.Errorf("%+v", d)
	}
}

// A quote stands under one item at most, whoever wrote the evaluation.
func TestCheckedQuotesOnce(t *testing.T) {
	e := Checked(interview.Evaluation{Scorable: true, Evidence: []interview.Evidence{
		{Kind: interview.Strength, Point: "Keeps the result", Quote: "We keep a copy of the result."},
		{Kind: interview.Strength, Point: "Discussed trade-offs", Quote: "we keep a copy of the result"},
		{Kind: interview.Improvement, Point: "Say where the copy lives", Quote: "We keep a copy of the result."},
		{Kind: interview.Strength, Point: "Names the key", Quote: "idempotency key"},
	}}, answer)
	var points []string
	for _, ev := range e.Evidence {
		points = append(points, ev.Point)
	}
	if !slices.Equal(points, []string{"Keeps the result", "Names the key"}) {
		t.Fatalf("evidence %+v", e.Evidence)
	}
	if slices.Contains(e.Strengths, "Discussed trade-offs") {
		t.Fatalf("the point of a repeated quote was added: %v", e.Strengths)
	}
}
