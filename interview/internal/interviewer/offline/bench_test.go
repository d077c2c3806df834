package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/judgeworks/interview"
)

// BenchmarkEvaluate measures scoring one typical (about 70-word) answer.
func BenchmarkEvaluate(b *testing.B) {
	iv := New()
	q := interview.Question{ID: "backend-medium-02"}
	for b.Loop() {
		if _, err := iv.Evaluate(context.Background(), interview.Setup{}, q, nil, goodIdempotency); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluateLong measures a rambling answer of about 5,000 words.
func BenchmarkEvaluateLong(b *testing.B) {
	iv := New()
	q := interview.Question{ID: "backend-medium-02"}
	long := strings.Repeat(goodIdempotency+" ", 70)
	for b.Loop() {
		if _, err := iv.Evaluate(context.Background(), interview.Setup{}, q, nil, long); err != nil {
			b.Fatal(err)
		}
	}
}
