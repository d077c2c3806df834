package limits

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// byteCounter counts one token per byte: a predictable stand-in for the
// token limits, which the real tokenizer is tested against separately.
type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s) }

func validRequest() systemone.Request {
	return systemone.Request{
		Model: "local/lexical-latest",
		State: json.RawMessage(`"the invoice was charged twice"`),
		Questions: map[string]systemone.Question{
			"urgent": {Type: systemone.TypeNoul, Instructions: json.RawMessage(`"urgent?"`)},
			"team": {Type: systemone.TypeChoice, Instructions: json.RawMessage(`"team?"`),
				Options: []systemone.Option{{Name: "billing"}, {Name: "tech"}}},
		},
	}
}

// stateOfTokens is a JSON string state of n tokens under byteCounter.
func stateOfTokens(n int) json.RawMessage {
	return json.RawMessage(`"` + strings.Repeat("a", n) + `"`)
}

func longestQuestion(r systemone.Request) int {
	longest := 0
	for name, q := range r.Questions {
		longest = max(longest, question(byteCounter{}, name, q))
	}
	return longest
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*systemone.Request)
		loc     string // "" means valid
		errType string
	}{
		{"valid", func(*systemone.Request) {}, "", ""},
		{"malformed: shape first", func(r *systemone.Request) { r.Model = "" }, "body.model", "string_too_short"},
		{"state at the limit", func(r *systemone.Request) { r.State = stateOfTokens(MaxStateAndQuestionTokens - longestQuestion(*r)) }, "", ""},
		{"oversize state", func(r *systemone.Request) {
			r.State = stateOfTokens(MaxStateAndQuestionTokens - longestQuestion(*r) + 1)
		}, "body.state", "too_long"},
		{"oversize request", func(r *systemone.Request) {
			// Each question fits with the state; together they do not.
			r.State = stateOfTokens(1000)
			for i := range 5 {
				r.Questions[fmt.Sprint("big", i)] = systemone.Question{Type: systemone.TypeNoul, Instructions: stateOfTokens(13000)}
			}
		}, "body", "too_long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRequest()
			tt.edit(&r)
			n, err := Check(r, byteCounter{})
			if tt.loc == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				if want := Count(r, byteCounter{}); n != want {
					t.Fatalf("Check counted %d tokens, Count %d", n, want)
				}
				return
			}
			ve, ok := err.(*systemone.ValidationError)
			if !ok || len(ve.Items) != 1 || strings.Join(ve.Items[0].Loc, ".") != tt.loc || ve.Items[0].Type != tt.errType {
				t.Fatalf("Check = %v, want one item at %s of type %s", err, tt.loc, tt.errType)
			}
		})
	}
}

func TestCheckRealTokenizer(t *testing.T) {
	// About 1.1 tokens per word with the default tokenizer: 40,000 words
	// exceed 32,000 tokens although they would pass a words-as-tokens count.
	r := validRequest()
	r.State, _ = json.Marshal(strings.Repeat("refund ", 40_000))
	if _, err := Check(r, tokens.Default()); err == nil || !strings.Contains(err.Error(), "body.state") {
		t.Fatalf("Check = %v, want the state too long", err)
	}
	r.State, _ = json.Marshal(strings.Repeat("refund ", 1000))
	n, err := Check(r, tokens.Default())
	if err != nil {
		t.Fatal(err)
	}
	if n < 1000 || n > 1100 {
		t.Errorf("Check counted %d tokens, want about 1,030", n)
	}
}
