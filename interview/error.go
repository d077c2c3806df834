package interview

import (
	"errors"
	"fmt"
	"time"
)

// Code classifies an error for the client. Values are part of the API;
// the HTTP layer maps each to a status in one table.
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

// Error is an error meant for the client: Message is shown to users, Err
// (if any) is the cause, logged but never sent, so it may name what the
// user must not see (a provider's answer, a file system path). Domain and
// store code return *Error with a code; the HTTP layer writes
// {"error": {"code", "message"}}.
type Error struct {
	Code    Code
	Message string
	Err     error
	// RetryAfter, when set, is sent as the Retry-After header (whole
	// seconds, rounded up).
	RetryAfter time.Duration
}

// Limited returns a rate_limited error asking the client to wait d.
func Limited(d time.Duration, format string, args ...any) *Error {
	return &Error{Code: RateLimited, Message: fmt.Sprintf(format, args...), RetryAfter: d}
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an error with code and message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with code and message caused by err.
func Wrap(err error, code Code, message string) *Error {
	return &Error{Code: code, Message: message, Err: err}
}

// ErrorFrom returns the *Error in err's chain, or an internal error with a
// generic message, so a stray error never leaks its text to a client.
func ErrorFrom(err error) *Error {
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
