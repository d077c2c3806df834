package httpapi

import (
	"testing"
	"unicode/utf8"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviews"
)

// FuzzStartBody feeds arbitrary bodies through the start request's decoding
// and validation: either a clear error or a setup within every bound.
func FuzzStartBody(f *testing.F) {
	f.Add([]byte(`{"candidateName":"A","role":"R","experience":"E","difficulty":"easy","totalQuestions":5}`))
	f.Add([]byte(`{"totalQuestions":1e99}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var s interview.Setup
		if err := decodeJSON(body, &s); err != nil {
			if !interview.Is(err, interview.Invalid) {
				t.Fatalf("decode error %v is not invalid_argument", err)
			}
			return
		}
		v, err := interviews.ValidateSetup(s)
		if err != nil {
			if !interview.Is(err, interview.Invalid) {
				t.Fatalf("validation error %v is not invalid_argument", err)
			}
			return
		}
		for _, f := range []string{v.CandidateName, v.Role, v.Experience} {
			if f == "" || utf8.RuneCountInString(f) > interviews.MaxSetupChars {
				t.Fatalf("accepted field %q", f)
			}
		}
		if v.TotalQuestions < 1 || v.TotalQuestions > 20 || (v.Difficulty != "easy" && v.Difficulty != "medium" && v.Difficulty != "hard") {
			t.Fatalf("accepted %+v", v)
		}
	})
}

func FuzzAnswerBody(f *testing.F) {
	f.Add([]byte(`{"sessionId":"x","questionId":"q1","answer":"a"}`))
	f.Add([]byte(`{"answer":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		// Every bad body is a clear invalid_argument, never a 500.
		var r answerRequest
		if err := decodeJSON(body, &r); err != nil && !interview.Is(err, interview.Invalid) {
			t.Fatalf("decode error %v is not invalid_argument", err)
		}
	})
}
