package interviews

import (
	"strings"
	"testing"

	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/problem"
)

func TestValidateSetup(t *testing.T) {
	ok := interviewer.Setup{CandidateName: " Ada ", Role: "SRE", Experience: "junior", Difficulty: " Hard ", TotalQuestions: 20}
	got, err := ValidateSetup(ok)
	if err != nil || got.CandidateName != "Ada" || got.Difficulty != "hard" {
		t.Fatalf("ValidateSetup = %+v, %v", got, err)
	}
	cases := map[string]func(*interviewer.Setup){
		"empty name":        func(s *interviewer.Setup) { s.CandidateName = "" },
		"blank role":        func(s *interviewer.Setup) { s.Role = " \t" },
		"101 chars":         func(s *interviewer.Setup) { s.Experience = strings.Repeat("é", 101) },
		"difficulty":        func(s *interviewer.Setup) { s.Difficulty = "expert" },
		"zero questions":    func(s *interviewer.Setup) { s.TotalQuestions = 0 },
		"21 questions":      func(s *interviewer.Setup) { s.TotalQuestions = 21 },
		"negative question": func(s *interviewer.Setup) { s.TotalQuestions = -1 },
	}
	for name, mutate := range cases {
		s := ok
		mutate(&s)
		if _, err := ValidateSetup(s); !problem.Is(err, problem.Invalid) {
			t.Errorf("%s: %v, want invalid_argument", name, err)
		}
	}
	s := ok
	s.Experience = strings.Repeat("é", 100)
	if _, err := ValidateSetup(s); err != nil {
		t.Errorf("100 characters refused: %v", err)
	}
}

func TestClampEvaluation(t *testing.T) {
	e := clampEvaluation(interviewer.Evaluation{Score: 140, TechnicalAccuracy: -3, Communication: 55})
	if e.Score != 100 || e.TechnicalAccuracy != 0 || e.Communication != 55 || e.Strengths == nil || e.Improvements == nil {
		t.Fatalf("clamped %+v", e)
	}
}
