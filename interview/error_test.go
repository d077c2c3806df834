package interview

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestErrorFromHidesStrayErrors(t *testing.T) {
	stray := errors.New("pq: password authentication failed for user admin")
	p := ErrorFrom(fmt.Errorf("loading: %w", stray))
	if p.Code != Internal || p.Message != "internal error" || !errors.Is(p, stray) {
		t.Fatalf("ErrorFrom(stray) = %+v", p)
	}
	conflict := Errorf(Conflict, "taken")
	if got := ErrorFrom(fmt.Errorf("wrapped: %w", conflict)); got != conflict || !Is(got, Conflict) {
		t.Fatalf("ErrorFrom lost the wrapped error: %+v", got)
	}
}

func TestLimited(t *testing.T) {
	p := Limited(1500*time.Millisecond, "wait %d", 2)
	if p.Code != RateLimited || p.RetryAfter != 1500*time.Millisecond || p.Message != "wait 2" {
		t.Fatalf("Limited = %+v", p)
	}
}
