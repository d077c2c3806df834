package llm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParsers(t *testing.T) {
	long := strings.Repeat("x", maxQuestionRunes+1)
	cases := []struct {
		name   string
		parse  func(string) error
		in     string
		errHas string // "" means accepted
	}{
		{"opening ok", opening, goodOpening, ""},
		{"opening short question", opening, `{"welcome":"Hi","question":"Why?"}`, "too short"},
		{"opening long question", opening, `{"welcome":"Hi","question":"` + long + `"}`, "too long"},
		{"opening trailing text", opening, goodOpening + " thanks!", "text after"},
		{"question ok", question, goodQuestion, ""},
		{"question array", question, `["What is DNS and how does it work?"]`, "not a JSON object"},
		{"evaluation ok", evaluation, goodEvaluation, ""},
		{"evaluation empty lists", evaluation, `{"scorable":false,"offTopic":false,"score":0,"technicalAccuracy":0,"communication":0,"feedback":"No answer.","strengths":[],"improvements":[],"evidence":[],"star":{"situation":false,"task":false,"action":false,"result":false}}`, ""},
		{"evaluation 9 items", evaluation, strings.Replace(goodEvaluation, `"strengths":["Named the token bucket"]`, `"strengths":["a","b","c","d","e","f","g","h","i"]`, 1), "at most 8"},
		{"evaluation blank item", evaluation, strings.Replace(goodEvaluation, `"strengths":["Named the token bucket"]`, `"strengths":[" "]`, 1), "strengths[0] is empty"},
		{"evaluation without offTopic (the earlier shape)", evaluation, strings.Replace(goodEvaluation, `"offTopic":false,`, "", 1), ""},
		{"evaluation offTopic null", evaluation, strings.Replace(goodEvaluation, `"offTopic":false`, `"offTopic":null`, 1), "null"},
		{"evaluation without scorable", evaluation, strings.Replace(goodEvaluation, `"scorable":true,`, "", 1), "missing field"},
		{"evaluation exponent", evaluation, strings.Replace(goodEvaluation, `"score":72`, `"score":7.2e1`, 1), "wrong field type"},
		{"summary ok", summary, goodSummary, ""},
		{"summary null list", summary, strings.Replace(goodSummary, `"weaknesses":["Distributed state"]`, `"weaknesses":null`, 1), "null"},
		{"top-level null", summary, `null`, "not a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.parse(c.in)
			switch {
			case c.errHas == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)):
				t.Fatalf("err %v, want one mentioning %q", err, c.errHas)
			}
		})
	}
}

func opening(s string) error    { _, err := parseOpening(s); return err }
func question(s string) error   { _, err := parseQuestion(s); return err }
func evaluation(s string) error { _, err := parseEvaluation(s); return err }
func summary(s string) error    { _, err := parseSummary(s); return err }

func TestParsersTrim(t *testing.T) {
	r, err := parseOpening(`{"welcome":"  Hello  ","question":"\n What is a mutex?  "}`)
	if err != nil || r.Welcome != "Hello" || r.Question != "What is a mutex?" {
		t.Fatalf("%+v %v", r, err)
	}
}

func textOK(s string, max int) bool {
	n := utf8.RuneCountInString(s)
	return n > 0 && n <= max && strings.TrimSpace(s) == s
}

func listOK(l []string) bool {
	if l == nil || len(l) > maxItems {
		return false
	}
	for _, s := range l {
		if !textOK(s, maxItemRunes) {
			return false
		}
	}
	return true
}

// Model output is untrusted input: whatever the reply, a parser either
// rejects it or returns values inside every bound.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{goodOpening, goodEvaluation, goodQuestion, goodSummary, `{}`, `null`, `{"score":1e400}`,
		`{"score":-0,"technicalAccuracy":100,"communication":0,"feedback":"x","strengths":[],"improvements":[]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if r, err := parseOpening(s); err == nil {
			if !textOK(r.Welcome, maxWelcomeRunes) || !textOK(r.Question, maxQuestionRunes) || utf8.RuneCountInString(r.Question) < minQuestionRunes {
				t.Fatalf("accepted opening out of bounds: %+v", r)
			}
		}
		if r, err := parseQuestion(s); err == nil && (!textOK(r.Question, maxQuestionRunes) || utf8.RuneCountInString(r.Question) < minQuestionRunes) {
			t.Fatalf("accepted question out of bounds: %+v", r)
		}
		if r, err := parseEvaluation(s); err == nil {
			for _, v := range []int{r.Score, r.TechnicalAccuracy, r.Communication} {
				if v < 0 || v > 100 {
					t.Fatalf("accepted score %d", v)
				}
			}
			if !textOK(r.Feedback, maxFeedbackRunes) || !listOK(r.Strengths) || !listOK(r.Improvements) {
				t.Fatalf("accepted evaluation out of bounds: %+v", r)
			}
		}
		if r, err := parseSummary(s); err == nil {
			if !textOK(r.Feedback, maxReportRunes) || !listOK(r.Strengths) || !listOK(r.Weaknesses) || !listOK(r.SuggestedTopics) {
				t.Fatalf("accepted summary out of bounds: %+v", r)
			}
		}
	})
}
