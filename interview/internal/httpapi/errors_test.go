package httpapi

import (
	"testing"
	"time"

	"github.com/judgeworks/interview"
)

func TestStatusOf(t *testing.T) {
	cases := map[interview.Code]int{
		interview.Invalid: 400, interview.Unauthenticated: 401, interview.NotFound: 404, interview.Timeout: 408, interview.Conflict: 409, interview.TooLarge: 413,
		interview.Unsupported: 415, interview.RateLimited: 429, interview.Internal: 500, interview.NotImplemented: 501, interview.Upstream: 502,
		interview.Unavailable: 503, interview.Code("made_up"): 500,
	}
	for code, want := range cases {
		if got := statusOf(code); got != want {
			t.Errorf("statusOf(%s) = %d, want %d", code, got, want)
		}
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "1", time.Millisecond: "1", time.Second: "1", 1500 * time.Millisecond: "2", 30 * time.Second: "30", 25 * time.Hour: "90000",
	} {
		if got := retryAfterSeconds(d); got != want {
			t.Errorf("retryAfterSeconds(%v) = %q, want %q", d, got, want)
		}
	}
}
