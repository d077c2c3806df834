package chat

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/systemone"
)

// Each of the adapter's failures becomes one of the judge's codes here,
// and only here; what is not the adapter's passes unchanged.
func TestFailure(t *testing.T) {
	validation := &systemone.ValidationError{Items: []systemone.ValidationItem{{Loc: []string{"body"}, Msg: "m", Type: "t"}}}
	refused := fault.Retry(fault.Overloaded, time.Second, "upstream saturated")
	tests := []struct {
		name       string
		err        error
		code       fault.Code
		message    string
		retryAfter time.Duration
		deadline   bool
	}{
		{"saturated", &chatadapter.OverloadedError{Message: "upstream saturated: 3 calls in flight", RetryAfter: 2 * time.Second},
			fault.Overloaded, "upstream saturated: 3 calls in flight", 2 * time.Second, false},
		{"past the deadline", fmt.Errorf("asking: %w", &chatadapter.OverloadedError{
			Message: "the upstream model did not answer within the request's deadline", RetryAfter: 3 * time.Second, Err: context.DeadlineExceeded}),
			fault.Overloaded, "the upstream model did not answer within the request's deadline", 3 * time.Second, true},
		{"no wait named", &chatadapter.OverloadedError{Message: "busy"}, fault.Overloaded, "busy", fault.DefaultRetryAfter, false},
		{"refused our key", &chatadapter.MisconfiguredError{Setting: "LLM_API_KEY", Message: "the provider refused the key (401); check LLM_API_KEY"},
			fault.Misconfigured, "the provider refused the key (401); check LLM_API_KEY", 0, false},
		{"broke the format", &chatadapter.InvalidOutputError{Message: "no JSON after 3 attempts"},
			fault.InvalidOutput, "no JSON after 3 attempts", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := failure(tt.err)
			var fe *fault.Error
			if !errors.As(err, &fe) || fe.Code != tt.code || fe.Message != tt.message || fe.RetryAfter != tt.retryAfter {
				t.Fatalf("failure(%v) = %#v, want code %d, message %q, retry after %v", tt.err, err, tt.code, tt.message, tt.retryAfter)
			}
			if got := errors.Is(err, context.DeadlineExceeded); got != tt.deadline {
				t.Fatalf("errors.Is(DeadlineExceeded) = %v, want %v", got, tt.deadline)
			}
		})
	}
	for _, err := range []error{validation, refused, context.Canceled} {
		if got := failure(err); got != err {
			t.Errorf("failure(%v) = %v, want it unchanged", err, got)
		}
	}
}
