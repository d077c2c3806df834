// Package server holds the HTTP plumbing both services share: an echo
// instance with request ids, structured access logs and panic recovery, the
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
	"os/signal"
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
	e.Use(requestID(logger), accessLog, recoverPanic)
	return e
}

// Logger returns the request's logger, carrying its request id.
func Logger(c echo.Context) *slog.Logger {
	if l, ok := c.Get(loggerKey).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// SetLogger makes l the request's logger, for Logger(c) and for LoggerFrom
// on the request's context alike: middleware that learns more about a
// request (which key is calling) adds it to Logger(c) and sets the result,
// and every later log line of the request carries it, in handlers and in
// the domain code they call with the context.
func SetLogger(c echo.Context, l *slog.Logger) {
	c.Set(loggerKey, l)
	req := c.Request()
	c.SetRequest(req.WithContext(context.WithValue(req.Context(), ctxKey{}, l)))
}

// LoggerFrom returns the request's logger from its context (see SetLogger).
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(ctxKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// RequestID returns the request's id.
func RequestID(c echo.Context) string {
	return c.Response().Header().Get(HeaderRequestID)
}

func requestID(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id := c.Request().Header.Get(HeaderRequestID)
			if !validID(id) {
				id = NewID()
			}
			c.Response().Header().Set(HeaderRequestID, id)
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

// NewID returns a random 128-bit hex id.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		req := c.Request()
		Logger(c).LogAttrs(req.Context(), slog.LevelInfo, "request",
			slog.String("method", req.Method),
			slog.String("path", req.URL.Path),
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

// Run serves e on addr until ctx is cancelled or SIGINT/SIGTERM arrives, then
// drains in-flight requests for up to 10 seconds.
func Run(ctx context.Context, e *echo.Echo, addr string, logger *slog.Logger) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           e,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	logger.Info("listening", "addr", ln.Addr().String())
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
