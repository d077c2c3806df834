package ratelimit

import (
	"context"
	"testing"
)

// BenchmarkRequestLimits is what every request asks of the limiter in
// process: a request, its tokens, and a look at the token bucket.
func BenchmarkRequestLimits(b *testing.B) {
	l := New(context.Background(), Settings{RPM: 1 << 30, TPM: 1 << 40, IDs: []string{"k"}})
	ctx := context.Background()
	for b.Loop() {
		l.TakeRequest(ctx, "k")
		l.TakeTokens(ctx, "k", 60)
		l.PeekTokens(ctx, "k")
	}
}
