package fault

import (
	"errors"
	"fmt"
	"testing"
)

// Every code has a status and an error_type of its own: a code missing
// from the table would be written as status 0, and two codes of one kind
// could not be told apart by a client.
func TestEveryCodeIsMapped(t *testing.T) {
	if len(codes) != int(numCodes) {
		t.Errorf("the table maps %d codes; there are %d", len(codes), numCodes)
	}
	kinds := map[string]Code{}
	for c := Internal; c < numCodes; c++ {
		if c.Status() < 400 || c.Status() > 599 || c.Kind() == "" {
			t.Errorf("code %d: status %d, kind %q", c, c.Status(), c.Kind())
		}
		// One kind may stand at two statuses (authentication_error: 401
		// for a wrong key, 403 for none, as System One answers them); a
		// client tells those apart by the status.
		kind := fmt.Sprint(c.Status(), " ", c.Kind())
		if other, dup := kinds[kind]; dup {
			t.Errorf("codes %d and %d share the status and kind %q", other, c, kind)
		}
		kinds[kind] = c
	}
}

// An error made on purpose passes through From as it is; a stray one
// becomes Internal without its text.
func TestFromKeepsFaultsAndHidesStrays(t *testing.T) {
	made := Retry(RateLimited, 5, "slow down")
	if got := From(made); got != made {
		t.Fatalf("From(%v) = %v, want the same error", made, got)
	}
	got := From(errors.New("password=hunter2"))
	if got.Code != Internal || got.Message != "internal error" {
		t.Fatalf("stray error became %+v", got)
	}
}
