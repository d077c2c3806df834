// Package tokens counts the tokens of a text with a real byte-pair-encoding
// tokenizer whose data is compiled into the binary, so counting never needs
// the network or a file at run time.
package tokens

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the tokenizer used: o200k_base, the encoding of current
// OpenAI chat models. Counts for other model families differ by a few
// percent, which is close enough for limits and usage figures.
const Encoding = "o200k_base"

// Counter counts tokens. It is safe for concurrent use.
type Counter struct {
	enc *tiktoken.Tiktoken
}

// New builds a Counter from the embedded tokenizer data. It parses a few
// megabytes of ranks, so build one and share it (or use Default).
func New() (*Counter, error) {
	// The loader reads the ranks from files embedded in the binary instead
	// of fetching them from the web on first use.
	tiktoken.SetBpeLoader(loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(Encoding)
	if err != nil {
		return nil, fmt.Errorf("tokens: load %s: %w", Encoding, err)
	}
	return &Counter{enc: enc}, nil
}

var (
	defaultOnce    sync.Once
	defaultCounter *Counter
)

// Default returns a process-wide Counter, built on first use. It panics if
// the embedded data cannot be parsed, which would be a broken build.
func Default() *Counter {
	defaultOnce.Do(func() {
		c, err := New()
		if err != nil {
			panic(err)
		}
		defaultCounter = c
	})
	return defaultCounter
}

// Count returns the number of tokens of s. Special tokens such as
// <|endoftext|> are counted as the ordinary text they are in a request.
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	return len(c.enc.EncodeOrdinary(s))
}
