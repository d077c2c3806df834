package decisions

import (
	"errors"
	"strings"
	"testing"

	"github.com/judgeworks/shared/systemone"
)

func TestParamOf(t *testing.T) {
	for loc, want := range map[string]string{
		"body":                             "",
		"body.input":                       "input",
		"body.questions":                   "questions",
		"body.questions.2.choices.0.value": "questions[2].choices[0].value",
		"body.input.0.content.1":           "input[0].content[1]",
	} {
		if got := Param(strings.Split(loc, ".")); got != want {
			t.Errorf("Param(%s) = %q, want %q", loc, got, want)
		}
	}
}

// FuzzDecodeDecision: any body is either translated into a request the
// engine may be asked or refused with field paths; never a panic, and a
// translation always has one question per answer slot.
func FuzzDecodeDecision(f *testing.F) {
	f.Add([]byte(`{"model": "m", "input": "s", "questions": [{"type": "predicate", "instructions": "i"}]}`))
	f.Add([]byte(`{"model": "m", "input": [{"role": "user", "content": [{"type": "input_json", "data": {"a": 1}}]}],
	  "questions": [{"type": "choice", "name": "c", "instructions": [{"type": "input_text", "text": "x"}],
	                 "choices": [{"value": "a"}, {"value": true, "description": "d"}]},
	                {"type": "score", "instructions": "s", "levels": [{"label": "lo"}, {"label": "hi"}]}]}`))
	f.Add([]byte(`{"input": null, "questions": [null, 1, "x", {"type": "choice", "choices": [{"value": 1}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := Decode(body, MaxQuestions)
		if err != nil {
			var ve *systemone.ValidationError
			if !errors.As(err, &ve) || len(ve.Items) == 0 {
				t.Fatalf("error %v is not a validation error with items", err)
			}
			return
		}
		asked := 0
		for _, q := range d.questions {
			if q.key != "" {
				asked++
				if _, ok := d.Request.Questions[q.key]; !ok {
					t.Fatalf("question %q not in the request", q.key)
				}
			}
		}
		if asked != len(d.Request.Questions) {
			t.Fatalf("%d questions asked, %d in the request", asked, len(d.Request.Questions))
		}
		_ = d.Answer(&systemone.Response{Answers: map[string]systemone.Answer{}})
	})
}
