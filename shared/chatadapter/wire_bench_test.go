//go:build unix

package chatadapter

import (
	"encoding/json"
	"testing"
)

// BenchmarkDecodeCompletion is the cost of decoding the upstream
// benchmark's reply (20-ish top logprobs with their byte arrays).
func BenchmarkDecodeCompletion(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var c chatCompletion
		if err := decodeCompletion(universalReply, &c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeCompletionReference is the same reply through
// encoding/json, for comparison.
func BenchmarkDecodeCompletionReference(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var c wireReference
		if err := json.Unmarshal(universalReply, &c); err != nil {
			b.Fatal(err)
		}
	}
}
