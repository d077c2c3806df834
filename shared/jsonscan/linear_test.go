package jsonscan

import (
	"testing"

	"github.com/judgeworks/shared/jsonscan/hostile"
)

// Checking, scanning and compacting 1 MiB of JSON shaped to make a reader
// work (escapes, deep nesting, numbers, many small values) takes at most
// 50 times as long as an ordinary document of the same size (measured: 1
// to 8 times on two busy cores, up to 30 for deep nesting under heavy
// load; a reader quadratic in its input takes hundreds to thousands), and
// allocates little (CompactValid its one copy). Before the scanner read
// with jsontext, the end of a string was searched again to its closing
// quote after every backslash: a megabyte of escapes took seconds.
func TestReadingIsLinear(t *testing.T) {
	value := func(v hostile.Value) []byte { return []byte(v.JSON) }
	plain := hostile.Document(1 << 20)
	t.Run("Valid", func(t *testing.T) {
		hostile.Check(t, plain, hostile.Bounds{TimeRatio: 50, Allocated: 0.5}, value, func(b []byte) { Valid(b) })
	})
	t.Run("Scan", func(t *testing.T) {
		hostile.Check(t, plain, hostile.Bounds{TimeRatio: 50, Allocated: 0.5}, value, func(b []byte) {
			_ = Scan(b, func(s *Scanner) { s.Raw() })
		})
	})
	t.Run("CompactValid", func(t *testing.T) {
		hostile.Check(t, plain, hostile.Bounds{TimeRatio: 50, Allocated: 1.01}, value, func(b []byte) { CompactValid(b) })
	})
}
