// Package fault holds the judge's one error type. Domain code and handlers
// return a *fault.Error with a Code; the HTTP error handler maps the code to
// a status and the body of docs/api.md, "Judge errors", in one place.
// Anything that is not a *fault.Error (or a known library error) is
// reported as "internal" without its text.
package fault

import (
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
	Upstream                     // the model backend is misconfigured or answered nonsense
	Overloaded                   // the model backend is saturated or failing
	Unavailable                  // the service is not ready
	TokensExceeded               // one request needs more than the key's token budget per minute
	TokenRateLimited             // the key's token bucket holds less than the request needs

	// Requests sent with an Idempotency-Key (docs/api.md, "Judge: Idempotency-Key").
	IdempotencyKeyInUse  // a request with the same key is still running
	IdempotencyKeyReused // the key was used for another request
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
	Overloaded:       {529, "overloaded"},
	Unavailable:      {http.StatusServiceUnavailable, "unavailable"},
	TokensExceeded:   {http.StatusUnprocessableEntity, "tokens_exceeded"},
	TokenRateLimited: {http.StatusTooManyRequests, "token_rate_limit_exceeded"},

	IdempotencyKeyInUse:  {http.StatusConflict, "idempotency_key_in_use"},
	IdempotencyKeyReused: {http.StatusUnprocessableEntity, "idempotency_key_reused"},
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
	// Type, when set, replaces the code's error_type with a finer one (a
	// model backend's "upstream_misconfigured", say).
	Type string
}

// Kind is the error_type written for e.
func (e *Error) Kind() string {
	if e.Type != "" {
		return e.Type
	}
	return e.Code.Kind()
}

func (e *Error) Error() string { return e.Kind() + ": " + e.Message }

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
