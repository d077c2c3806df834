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
	"sync"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
)

// HeaderRequestID is set on every response.
const HeaderRequestID = "x-request-id"

// New returns an echo instance with request ids, access logging and
// recovery installed. Routes and the HTTPErrorHandler are the caller's.
//
// The four are one middleware: echo wraps a request's handler in every
// middleware anew on each request, one allocation per middleware.
func New(logger *slog.Logger) *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.Use(serve(logger))
	return e
}

// serve gives the request its id and its log (see requestLog), a trace
// span (traced), recovery from a panic in the handler (recovered), and
// writes its access log line once it is answered.
func serve(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			var id string
			if v := req.Header[canonicalRequestID]; len(v) > 0 {
				id = v[0]
			}
			if !validID(id) {
				id = NewID()
			}
			c.Response().Header()[canonicalRequestID] = []string{id}
			rc := &requestContext{Context: req.Context()}
			rc.log.base = logger
			rc.log.add(slog.String("request_id", id))
			c.SetRequest(req.WithContext(rc))
			return traced(c, next, &rc.log)
		}
	}
}

// requestContext is the request's context with its log beside it: one
// allocation for both, where a context value would take two and every
// change of logger a copy of the request.
type requestContext struct {
	context.Context
	log requestLog
}

type ctxKey struct{}

func (c *requestContext) Value(key any) any {
	if key == (ctxKey{}) {
		return &c.log
	}
	return c.Context.Value(key)
}

// requestLog is what a request's log lines carry. Its logger is built from
// the base logger and the request's attributes only when a line other than
// the access log is written: most requests write none, and deriving a
// logger per attribute costs a handler clone each. The access log line is
// rendered from the same attributes, in the same order, so it reads as if
// written through that logger.
type requestLog struct {
	base *slog.Logger

	mu     sync.Mutex
	attrs  []slog.Attr
	inline [4]slog.Attr
	logger *slog.Logger // built from base and attrs, or set by SetLogger
	set    bool         // logger was set by SetLogger: it stands alone
	path   string       // LogPath's path, "" for the request's
}

func (l *requestLog) add(a slog.Attr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.set {
		l.logger = l.logger.With(a)
		return
	}
	if l.attrs == nil {
		l.attrs = l.inline[:0]
	}
	l.attrs = append(l.attrs, a)
	l.logger = nil
}

func (l *requestLog) get() *slog.Logger {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.logger == nil {
		l.logger = slog.New(l.base.Handler().WithAttrs(l.attrs))
	}
	return l.logger
}

func (l *requestLog) store(lg *slog.Logger) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.logger, l.set = lg, true
}

// logOf returns the request's log, or nil outside a request served by New.
func logOf(c echo.Context) *requestLog {
	l, _ := c.Request().Context().Value(ctxKey{}).(*requestLog)
	return l
}

// Logger returns the request's logger, carrying its request id.
func Logger(c echo.Context) *slog.Logger {
	if l := logOf(c); l != nil {
		return l.get()
	}
	return slog.Default()
}

// SetLogger makes l the request's logger, for Logger(c) and for LoggerFrom
// on the request's context alike, the access log line included. To add an
// attribute to every later line of the request, AddLogAttr is cheaper.
func SetLogger(c echo.Context, l *slog.Logger) {
	if rl := logOf(c); rl != nil {
		rl.store(l)
	}
}

// AddLogAttr adds key=value to every later log line of the request, in
// handlers and in the domain code they call with the context, and to its
// access log line: middleware that learns more about a request (which key
// is calling) says so once.
func AddLogAttr(c echo.Context, key, value string) {
	if rl := logOf(c); rl != nil {
		rl.add(slog.String(key, value))
	}
}

// LoggerFrom returns the request's logger from its context (see SetLogger).
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(ctxKey{}).(*requestLog); ok {
		return l.get()
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
	var id [4 + 2*len(b)]byte
	copy(id[:], "req_")
	hex.Encode(id[4:], b[:])
	return string(id[:])
}

// LogPath makes the access log show path for this request instead of the
// one requested: for a path that carries a secret (a share link's token),
// the path with the secret replaced.
func LogPath(c echo.Context, path string) {
	if l := logOf(c); l != nil {
		l.mu.Lock()
		l.path = path
		l.mu.Unlock()
	}
}

// logged runs next, renders its error, and writes the access log line.
func logged(c echo.Context, next echo.HandlerFunc, l *requestLog) error {
	start := time.Now()
	if err := recovered(c, next, l); err != nil {
		c.Error(err)
	}
	req := c.Request()
	res := c.Response()
	l.mu.Lock()
	path, custom := l.path, l.set
	l.mu.Unlock()
	if path == "" {
		path = req.URL.Path
	}
	if custom {
		l.get().LogAttrs(req.Context(), slog.LevelInfo, "request",
			slog.String("method", req.Method),
			slog.String("path", path),
			slog.Int("status", res.Status),
			slog.Int64("bytes", res.Size),
			slog.Duration("duration", time.Since(start)),
		)
		return nil
	}
	// The line the request's logger would write, handed to the base
	// handler with the request's attributes first, without building the
	// logger, and without the caller's frame, which only a handler
	// configured with AddSource would print (and for this line it is
	// this function).
	h := l.base.Handler()
	if !h.Enabled(req.Context(), slog.LevelInfo) {
		return nil
	}
	end := time.Now()
	r := slog.NewRecord(end, slog.LevelInfo, "request", 0)
	l.mu.Lock()
	r.AddAttrs(l.attrs...)
	l.mu.Unlock()
	r.AddAttrs(
		slog.String("method", req.Method),
		slog.String("path", path),
		slog.Int("status", res.Status),
		slog.Int64("bytes", res.Size),
		slog.Duration("duration", end.Sub(start)),
	)
	_ = h.Handle(req.Context(), r)
	return nil
}

// recovered runs next, turning a panic into an error.
func recovered(c echo.Context, next echo.HandlerFunc, l *requestLog) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			l.get().Error("panic", "panic", r)
			err = errors.New("internal error")
		}
	}()
	return next(c)
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
