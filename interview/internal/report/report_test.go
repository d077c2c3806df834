package report

import (
	"testing"

	"github.com/judgeworks/interview/internal/interviewer"
)

func TestMean(t *testing.T) {
	cases := []struct {
		name   string
		scores []int
		want   int
	}{
		{"none", nil, 0},
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
			if got := Mean(c.scores); got != c.want {
				t.Fatalf("Mean(%v) = %d, want %d", c.scores, got, c.want)
			}
		})
	}
}

func TestBuildUsesOurAverages(t *testing.T) {
	results := []interviewer.Result{
		{Answer: "a", Evaluation: interviewer.Evaluation{Score: 80, TechnicalAccuracy: 90, Communication: 61}},
		{Answer: "b", Evaluation: interviewer.Evaluation{Score: 61, TechnicalAccuracy: 50, Communication: 70}},
	}
	r := Build(results, interviewer.Summary{Feedback: "fine"})
	if r.OverallScore != 71 || r.TechnicalAccuracy != 70 || r.CommunicationScore != 66 {
		t.Fatalf("averages %d/%d/%d, want 71/70/66", r.OverallScore, r.TechnicalAccuracy, r.CommunicationScore)
	}
	if r.Strengths == nil || r.Weaknesses == nil || r.SuggestedTopics == nil || len(r.QuestionResults) != 2 || r.Feedback != "fine" {
		t.Fatalf("report %+v", r)
	}
}
