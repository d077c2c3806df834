package systemone

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error is the wire error of the System One API: the Client returns it for
// every failure of a call to a System One service, and ParseError reads it
// from any error response, for example
//
//	&systemone.Error{Status: 529, Type: "overloaded", Message: "upstream saturated", RetryAfter: 2 * time.Second}
type Error struct {
	// Status is the HTTP status; 0 when no response arrived (connection
	// refused, timeout, cancelled).
	Status int
	// Type is the machine-readable error_type of the body.
	Type string
	// Message is the human text of the body.
	Message string
	// RequestID is the x-request-id of the response, for support requests.
	RequestID string
	// RetryAfter is how long the server asked to wait before retrying
	// (retry-after-ms, else Retry-After); 0 when it did not say.
	RetryAfter time.Duration
	// Detail lists the field problems of a validation error (422 or 400
	// with a list under "detail").
	Detail []ValidationItem
	// Err is the cause when no response arrived.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("systemone: ")
	if e.Status != 0 {
		b.WriteString(strconv.Itoa(e.Status))
		b.WriteByte(' ')
	}
	b.WriteString(e.Type)
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Err != nil && !strings.Contains(e.Message, e.Err.Error()) {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if e.RequestID != "" {
		b.WriteString(" (request id ")
		b.WriteString(e.RequestID)
		b.WriteByte(')')
	}
	return b.String()
}

// Unwrap returns the cause, so errors.Is(err, context.DeadlineExceeded) works.
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed later: 408, 429,
// 5xx (including 529) and failures without a response. Every other 4xx is
// the caller's to fix.
func (e *Error) Retryable() bool {
	switch {
	case e.Status == 0:
		return e.Type == TypeConnection || e.Type == TypeTimeout
	case e.Status == http.StatusRequestTimeout, e.Status == http.StatusTooManyRequests:
		return true
	}
	return e.Status >= 500
}

// Error types the client sets itself when there is no error body to read.
const (
	TypeConnection      = "connection_error"
	TypeTimeout         = "timeout"
	TypeCanceled        = "canceled"
	TypeInvalidResponse = "invalid_response"
	TypeInvalidRequest  = "invalid_request"
	TypeValidation      = "validation_error"
)

// ParseError reads an error response: the body {"detail": {"error_type",
// "message"}}, the list form {"detail": [{loc, msg, type}…]} of validation
// errors, or anything else (a proxy's HTML page), plus x-request-id and the
// retry headers.
func ParseError(status int, h http.Header, body []byte) *Error {
	e := &Error{Status: status, RequestID: h.Get("x-request-id")}
	e.RetryAfter, _ = RetryAfter(h, time.Now())

	var env struct {
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &env) == nil && env.Detail != nil {
		switch kindOf(env.Detail) {
		case kindObject:
			var d struct {
				Type    string `json:"error_type"`
				Message string `json:"message"`
			}
			if json.Unmarshal(env.Detail, &d) == nil && d.Type != "" {
				e.Type, e.Message = d.Type, d.Message
				return e
			}
		case kindArray:
			if json.Unmarshal(env.Detail, &e.Detail) == nil {
				e.Type = TypeValidation
				e.Message = (&ValidationError{Items: e.Detail}).Error()
				return e
			}
		case kindString:
			// FastAPI's HTTPException form: {"detail": "text"}.
			var s string
			_ = json.Unmarshal(env.Detail, &s)
			e.Type, e.Message = statusType(status), s
			return e
		}
	}
	e.Type = statusType(status)
	msg := strings.TrimSpace(string(body))
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	e.Message = msg
	return e
}

// statusType names a status for bodies that do not name their error.
func statusType(status int) string {
	if status == 529 {
		return "overloaded"
	}
	if t := http.StatusText(status); t != "" {
		return strings.ReplaceAll(strings.ToLower(t), " ", "_")
	}
	return fmt.Sprintf("http_%d", status)
}

// RetryAfter reads how long a response asks the caller to wait:
// retry-after-ms (milliseconds, fractional allowed) first, then
// Retry-After as seconds or an HTTP date (relative to now).
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < math.MaxInt64/float64(time.Millisecond) {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < math.MaxInt64/float64(time.Second) {
			return time.Duration(s * float64(time.Second)), true
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now), 0), true
		}
	}
	return 0, false
}

// SyntaxError means a request body is not JSON at all: no field path can
// be named, so a server answers 400 rather than listing problems.
type SyntaxError struct {
	Msg string
}

func (e *SyntaxError) Error() string { return e.Msg }
