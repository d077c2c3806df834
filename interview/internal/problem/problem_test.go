package problem

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
)

func TestStatus(t *testing.T) {
	cases := map[Code]int{
		Invalid: 400, Unauthenticated: 401, NotFound: 404, Conflict: 409, TooLarge: 413,
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
