// Package fault holds the judge's one error type and its one mapping of
// failures. Domain code, engines and handlers return a *fault.Error with a
// Code, made where the failure is understood, once.
// The HTTP error handler (judge/internal/api) writes the code's status and
// the body of docs/api.md,
// "Judge errors". Anything not made on purpose is reported as
// "internal", without its text.
package fault

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Code says what kind of failure an error is, independent of HTTP.
type Code int

const (
	Internal         Code = iota // a bug or an unforeseen failure; text never shown
	InvalidArgument              // the request is malformed or names an unknown model
	Unauthenticated              // missing or unknown bearer key
	PermissionDenied             // the key may not use this model
	NotFound                     // no such route
	MethodNotAllowed             // the route exists with another method
	TooLarge                     // the body exceeds the limit
	RateLimited                  // the key's token bucket is empty
	Upstream                     // the model backend answered against its contract
	Misconfigured                // the model backend refused our settings (key, model, base URL)
	InvalidOutput                // the model kept answering outside the asked format
	Overloaded                   // the model backend is saturated, failing or too slow
	Unavailable                  // the service is not ready
	TokensExceeded               // one request needs more than the key's token budget per minute
	TokenRateLimited             // the key's token bucket holds less than the request needs

	// Requests sent with an Idempotency-Key (docs/api.md, "Judge: Idempotency-Key").
	IdempotencyKeyInUse  // a request with the same key is still running
	IdempotencyKeyReused // the key was used for another request

	// As the hosted System One service answers them (docs/api.md, "Judge errors").
	NoKey        // no bearer key at all: 403, where a wrong key is 401
	UnknownModel // the request names a model this judge does not serve

	BudgetExceeded // the request could cost more than is left of the key's budget in USD

	numCodes // the number of codes; keep it last
)

// codes maps each code to its HTTP status and error_type.
var codes = map[Code]struct {
	status int
	kind   string
}{
	Internal:         {http.StatusInternalServerError, "internal"},
	InvalidArgument:  {http.StatusBadRequest, "invalid_request"},
	Unauthenticated:  {http.StatusUnauthorized, "authentication_error"},
	PermissionDenied: {http.StatusForbidden, "permission_denied"},
	NotFound:         {http.StatusNotFound, "not_found"},
	MethodNotAllowed: {http.StatusMethodNotAllowed, "method_not_allowed"},
	TooLarge:         {http.StatusRequestEntityTooLarge, "request_too_large"},
	RateLimited:      {http.StatusTooManyRequests, "rate_limit_exceeded"},
	Upstream:         {http.StatusBadGateway, "upstream_error"},
	Misconfigured:    {http.StatusBadGateway, "upstream_misconfigured"},
	InvalidOutput:    {http.StatusBadGateway, "upstream_invalid_output"},
	Overloaded:       {529, "overloaded"},
	Unavailable:      {http.StatusServiceUnavailable, "unavailable"},
	TokensExceeded:   {http.StatusUnprocessableEntity, "tokens_exceeded"},
	TokenRateLimited: {http.StatusTooManyRequests, "token_rate_limit_exceeded"},

	IdempotencyKeyInUse:  {http.StatusConflict, "idempotency_key_in_use"},
	IdempotencyKeyReused: {http.StatusUnprocessableEntity, "idempotency_key_reused"},

	NoKey:        {http.StatusForbidden, "authentication_error"},
	UnknownModel: {http.StatusBadRequest, "api_usage_error"},

	BudgetExceeded: {http.StatusPaymentRequired, "budget_exceeded"},
}

// Status is the HTTP status of c.
func (c Code) Status() int { return codes[c].status }

// Kind is the error_type written for c.
func (c Code) Kind() string { return codes[c].kind }

// Error is a failure made on purpose, whose message is safe to show.
type Error struct {
	Code    Code
	Message string
	// RetryAfter, when positive, tells the client when to try again.
	RetryAfter time.Duration
	// Type, when set, replaces the code's error_type with the one a remote
	// System One service gave for its own failure.
	Type string
	// Err is the cause, for errors.Is and logs; it is never shown.
	Err error
}

// Kind is the error_type written for e.
func (e *Error) Kind() string {
	if e.Type != "" {
		return e.Type
	}
	return e.Code.Kind()
}

func (e *Error) Error() string { return e.Kind() + ": " + e.Message }

func (e *Error) Unwrap() error { return e.Err }

// New returns an error with code c and a message for the client.
func New(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: fmt.Sprintf(format, args...)}
}

// Retry returns an error with code c that tells the client to wait d.
func Retry(c Code, d time.Duration, format string, args ...any) *Error {
	e := New(c, format, args...)
	e.RetryAfter = d
	return e
}

// CodeOf answers the code of err, Internal unless err is or wraps an *Error.
func CodeOf(err error) Code {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	return Internal
}

// DefaultRetryAfter is the wait an Overloaded error advertises when the
// failure named none.
const DefaultRetryAfter = time.Second

// From says what err means for a client, as a *Error: err itself when it is
// one; a deadline or a cancellation as Overloaded; anything else Internal,
// its text kept from the client.
func From(err error) *Error {
	var fe *Error
	switch {
	case errors.As(err, &fe):
		return fe
	case errors.Is(err, context.DeadlineExceeded):
		return Overload("the model did not answer in time", 0)
	case errors.Is(err, context.Canceled):
		return Overload("request canceled", 0)
	}
	return New(Internal, "internal error")
}

// Overload is an Overloaded error waiting wait, or DefaultRetryAfter.
func Overload(msg string, wait time.Duration) *Error {
	if wait <= 0 {
		wait = DefaultRetryAfter
	}
	return Retry(Overloaded, wait, "%s", msg)
}
