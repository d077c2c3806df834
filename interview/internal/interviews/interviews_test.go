package interviews

import (
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/interview"
)

func TestValidateSetup(t *testing.T) {
	ok := interview.Setup{CandidateName: " Ada ", Role: "SRE", Experience: "junior", Difficulty: " Hard ", TotalQuestions: 20}
	got, err := ValidateSetup(ok)
	if err != nil || got.CandidateName != "Ada" || got.Difficulty != "hard" {
		t.Fatalf("ValidateSetup = %+v, %v", got, err)
	}
	cases := map[string]func(*interview.Setup){
		"empty name":        func(s *interview.Setup) { s.CandidateName = "" },
		"blank role":        func(s *interview.Setup) { s.Role = " \t" },
		"101 chars":         func(s *interview.Setup) { s.Experience = strings.Repeat("é", 101) },
		"difficulty":        func(s *interview.Setup) { s.Difficulty = "expert" },
		"zero questions":    func(s *interview.Setup) { s.TotalQuestions = 0 },
		"21 questions":      func(s *interview.Setup) { s.TotalQuestions = 21 },
		"negative question": func(s *interview.Setup) { s.TotalQuestions = -1 },
	}
	for name, mutate := range cases {
		s := ok
		mutate(&s)
		if _, err := ValidateSetup(s); !interview.Is(err, interview.Invalid) {
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
	e := clampEvaluation(interview.Evaluation{Score: 140, TechnicalAccuracy: -3, Communication: 55})
	if e.Score != 100 || e.TechnicalAccuracy != 0 || e.Communication != 55 || e.Strengths == nil || e.Improvements == nil {
		t.Fatalf("clamped %+v", e)
	}
}

func TestValidateSetupPractice(t *testing.T) {
	ok := interview.Setup{CandidateName: "Ada", Role: "SRE", Experience: "junior", Difficulty: "easy", TotalQuestions: 3, FollowUps: 2,
		JobDescription: "  - Go\n" + strings.Repeat("é", MaxJobDescription-5) + "  "}
	got, err := ValidateSetup(ok)
	if err != nil || strings.HasPrefix(got.JobDescription, " ") || strings.HasSuffix(got.JobDescription, " ") {
		t.Fatalf("ValidateSetup of a description at the limit: %v", err)
	}
	for _, n := range []int{-1, 3} {
		s := ok
		s.FollowUps = n
		if _, err := ValidateSetup(s); !interview.Is(err, interview.Invalid) {
			t.Errorf("followUps %d: %v", n, err)
		}
	}
	s := ok
	s.JobDescription = strings.Repeat("é", MaxJobDescription+1)
	if _, err := ValidateSetup(s); !interview.Is(err, interview.Unprocessable) {
		t.Errorf("a long description: %v, want unprocessable_entity", err)
	}
	s.JobDescription = "a\x00b"
	if _, err := ValidateSetup(s); !interview.Is(err, interview.Invalid) {
		t.Errorf("NUL: %v", err)
	}
}

func TestCleanRequirements(t *testing.T) {
	in := []string{" Go ", "", "a\x00b", strings.Repeat("x", 200), "4", "5", "6", "7", "8", "9"}
	got := cleanRequirements(in)
	if len(got) != 8 || got[0] != "Go" || got[1] != "ab" || len([]rune(got[2])) != maxRequirementChars {
		t.Fatalf("cleanRequirements = %q", got)
	}
	if got := cleanRequirements(nil); got == nil || len(got) != 0 {
		t.Fatalf("nil gave %q", got)
	}
}

// A wait reads as a person says it, rounded up: "1 second", never
// "1 seconds".
func TestAbout(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "1 second", 300 * time.Millisecond: "1 second", time.Second: "1 second", 1001 * time.Millisecond: "2 seconds",
		25 * time.Second: "25 seconds", 95 * time.Second: "about 2 minutes", 5 * time.Hour: "about 5 hours",
	} {
		if got := about(d); got != want {
			t.Errorf("about(%v) = %q, want %q", d, got, want)
		}
	}
}
