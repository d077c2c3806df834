// Package server holds the HTTP plumbing both services share: an echo
// instance with request ids, a trace span per request (see trace.go),
// structured access logs and panic recovery, the
// request's logger (Logger, LoggerFrom, SetLogger), and a Run that shuts
// down gracefully on SIGINT/SIGTERM.
package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
)

// HeaderRequestID is set on every response.
const HeaderRequestID = "x-request-id"

type ctxKey struct{}

// loggerKey is where the request's logger sits in the echo context; only
// SetLogger writes it, so Logger and LoggerFrom always agree.
const loggerKey = "shared/server.logger"

// New returns an echo instance with request ids, access logging and
// recovery installed. Routes and the HTTPErrorHandler are the caller's.
func New(logger *slog.Logger) *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.Use(requestID(logger), traceRequests, accessLog, recoverPanic)
	return e
}

// Logger returns the request's logger, carrying its request id.
func Logger(c echo.Context) *slog.Logger {
	if slot, ok := c.Get(loggerKey).(*loggerSlot); ok {
		return slot.Load()
	}
	return slog.Default()
}

// SetLogger makes l the request's logger, for Logger(c) and for LoggerFrom
// on the request's context alike: middleware that learns more about a
// request (which key is calling) adds it to Logger(c) and sets the result,
// and every later log line of the request carries it, in handlers and in
// the domain code they call with the context.
//
// The request holds its logger in a slot of its own, put in its context
// once, so that setting it again costs no copy of the request.
func SetLogger(c echo.Context, l *slog.Logger) {
	if slot, ok := c.Get(loggerKey).(*loggerSlot); ok {
		slot.Store(l)
		return
	}
	slot := new(loggerSlot)
	slot.Store(l)
	c.Set(loggerKey, slot)
	req := c.Request()
	c.SetRequest(req.WithContext(context.WithValue(req.Context(), ctxKey{}, slot)))
}

// loggerSlot holds a request's logger in its context.
type loggerSlot = atomic.Pointer[slog.Logger]

// LoggerFrom returns the request's logger from its context (see SetLogger).
func LoggerFrom(ctx context.Context) *slog.Logger {
	if slot, ok := ctx.Value(ctxKey{}).(*loggerSlot); ok {
		return slot.Load()
	}
	return slog.Default()
}

// canonicalRequestID is HeaderRequestID as header maps key it, worked out
// once rather than on every request.
var canonicalRequestID = http.CanonicalHeaderKey(HeaderRequestID)

// RequestID returns the request's id.
func RequestID(c echo.Context) string {
	if v := c.Response().Header()[canonicalRequestID]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func requestID(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			var id string
			if v := c.Request().Header[canonicalRequestID]; len(v) > 0 {
				id = v[0]
			}
			if !validID(id) {
				id = NewID()
			}
			c.Response().Header()[canonicalRequestID] = []string{id}
			SetLogger(c, logger.With("request_id", id))
			return next(c)
		}
	}
}

// validID accepts a caller's request id only if it is short and plain, so a
// hostile header cannot forge log lines.
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		ok := r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}

// NewID returns a new request id: "req_" and a random 128-bit hex
// number, the form System One's request ids take.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "req_" + hex.EncodeToString(b[:])
}

// logPathKey holds the path the access log shows instead of the request's.
const logPathKey = "server.logPath"

// LogPath makes the access log show path for this request instead of the
// one requested: for a path that carries a secret (a share link's token),
// the path with the secret replaced.
func LogPath(c echo.Context, path string) { c.Set(logPathKey, path) }

func accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		req := c.Request()
		path := req.URL.Path
		if p, ok := c.Get(logPathKey).(string); ok {
			path = p
		}
		Logger(c).LogAttrs(req.Context(), slog.LevelInfo, "request",
			slog.String("method", req.Method),
			slog.String("path", path),
			slog.Int("status", c.Response().Status),
			slog.Int64("bytes", c.Response().Size),
			slog.Duration("duration", time.Since(start)),
		)
		return nil
	}
}

func recoverPanic(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				Logger(c).Error("panic", "panic", r)
				err = errors.New("internal error")
			}
		}()
		return next(c)
	}
}

// Timeouts bound every connection of a server, so a client that stalls
// (a slow-loris header, a body that never ends, a response never read)
// holds a connection and its goroutine for a known time at most. A route
// that needs longer asks for it with Deadlines.
type Timeouts struct {
	// ReadHeader bounds the request line and headers.
	ReadHeader time.Duration
	// Read bounds the whole request, headers and body.
	Read time.Duration
	// Write bounds the response, counted from the end of the request's
	// headers: it is the longest a handler may work and answer.
	Write time.Duration
	// Idle bounds the wait for the next request on a kept-alive connection.
	Idle time.Duration
}

// DefaultTimeouts suit both services. JSON bodies are at most 1 MiB, so
// 30 s to read one allows a 300 kbit/s link; the slowest ordinary route of
// either service is a language-model call (the judge's 60 s request
// deadline; the interview's evaluation, 30 s, plus the judge's scoring,
// 45 s), hence 90 s to answer.
var DefaultTimeouts = Timeouts{
	ReadHeader: 10 * time.Second,
	Read:       30 * time.Second,
	Write:      90 * time.Second,
	Idle:       120 * time.Second,
}

// Deadlines gives one route a longer time to read its body and to answer
// than the server's Timeouts (uploads, say), counted from when the route
// starts. Behind a recorder that has no connection it does nothing.
func Deadlines(read, write time.Duration) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			rc := http.NewResponseController(c.Response())
			now := time.Now()
			if err := rc.SetReadDeadline(now.Add(read)); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return err
			}
			if err := rc.SetWriteDeadline(now.Add(write)); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return err
			}
			return next(c)
		}
	}
}

// ReadTimedOut reports whether err, from reading a request body, means the
// read deadline passed: the client stalled, and the answer is 408.
func ReadTimedOut(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Run serves e on addr with DefaultTimeouts until ctx is cancelled or
// SIGINT/SIGTERM arrives, then drains in-flight requests for up to 10
// seconds.
func Run(ctx context.Context, e *echo.Echo, addr string, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return Serve(ctx, ln, e, logger, DefaultTimeouts)
}

// Serve is Run on a listener the caller opened, with the caller's timeouts.
// It closes ln.
func Serve(ctx context.Context, ln net.Listener, e *echo.Echo, logger *slog.Logger, t Timeouts) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{
		Handler:           e,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	logger.Info("listening", "addr", ln.Addr().String(),
		"read_header_timeout", t.ReadHeader.String(), "read_timeout", t.Read.String(),
		"write_timeout", t.Write.String(), "idle_timeout", t.Idle.String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}
