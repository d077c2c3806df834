// Package problem holds the interview service's one error type. Domain and
// store code return *Error with a code; the HTTP layer maps the code to a
// status in one table and writes {"error": {"code", "message"}}.
package problem

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// Code classifies an error for the client. Values are part of the API.
type Code string

// Codes, in the style of gRPC status codes.
const (
	Invalid         Code = "invalid_argument"
	Unauthenticated Code = "unauthenticated"
	Forbidden       Code = "permission_denied"
	NotFound        Code = "not_found"
	Conflict        Code = "conflict"
	Timeout         Code = "request_timeout"
	TooLarge        Code = "payload_too_large"
	Unprocessable   Code = "unprocessable_entity"
	Unsupported     Code = "unsupported_media_type"
	RateLimited     Code = "rate_limited"
	Upstream        Code = "upstream_failed"
	NotImplemented  Code = "not_implemented"
	Unavailable     Code = "unavailable"
	Internal        Code = "internal"
)

var statuses = map[Code]int{
	Invalid:         http.StatusBadRequest,
	Unauthenticated: http.StatusUnauthorized,
	Forbidden:       http.StatusForbidden,
	NotFound:        http.StatusNotFound,
	Conflict:        http.StatusConflict,
	Timeout:         http.StatusRequestTimeout,
	TooLarge:        http.StatusRequestEntityTooLarge,
	Unprocessable:   http.StatusUnprocessableEntity,
	Unsupported:     http.StatusUnsupportedMediaType,
	RateLimited:     http.StatusTooManyRequests,
	Upstream:        http.StatusBadGateway,
	NotImplemented:  http.StatusNotImplemented,
	Unavailable:     http.StatusServiceUnavailable,
	Internal:        http.StatusInternalServerError,
}

// Status is the HTTP status for code; unknown codes are 500.
func Status(c Code) int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Error is an error meant for the client: Message is shown to users, Err
// (if any) is the cause, logged but never sent, so it may name what the
// user must not see (a provider's answer, a file system path).
type Error struct {
	Code    Code
	Message string
	Err     error
	// RetryAfter, when set, is sent as the Retry-After header (whole
	// seconds, rounded up).
	RetryAfter time.Duration
}

// Retry returns a rate_limited error asking the client to wait d.
func Retry(d time.Duration, format string, args ...any) *Error {
	return &Error{Code: RateLimited, Message: fmt.Sprintf(format, args...), RetryAfter: d}
}

// RetryAfterSeconds renders a wait for the Retry-After header: whole
// seconds, rounded up, at least 1.
func RetryAfterSeconds(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an error with code and message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with code and message caused by err.
func Wrap(err error, code Code, message string) *Error {
	return &Error{Code: code, Message: message, Err: err}
}

// From returns the *Error in err's chain, or an internal error with a
// generic message, so a stray error never leaks its text to a client.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: "internal error", Err: err}
}

// Is reports whether err carries code.
func Is(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
