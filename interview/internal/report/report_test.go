package report

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer"
)

func TestMean(t *testing.T) {
	cases := []struct {
		name   string
		scores []int
		want   int
	}{
		{"none", nil, -1},
		{"one", []int{73}, 73},
		{"half rounds up", []int{70, 71}, 71},
		{"below half rounds down", []int{70, 70, 71}, 70},
		{"above half rounds up", []int{70, 71, 71}, 71},
		// Unclamped these would average 70 and 120: each case fails if a
		// score is not clamped before it is summed.
		{"clamped", []int{-40, 150, 100}, 67},
		{"clamped high", []int{150, 90}, 95},
		{"all max", []int{100, 100, 100}, 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := orNone(Mean(c.scores)); got != c.want {
				t.Fatalf("Mean(%v) = %d, want %d", c.scores, got, c.want)
			}
		})
	}
}

// orNone is *p, or -1 for no score.
func orNone(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func TestBuildUsesOurAverages(t *testing.T) {
	results := []interview.Result{
		{Answer: "a", Evaluation: interview.Evaluation{Scorable: true, Score: 80, TechnicalAccuracy: 90, Communication: 61}},
		{Answer: "b", Evaluation: interview.Evaluation{Scorable: true, Score: 61, TechnicalAccuracy: 50, Communication: 70}},
	}
	r := Build(results, interview.Summary{Feedback: "fine"}, nil)
	if orNone(r.OverallScore) != 71 || orNone(r.TechnicalAccuracy) != 70 || orNone(r.CommunicationScore) != 66 {
		t.Fatalf("averages %v/%v/%v, want 71/70/66", r.OverallScore, r.TechnicalAccuracy, r.CommunicationScore)
	}
	if r.Strengths == nil || r.Weaknesses == nil || r.SuggestedTopics == nil || r.Requirements == nil || len(r.QuestionResults) != 2 || r.Feedback != "fine" {
		t.Fatalf("report %+v", r)
	}
}

func ev(score int) interview.Evaluation {
	return interview.Evaluation{Scorable: true, Score: score, TechnicalAccuracy: score - 10, Communication: score + 10}
}

func main(id string, score int) interview.Result {
	return interview.Result{Question: interview.Question{ID: id, Text: id + "?", Kind: interview.Main}, Answer: id + " answer", Evaluation: ev(score)}
}

func followUp(id, parent string, score int) interview.Result {
	return interview.Result{Question: interview.Question{ID: id, Text: id + "?", Kind: interview.FollowUp, ParentID: parent}, Answer: id + " answer", Evaluation: ev(score)}
}

func withRetry(r interview.Result, score int) interview.Result {
	r.Retry = &interview.Attempt{Answer: r.Question.ID + " second try", Evaluation: ev(score)}
	return r
}

func TestEachMainQuestionCountsOnceWithItsBest(t *testing.T) {
	results := []interview.Result{
		withRetry(main("q1", 40), 70), // the second try counts: 70
		main("q2", 50),
		followUp("q2-f1", "q2", 80),   // the follow-up's evaluation of q2 counts: 80
		withRetry(main("q3", 60), 30), // the first answer counts: 60
		main("q4", 55),
		followUp("q4-f1", "q4", 55), // a tie: the main answer counts
	}
	r := Build(results, interview.Summary{}, nil)
	// (70 + 80 + 60 + 55) / 4 = 66.25; technical and communication follow
	// the same picks, 10 below and above.
	if orNone(r.OverallScore) != 66 || orNone(r.TechnicalAccuracy) != 56 || orNone(r.CommunicationScore) != 76 {
		t.Fatalf("averages %v/%v/%v, want 66/56/76", r.OverallScore, r.TechnicalAccuracy, r.CommunicationScore)
	}
	var counted []string
	for _, it := range r.QuestionResults {
		counted = append(counted, it.Counted)
	}
	want := []string{interview.CountedRetry, "", interview.CountedAnswer, interview.CountedAnswer, interview.CountedAnswer, ""}
	if !slices.Equal(counted, want) {
		t.Fatalf("counted %q, want %q", counted, want)
	}
	if r.QuestionResults[0].Retry == nil || r.QuestionResults[0].Retry.Answer != "q1 second try" {
		t.Fatalf("the second try is not kept: %+v", r.QuestionResults[0])
	}
}

func TestCountedViewForTheInterviewer(t *testing.T) {
	results := []interview.Result{
		withRetry(main("q1", 40), 70),
		followUp("q1-f1", "q1", 90),
		main("q2", 50),
		followUp("q9-f1", "q9", 20), // its parent is missing: it counts alone
	}
	got := Counted(results)
	if len(got) != 3 {
		t.Fatalf("%d counted results, want 3", len(got))
	}
	// q1: the follow-up counted, so the answer is everything said: q1's
	// better try, then the follow-up's answer.
	if got[0].Question.ID != "q1" || got[0].Evaluation.Score != 90 || got[0].Answer != "q1 second try\n\nq1-f1 answer" {
		t.Fatalf("q1 counted as %+v", got[0])
	}
	if got[1].Question.ID != "q2" || got[1].Answer != "q2 answer" || got[1].Evaluation.Score != 50 {
		t.Fatalf("q2 counted as %+v", got[1])
	}
	if got[2].Question.ID != "q9-f1" || got[2].Evaluation.Score != 20 {
		t.Fatalf("orphan follow-up counted as %+v", got[2])
	}
}

func TestCoverage(t *testing.T) {
	results := []interview.Result{
		{Question: interview.Question{ID: "q1"}, Answer: "I tuned slow queries in Postgres with indexes and EXPLAIN ANALYZE."},
		{Question: interview.Question{ID: "q2"}, Answer: "It depends.",
			Retry: &interview.Attempt{Answer: "We ran the services on a kubernetes cluster with helm charts and autoscaling."}},
	}
	got := Coverage([]string{"PostgreSQL query optimisation", "Kubernetes operations", "Mentoring junior engineers"}, results)
	want := [][]string{{"q1"}, {"q2"}, {}}
	if len(got) != 3 {
		t.Fatalf("coverage %+v", got)
	}
	for i, c := range got {
		if !slices.Equal(c.CoveredBy, want[i]) || c.CoveredBy == nil {
			t.Errorf("%q covered by %q, want %q", c.Text, c.CoveredBy, want[i])
		}
	}
}

// Answers that were not scored are left out of the averages; with none
// scored there are no scores, not zeros.
func TestUnscoredAnswersAreNotZeros(t *testing.T) {
	gibberish := main("q2", 0)
	gibberish.Evaluation = interviewer.NotScorable("the answer is not made of words we recognise.")
	r := Build([]interview.Result{main("q1", 70), gibberish, main("q3", 80)}, interview.Summary{}, nil)
	if orNone(r.OverallScore) != 75 || orNone(r.TechnicalAccuracy) != 65 || orNone(r.CommunicationScore) != 85 || r.Scored != 2 || r.Questions != 3 {
		t.Fatalf("averages %v/%v/%v over %d of %d, want 75/65/85 over 2 of 3", r.OverallScore, r.TechnicalAccuracy, r.CommunicationScore, r.Scored, r.Questions)
	}
	// A second try that was scored counts over a first that was not.
	tried := gibberish
	tried.Retry = &interview.Attempt{Answer: "better", Evaluation: ev(40)}
	if r := Build([]interview.Result{tried}, interview.Summary{}, nil); orNone(r.OverallScore) != 40 || r.QuestionResults[0].Counted != interview.CountedRetry {
		t.Fatalf("scored second try: %v %q", r.OverallScore, r.QuestionResults[0].Counted)
	}
	none := Build([]interview.Result{gibberish}, interview.Summary{}, nil)
	if none.OverallScore != nil || none.TechnicalAccuracy != nil || none.CommunicationScore != nil || none.Scored != 0 {
		t.Fatalf("nothing scored: %+v", none)
	}
	raw, _ := json.Marshal(none)
	if !strings.Contains(string(raw), `"overallScore":null`) {
		t.Fatalf("JSON %s", raw)
	}
}

// Requirements of the job description that no answer touched are
// weaknesses and suggested topics, whatever the interviewer's prose says.
func TestUntouchedRequirementsAreWeaknesses(t *testing.T) {
	results := []interview.Result{{Question: interview.Question{ID: "q1", Kind: interview.Main},
		Answer: "I designed REST APIs in Go with careful error handling.", Evaluation: ev(80)}}
	reqs := []string{"Design REST APIs in Go", "Kubernetes operations", "PostgreSQL query optimisation"}
	r := Build(results, interview.Summary{Weaknesses: []string{}, SuggestedTopics: []string{"Caching"}}, reqs)
	if len(r.Weaknesses) != 1 || !strings.Contains(r.Weaknesses[0], "2 of the job description's 3 requirements") ||
		!strings.Contains(r.Weaknesses[0], "Kubernetes operations") || strings.Contains(r.Weaknesses[0], "REST") {
		t.Fatalf("weaknesses %q", r.Weaknesses)
	}
	if !slices.Equal(r.SuggestedTopics, []string{"Kubernetes operations", "PostgreSQL query optimisation", "Caching"}) {
		t.Fatalf("suggested topics %q", r.SuggestedTopics)
	}
}
