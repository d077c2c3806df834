package voice

import (
	"fmt"
	"time"
)

// Kind says what went wrong in terms a client can act on. The HTTP layer maps
// each kind to one status.
type Kind int

// The kinds of voice failure.
const (
	KindUpstream       Kind = iota // the provider failed or answered nonsense: 502
	KindDisabled                   // the feature is not configured: 501
	KindRateLimited                // the provider's rate limit: 429
	KindTermsRequired              // the provider wants its model terms accepted: 503
	KindAllowanceSpent             // the user's daily allowance is used up: 429
)

func (k Kind) String() string {
	switch k {
	case KindDisabled:
		return "disabled"
	case KindRateLimited:
		return "rate_limited"
	case KindTermsRequired:
		return "terms_required"
	case KindAllowanceSpent:
		return "allowance_spent"
	}
	return "upstream"
}

// Error is a voice failure with a message safe to show the user. Detail is
// for the log only: provider bodies can hold account details.
type Error struct {
	Kind       Kind
	Message    string
	Detail     string
	RetryAfter time.Duration // for KindRateLimited and KindAllowanceSpent
}

func (e *Error) Error() string {
	if e.Detail != "" {
		return e.Message + ": " + e.Detail
	}
	return e.Message
}

func errorf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}
