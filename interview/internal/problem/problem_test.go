package problem

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"
)

func TestStatus(t *testing.T) {
	cases := map[Code]int{
		Invalid: 400, Unauthenticated: 401, NotFound: 404, Timeout: 408, Conflict: 409, TooLarge: 413,
		Unsupported: 415, RateLimited: 429, Internal: 500, NotImplemented: 501, Upstream: 502,
		Unavailable: 503, Code("made_up"): 500,
	}
	for code, want := range cases {
		if got := Status(code); got != want {
			t.Errorf("Status(%s) = %d, want %d", code, got, want)
		}
	}
}

func TestFromHidesStrayErrors(t *testing.T) {
	stray := errors.New("pq: password authentication failed for user admin")
	p := From(fmt.Errorf("loading: %w", stray))
	if p.Code != Internal || p.Message != "internal error" || !errors.Is(p, stray) {
		t.Fatalf("From(stray) = %+v", p)
	}
	conflict := New(Conflict, "taken")
	if got := From(fmt.Errorf("wrapped: %w", conflict)); got != conflict || Status(got.Code) != http.StatusConflict {
		t.Fatalf("From lost the wrapped problem: %+v", got)
	}
}

func TestRetry(t *testing.T) {
	p := Retry(1500*time.Millisecond, "wait %d", 2)
	if p.Code != RateLimited || Status(p.Code) != http.StatusTooManyRequests || p.Message != "wait 2" {
		t.Fatalf("Retry = %+v", p)
	}
	for d, want := range map[time.Duration]string{
		0: "1", time.Millisecond: "1", time.Second: "1", 1500 * time.Millisecond: "2", 30 * time.Second: "30", 25 * time.Hour: "90000",
	} {
		if got := RetryAfterSeconds(d); got != want {
			t.Errorf("RetryAfterSeconds(%v) = %q, want %q", d, got, want)
		}
	}
}
