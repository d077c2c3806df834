package httpapi

import (
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/shared/server"
)

// errorBody is the pinned error shape: {"error": {"code", "message"}}.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    interview.Code `json:"code"`
	Message string         `json:"message"`
}

// statuses is the one table from an error's code to its HTTP status.
var statuses = map[interview.Code]int{
	interview.Invalid:         http.StatusBadRequest,
	interview.Unauthenticated: http.StatusUnauthorized,
	interview.Forbidden:       http.StatusForbidden,
	interview.NotFound:        http.StatusNotFound,
	interview.Conflict:        http.StatusConflict,
	interview.Timeout:         http.StatusRequestTimeout,
	interview.TooLarge:        http.StatusRequestEntityTooLarge,
	interview.Unprocessable:   http.StatusUnprocessableEntity,
	interview.Unsupported:     http.StatusUnsupportedMediaType,
	interview.RateLimited:     http.StatusTooManyRequests,
	interview.Upstream:        http.StatusBadGateway,
	interview.NotImplemented:  http.StatusNotImplemented,
	interview.Unavailable:     http.StatusServiceUnavailable,
	interview.Internal:        http.StatusInternalServerError,
}

// statusOf is the HTTP status for code; unknown codes are 500.
func statusOf(c interview.Code) int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// retryAfterSeconds renders a wait for the Retry-After header: whole
// seconds, rounded up, at least 1.
func retryAfterSeconds(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}

// echoCodes names the statuses echo itself produces (routing, body limit).
var echoCodes = map[int]interview.Code{
	http.StatusBadRequest:            interview.Invalid,
	http.StatusUnauthorized:          interview.Unauthenticated,
	http.StatusNotFound:              interview.NotFound,
	http.StatusRequestEntityTooLarge: interview.TooLarge,
	http.StatusServiceUnavailable:    interview.Unavailable,
}

// HandleError is the one place errors become responses: the service's
// echo HTTPErrorHandler. An error's cause is logged, never sent: server
// failures at error level, a refusal passed on from a provider (a 429 with
// a cause) at warning level.
func HandleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, detail := describe(err)
	switch {
	case status >= 500:
		server.Logger(c).Error("request failed", slog.String("code", string(detail.Code)), slog.Any("err", err))
	case status == http.StatusTooManyRequests && interview.ErrorFrom(err).Err != nil:
		server.Logger(c).Warn("request refused upstream", slog.String("code", string(detail.Code)), slog.Any("err", err))
	}
	if d, ok := retryAfter(err); ok {
		c.Response().Header().Set("Retry-After", retryAfterSeconds(d))
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	_ = c.JSON(status, errorBody{Error: detail})
}

func describe(err error) (int, errorDetail) {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return he.Code, errorDetail{interview.NotFound, "no such endpoint"}
		case http.StatusMethodNotAllowed:
			return he.Code, errorDetail{"method_not_allowed", "method not allowed"}
		case http.StatusRequestEntityTooLarge:
			return he.Code, errorDetail{interview.TooLarge, "request body too large"}
		}
		if code, ok := echoCodes[he.Code]; ok {
			return he.Code, errorDetail{code, http.StatusText(he.Code)}
		}
		return http.StatusInternalServerError, errorDetail{interview.Internal, "internal error"}
	}
	p := interview.ErrorFrom(err)
	return statusOf(p.Code), errorDetail{p.Code, p.Message}
}

// retryAfter is the wait an error asks the client for, if any.
func retryAfter(err error) (time.Duration, bool) {
	var p *interview.Error
	if errors.As(err, &p) && p.RetryAfter > 0 {
		return p.RetryAfter, true
	}
	return 0, false
}
