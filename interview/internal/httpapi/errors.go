package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/judgeworks/interview/internal/problem"
	"github.com/judgeworks/shared/server"
)

// errorBody is the pinned error shape: {"error": {"code", "message"}}.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    problem.Code `json:"code"`
	Message string       `json:"message"`
}

// echoCodes names the statuses echo itself produces (routing, body limit).
var echoCodes = map[int]problem.Code{
	http.StatusBadRequest:            problem.Invalid,
	http.StatusUnauthorized:          problem.Unauthenticated,
	http.StatusNotFound:              problem.NotFound,
	http.StatusRequestEntityTooLarge: problem.TooLarge,
	http.StatusServiceUnavailable:    problem.Unavailable,
}

// HandleError is the one place errors become responses: the service's
// echo HTTPErrorHandler. A problem's cause is logged, never sent: server
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
	case status == http.StatusTooManyRequests && problem.From(err).Err != nil:
		server.Logger(c).Warn("request refused upstream", slog.String("code", string(detail.Code)), slog.Any("err", err))
	}
	if d, ok := retryAfter(err); ok {
		c.Response().Header().Set("Retry-After", problem.RetryAfterSeconds(d))
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
			return he.Code, errorDetail{problem.NotFound, "no such endpoint"}
		case http.StatusMethodNotAllowed:
			return he.Code, errorDetail{"method_not_allowed", "method not allowed"}
		case http.StatusRequestEntityTooLarge:
			return he.Code, errorDetail{problem.TooLarge, "request body too large"}
		}
		if code, ok := echoCodes[he.Code]; ok {
			return he.Code, errorDetail{code, http.StatusText(he.Code)}
		}
		return http.StatusInternalServerError, errorDetail{problem.Internal, "internal error"}
	}
	p := problem.From(err)
	return problem.Status(p.Code), errorDetail{p.Code, p.Message}
}

// retryAfter is the wait a problem asks the client for, if any.
func retryAfter(err error) (time.Duration, bool) {
	var p *problem.Error
	if errors.As(err, &p) && p.RetryAfter > 0 {
		return p.RetryAfter, true
	}
	return 0, false
}
