package fault

import (
	"errors"
	"testing"
)

// Every code has a status and an error_type: a code missing from the
// table would be written as status 0.
func TestEveryCodeIsMapped(t *testing.T) {
	for c := Internal; c <= UnknownModel; c++ {
		if c.Status() < 400 || c.Kind() == "" {
			t.Errorf("code %d: status %d, kind %q", c, c.Status(), c.Kind())
		}
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
