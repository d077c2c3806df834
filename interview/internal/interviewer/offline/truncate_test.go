package offline

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A question quoted in the report's prose is cut between words, with an
// ellipsis, never inside a word.
func TestTruncateCutsBetweenWords(t *testing.T) {
	q := "What does it mean for an API operation to be idempotent, and how do you make a payment endpoint idempotent?"
	got := truncate(q, 100)
	if utf8.RuneCountInString(got) > 100 || !strings.HasSuffix(got, "…") {
		t.Fatalf("%q: longer than 100 runes or no ellipsis", got)
	}
	if cut := strings.TrimSuffix(got, "…"); !strings.HasPrefix(q, cut) || !strings.HasPrefix(q[len(cut):], " ") {
		t.Fatalf("%q is not cut between words of %q", got, q)
	}
	if got := truncate("How do you add caching, safely?", 25); got != "How do you add caching…" {
		t.Fatalf("cut after a comma: %q", got)
	}
	if got := truncate(q, len(q)); got != q {
		t.Fatalf("a question that fits was cut: %q", got)
	}
	if got := truncate(strings.Repeat("x", 50), 10); utf8.RuneCountInString(got) != 10 {
		t.Fatalf("one long word: %q", got)
	}
}
