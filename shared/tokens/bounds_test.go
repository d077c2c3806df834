package tokens

import (
	"math"
	"runtime"
	"strings"
	"testing"
)

// A run of 1 MiB that the pre-tokenizer does not split (punctuation, a
// "word" of letters) is counted in memory that does not grow with it: it
// took 43 MB for "[],[],…", 20 times the run again for a run of
// backslashes.
func TestLongRunsCountInBoundedMemory(t *testing.T) {
	c := Default()
	c.Count(strings.Repeat("[],", 10_000)) // the work area made once
	for _, run := range []string{strings.Repeat("[],", 1<<20/3), strings.Repeat(`\`, 1<<20), strings.Repeat("abcdefghij", 1<<20/10)} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		n := c.Count(run)
		runtime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		t.Logf("%.10q…: %d tokens, %d bytes allocated", run, n, allocated)
		if allocated > 1<<20 {
			t.Errorf("%.10q…: %d bytes allocated to count a run of %d bytes", run, allocated, len(run))
		}
	}
}

// A run longer than largePiece is merged a part at a time: its count
// stays within a token a part of the reference tokenizer's.
func TestLongRunsCountCloseToTheReference(t *testing.T) {
	c, ref := Default(), reference(t)
	for _, run := range []string{strings.Repeat("[],", 4000), strings.Repeat("=-", 6000), strings.Repeat("ab", 5000)} {
		got, want := c.Count(run), len(ref.EncodeOrdinary(run))
		if parts := len(run)/largePiece + 1; math.Abs(float64(got-want)) > float64(parts) {
			t.Errorf("%.10q… (%d bytes): %d tokens, reference %d", run, len(run), got, want)
		}
	}
}

// CountUpTo stops once past its limit: the count itself when it is
// within, a number past the limit after about the limit's worth of
// counting otherwise.
func TestCountUpToStopsPastTheLimit(t *testing.T) {
	c := Default()
	for _, s := range []string{strings.Repeat("the customer wrote again about a refund. ", 5000), strings.Repeat("[],", 100_000)} {
		all := c.Count(s)
		if got := c.CountUpTo(s, all); got != all {
			t.Errorf("CountUpTo at the count: %d, want %d", got, all)
		}
		if got := c.CountUpTo(s, all/10); got <= all/10 || got > all/10+largePiece {
			t.Errorf("CountUpTo(%d) of %d tokens: %d, want just past the limit", all/10, all, got)
		}
	}
}
