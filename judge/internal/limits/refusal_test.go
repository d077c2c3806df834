package limits

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// stoppingCounter counts one token per byte, as much of a text as a limit
// asks for, and records how many bytes it read.
type stoppingCounter struct{ read int }

func (c *stoppingCounter) Count(s string) int { return c.CountUpTo(s, len(s)) }

func (c *stoppingCounter) CountUpTo(s string, limit int) int {
	n := min(len(s), limit+1)
	c.read += n
	return n
}

// TestRefusalCountsOnlyToTheLimit: a request far over the token bounds is
// refused after counting about the bounds' worth of it, whatever its
// size: a 1 MiB state was counted whole (a second of CPU for a megabyte
// of punctuation with the real tokenizer), and so was every question.
func TestRefusalCountsOnlyToTheLimit(t *testing.T) {
	huge := func(n int) json.RawMessage { b, _ := json.Marshal(strings.Repeat("a", n)); return b }
	tests := []struct {
		name string
		edit func(*systemone.Request)
		msg  string
	}{
		{"state", func(r *systemone.Request) { r.State = huge(1 << 20) },
			"state plus the longest question is more than the limit of 32000 tokens"},
		{"a question", func(r *systemone.Request) {
			r.Questions["long"] = systemone.Question{Type: systemone.TypeNoul, Instructions: huge(1 << 20)}
		}, "state plus the longest question is more than the limit of 32000 tokens"},
		{"the questions together", func(r *systemone.Request) {
			for i := range 100 {
				r.Questions[fmt.Sprintf("q%d", i)] = systemone.Question{Type: systemone.TypeNoul, Instructions: huge(10_000)}
			}
		}, "the request is more than the limit of 64000 tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRequest()
			tt.edit(&r)
			c := &stoppingCounter{}
			_, err := Check(r, c)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("Check = %v, want %q", err, tt.msg)
			}
			if c.read > MaxStateAndQuestionTokens+MaxRequestTokens+20_000 {
				t.Errorf("%d bytes counted to refuse it", c.read)
			}
		})
	}
	// Within the bounds every text is counted whole, and the message of a
	// refusal gives the counts when all were counted.
	r := validRequest()
	r.State = huge(31_000)
	r.Questions["long"] = systemone.Question{Type: systemone.TypeNoul, Instructions: huge(2000)}
	_, err := Check(r, &stoppingCounter{})
	if err == nil || !strings.Contains(err.Error(), "state plus the longest question is 33") || !strings.Contains(err.Error(), "tokens, more than the limit of 32000") {
		t.Fatalf("Check = %v, want the exact count", err)
	}
}

// With the real tokenizer, RememberQuestions stops with it.
func TestQuestionCountsStop(t *testing.T) {
	r := validRequest()
	r.State, _ = json.Marshal(strings.Repeat("[],", 1<<18))
	if _, err := Check(r, RememberQuestions(tokens.Default())); err == nil || !strings.Contains(err.Error(), "more than the limit of 32000") {
		t.Fatalf("Check = %v, want the state refused", err)
	}
}
