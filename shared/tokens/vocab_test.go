package tokens

import (
	"testing"

	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Every token of the encoding is found with its rank, and strings that are
// not tokens (extended by a byte, or cut) are not found.
func TestVocabMatchesRanks(t *testing.T) {
	ranks, err := loader.NewOfflineLoader().LoadTiktokenBpe(Encoding + ".tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	v := Default().vocab
	if got := len(v.offs) - 1; got != len(ranks) {
		t.Fatalf("vocab holds %d tokens, loader %d", got, len(ranks))
	}
	for tok, want := range ranks {
		if got, ok := v.rank(tok); !ok || got != want {
			t.Fatalf("rank(%q) = %d, %v; want %d", tok, got, ok, want)
		}
		for _, s := range []string{tok + "\x00", tok + "\xff", "\xff" + tok, tok[:len(tok)-1]} {
			r, isTok := ranks[s]
			if got, ok := v.rank(s); ok != isTok || ok && got != r {
				t.Fatalf("rank(%q) = %d, %v; loader has %d, %v", s, got, ok, r, isTok)
			}
		}
	}
}

func TestNewVocabRejects(t *testing.T) {
	tests := []struct {
		name  string
		ranks map[string]int
	}{
		{"gap", map[string]int{"a": 0, "b": 2}},
		{"duplicate rank", map[string]int{"a": 0, "b": 0}},
		{"negative", map[string]int{"a": -1}},
		{"empty token", map[string]int{"": 0}},
	}
	for _, tt := range tests {
		if _, err := newVocab(tt.ranks); err == nil {
			t.Errorf("%s: newVocab(%v) succeeded", tt.name, tt.ranks)
		}
	}
}

func BenchmarkVocabRank(b *testing.B) {
	v := Default().vocab
	words := []string{"hello", " world", "xqzj", " the", "arrived", "\n", "zzzzzzzzzzzzzz"}
	for b.Loop() {
		for _, w := range words {
			v.rank(w)
		}
	}
}
