package tokens

import (
	"strings"
	"sync"
	"testing"
)

func TestCount(t *testing.T) {
	c := Default()
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		// Reference counts from the o200k_base encoding.
		{"The quick brown fox jumps over the lazy dog.", 10},
		{"<|endoftext|>", 7},
		{strings.Repeat("a", 1000), 125},
	}
	for _, tt := range tests {
		if got := c.Count(tt.text); got != tt.want {
			t.Errorf("Count(%.30q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestCountConcurrent(t *testing.T) {
	c := Default()
	text := strings.Repeat("Customer says the invoice was charged twice. ", 20)
	want := c.Count(text)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if got := c.Count(text); got != want {
					t.Errorf("concurrent Count = %d, want %d", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

var state2KB = strings.Repeat("My order #4411 arrived damaged and support hasn't replied in 3 days.\n", 30)[:2048]

func BenchmarkCount2KB(b *testing.B) {
	c := Default()
	b.SetBytes(int64(len(state2KB)))
	for b.Loop() {
		c.Count(state2KB)
	}
}

// A single 100 KB "word" must not take quadratic time.
func BenchmarkCountLongWord(b *testing.B) {
	c := Default()
	word := strings.Repeat("abcdefghij", 10_000)
	b.SetBytes(int64(len(word)))
	for b.Loop() {
		c.Count(word)
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}
