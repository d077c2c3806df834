// Package api is the judge's HTTP layer: it authenticates and rate-limits
// callers, replays idempotent retries, decodes System One and Decisions
// requests, hands them to the model registry (judge/internal/registry) and
// writes every error as the body of docs/api.md, "Judge errors", in one
// error handler, with the status of its judge/internal/fault code.
package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/budget"
	"github.com/judgeworks/judge/internal/cache"
	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/judge/internal/idempotency"
	"github.com/judgeworks/judge/internal/limits"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/judge/internal/usage"
	"github.com/judgeworks/shared/server"
	"github.com/judgeworks/shared/systemone"
	"github.com/labstack/echo/v4"
)

// DefaultBodyLimit bounds a request body. The largest valid request is
// 64,000 tokens, about 256 KiB of English; 1 MiB leaves room for JSON
// escaping and non-Latin scripts (more bytes per token) while refusing
// anything that could only be abuse before it is decoded.
const DefaultBodyLimit = 1 << 20

// DefaultMaxQuestions bounds the questions of one request. Each question is
// at least one model call; a request with thousands of them would hold an
// upstream for minutes and is refused before any token is counted.
const DefaultMaxQuestions = 1000

// Deps are what the HTTP layer needs; main builds them from the config.
type Deps struct {
	Keys     *auth.BearerKeys
	Limiter  *ratelimit.Limiter
	Registry *registry.Registry
	Metrics  *metrics.Metrics
	// Tokens counts tokens for the request limits; nil uses the default.
	Tokens    limits.Counter
	BodyLimit int64
	// MaxQuestions bounds the questions of a request; zero means
	// DefaultMaxQuestions.
	MaxQuestions int
	// Idempotency keeps the answers of requests sent with an
	// Idempotency-Key; nil keeps them in the process.
	Idempotency *idempotency.Store
	// Budgets and Usage keep what each key spends and uses; nil keeps
	// them in the process.
	Budgets *budget.Ledger
	Usage   *usage.Book
	// Cache is the exact answer cache; nil is off.
	Cache *cache.Cache
}

type handler struct {
	Deps
	// bodies are the error bodies of the routes that answer in a shape of
	// their own, by route; every other route answers in System One's.
	bodies map[string]errorBodies
}

// errorBodies render a route's error bodies: a failure with its kind and
// message, and a list of validation problems.
type errorBodies interface {
	fault(kind, msg string) any
	validation(ve *systemone.ValidationError) any
}

// systemOneBodies are the bodies of docs/api.md, "Judge errors".
type systemOneBodies struct{}

func (systemOneBodies) fault(kind, msg string) any { return errorBody{errorDetail{kind, msg}} }

func (systemOneBodies) validation(ve *systemone.ValidationError) any {
	return map[string]any{"detail": ve.Items}
}

// Values a request carries through echo's context: the caller's key, and
// the model it was resolved to (stored with an idempotent answer).
const (
	keyCtx   = "bearer_key"
	modelCtx = "model"
)

// New returns the judge's echo instance with every route.
func New(logger *slog.Logger, d Deps) *echo.Echo {
	if d.BodyLimit <= 0 {
		d.BodyLimit = DefaultBodyLimit
	}
	if d.MaxQuestions <= 0 {
		d.MaxQuestions = DefaultMaxQuestions
	}
	if d.Limiter.Shared() {
		d.Metrics.WatchRedis(d.Limiter)
	}
	if d.Idempotency == nil {
		d.Idempotency = idempotency.New(context.Background(), idempotency.Settings{})
	}
	if d.Budgets == nil {
		d.Budgets = budget.New(budget.Settings{})
	}
	if d.Usage == nil {
		d.Usage = usage.New(usage.Settings{Logger: logger})
	}
	if d.Tokens != nil {
		d.Tokens = limits.RememberQuestions(d.Tokens)
	}
	h := &handler{Deps: d, bodies: map[string]errorBodies{decisionsRoute: decisionsBodies{}}}
	e := server.New(logger)
	e.HTTPErrorHandler = h.handleError
	e.JSONSerializer = rawJSON{}
	e.Use(h.measure)
	e.GET("/healthz", h.healthz)
	e.GET("/readyz", h.readyz)
	e.GET("/metrics", echo.WrapHandler(d.Metrics.Handler()))
	// Middleware per route rather than on a group: an echo group with
	// middleware catches every path under it, which turns 405s into 404s.
	// Each route's middleware is applied here, once: given to echo, it
	// would be applied anew on every request.
	e.GET("/v1/models", chain(h.models, h.authenticate))
	e.GET("/v1/usage", chain(h.usageOf, h.authenticate))
	// The request bucket is taken before the body is read, whether or
	// not the request carries an Idempotency-Key: a replay costs a
	// request too, and an empty bucket refuses without waiting for a body.
	e.POST("/v1/systemone", chain(h.systemOne, h.authenticate, h.rateLimit, h.idempotent))
	e.POST(decisionsRoute, chain(h.decisions, h.authenticate, h.rateLimit, h.idempotent))
	return e
}

// chain wraps h in mw, the first outermost, as echo would for a route.
func chain(h echo.HandlerFunc, mw ...echo.MiddlewareFunc) echo.HandlerFunc {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

func (h *handler) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz is ready once at least one model can answer; the offline engines
// are always registered, so in practice this fails only on a broken build.
func (h *handler) readyz(c echo.Context) error {
	if len(h.Registry.Models()) == 0 {
		return fault.New(fault.Unavailable, "no model is registered")
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}

// modelInfo is one entry of GET /v1/models: the service's name,
// description and release_date, then what the judge adds: an alias names
// the model it stands for (alias_of), an exact name lists its aliases.
type modelInfo struct {
	Name            string   `json:"name"`
	Description     string   `json:"description"`
	ReleaseDate     string   `json:"release_date"`
	AliasOf         string   `json:"alias_of,omitempty"`
	Aliases         []string `json:"aliases,omitempty"`
	PricePerMillion float64  `json:"price_per_million_input_tokens"`
}

// models lists every name the calling key may use, as the service does:
// each model by its exact name, followed by each of its aliases.
func (h *handler) models(c echo.Context) error {
	key := c.Get(keyCtx).(auth.BearerKey)
	out := []modelInfo{}
	for _, m := range h.Registry.Models() {
		if !h.Registry.Allowed(key.Models, m) {
			continue
		}
		out = append(out, modelInfo{Name: m.Name, Description: m.Description, ReleaseDate: m.ReleaseDate,
			Aliases: m.Aliases, PricePerMillion: m.PricePerMillion})
		for _, a := range m.Aliases {
			out = append(out, modelInfo{Name: a, Description: "Another name of " + m.Name + ": " + m.Description,
				ReleaseDate: m.ReleaseDate, AliasOf: m.Name, PricePerMillion: m.PricePerMillion})
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"models": out})
}

func (h *handler) systemOne(c echo.Context) error {
	key := c.Get(keyCtx).(auth.BearerKey)
	body, err := h.readBody(c)
	if err != nil {
		return err
	}
	req, err := systemone.Decoder{MaxQuestions: h.MaxQuestions}.Decode(body)
	if err != nil {
		return err
	}
	m, err := h.resolveModel(c, key, req.Model)
	if err != nil {
		return err
	}
	resp, err := h.ask(c, key, m, req)
	if err != nil {
		return err
	}
	return writeAnswer(c, resp)
}

// resolveModel resolves a request's model for key: 400 for an unknown name, 403
// for a model the key may not use. The model's exact name goes with an
// idempotent answer, so that a replay checks the key's permission again.
func (h *handler) resolveModel(c echo.Context, key auth.BearerKey, name string) (*registry.Model, error) {
	m, err := h.allowedModel(key, name)
	if err == nil {
		c.Set(modelCtx, m.Name)
	}
	return m, err
}

// allowedModel resolves name for key: the model, or the 400 or 403.
func (h *handler) allowedModel(key auth.BearerKey, name string) (*registry.Model, error) {
	m, ok := h.Registry.Resolve(name)
	if !ok {
		return nil, fault.New(fault.UnknownModel, "unknown model %q: GET /v1/models lists the models", name)
	}
	if !h.Registry.Allowed(key.Models, m) {
		return nil, fault.New(fault.PermissionDenied, "this key may not use model %q", name)
	}
	return m, nil
}

// ask validates req, answers it from the cache, or else charges its input
// tokens and its planned cost and has m answer it: the path both endpoints
// share once a request is in System One terms. A cached answer sends
// nothing upstream: it takes no tokens and no budget, and counts as a
// request of no cost. Every upstream call sent is paid for, whether the
// request is answered, fails or its caller hangs up (which cancels the
// calls not yet sent; docs/api.md, "Judge: keys, budgets and usage").
func (h *handler) ask(c echo.Context, key auth.BearerKey, m *registry.Model, req systemone.Request) (*systemone.Response, error) {
	checked, err := limits.Check(req, h.Tokens)
	if err != nil {
		return nil, err
	}
	ctx := c.Request().Context()
	var (
		cached *cache.Entry
		resp   *systemone.Response
	)
	if h.Cache != nil {
		cached, resp = h.Cache.Lookup(ctx, key, m.Name, checked, cache.NoCache(c.Request().Header))
		cached.Mark(c.Response().Header())
	}
	if resp != nil {
		// Tokens untouched: the figures as they are.
		setLimitHeaders(c.Response().Header(), "tokens", h.Limiter.PeekTokens(ctx, key.ID))
		h.Usage.Add(context.WithoutCancel(ctx), key.ID, m.Name, usage.Use{Answered: true})
		h.Metrics.Charged(key.ID, m.Name, resp.Usage, true)
		h.Metrics.Answered(req)
		return resp, nil
	}
	planned := h.Registry.PlannedInputTokens(m, checked)
	if err := h.chargeTokens(c, key, planned); err != nil {
		return nil, err
	}
	spent, err := h.spend(c, key, m, planned)
	if err != nil {
		return nil, err
	}
	// The upstream queues share their slots fairly among keys; only the
	// engines read the tenant, so only their context carries it.
	resp, charge, err := h.Registry.Ask(fairqueue.WithTenant(ctx, key.ID), m, checked)
	spent.settle(charge, err == nil)
	if err != nil {
		return nil, err
	}
	cached.Store(ctx, resp)
	h.Metrics.Answered(req)
	return resp, nil
}

// readBody reads at most BodyLimit bytes, refusing a larger body by its
// Content-Length before reading when the client declares one.
func (h *handler) readBody(c echo.Context) ([]byte, error) {
	r := c.Request()
	if r.ContentLength > h.BodyLimit {
		return nil, h.tooLarge()
	}
	// A declared length sizes the buffer once, with room for the read that
	// finds the end (ReadFrom wants MinRead bytes free before each read);
	// an undeclared one grows as it comes.
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(r.Body, h.BodyLimit+1)); err != nil {
		return nil, fault.New(fault.InvalidArgument, "reading the body failed")
	}
	body := buf.Bytes()
	if int64(len(body)) > h.BodyLimit {
		return nil, h.tooLarge()
	}
	return body, nil
}

func (h *handler) tooLarge() error {
	return fault.New(fault.TooLarge, "the body is larger than the limit of %d bytes", h.BodyLimit)
}

// authenticate accepts a request only with a configured bearer key. The key
// itself is never logged; the start of its identity (a keyed digest of it)
// is.
func (h *handler) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		token, ok := auth.BearerToken(c.Request().Header.Get(echo.HeaderAuthorization))
		if !ok {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, "Bearer")
			return fault.New(fault.NoKey, "missing bearer key: send Authorization: Bearer <key>")
		}
		key, ok := h.Keys.Match(token)
		if !ok {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer error="invalid_token"`)
			return fault.New(fault.Unauthenticated, "unknown bearer key")
		}
		c.Set(keyCtx, key)
		server.AddLogAttr(c, "key", key.String())
		return next(c)
	}
}

// rateLimit takes one request from the key's request bucket before the body
// is read, and puts both buckets' figures on the answer, whatever it is. A
// request later refused for tokens keeps its request taken: simpler, and it
// errs on the side of the limit.
func (h *handler) rateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		key := c.Get(keyCtx).(auth.BearerKey)
		ctx := c.Request().Context()
		r := h.Limiter.TakeRequest(ctx, key.ID)
		setLimitHeaders(c.Response().Header(), "requests", r)
		var err error
		if r.Allowed {
			err = next(c)
		} else {
			// The body stays unread: close the connection after the
			// answer, or the server would wait to read the body first.
			c.Response().Header().Set(echo.HeaderConnection, "close")
			err = fault.Retry(fault.RateLimited, r.RetryAfter, "rate limit exceeded for this key: retry in %d ms", ceilMillis(r.RetryAfter))
		}
		// The handler sets the token figures when it charges; an answer that
		// ends before the charge shows the bucket as it is.
		if hdr := c.Response().Header(); !c.Response().Committed && len(hdr[limitHeaderNames["tokens"][0]]) == 0 {
			setLimitHeaders(hdr, "tokens", h.Limiter.PeekTokens(ctx, key.ID))
		}
		return err
	}
}

// chargeTokens takes n input tokens from the key's budget, before any work.
// A request needing more than a whole minute's budget can never pass (422);
// one needing more than is left may pass later (429 with the wait).
func (h *handler) chargeTokens(c echo.Context, key auth.BearerKey, n int) error {
	if tpm := h.Limiter.TokensPerMinute(key.ID); n > tpm {
		return fault.New(fault.TokensExceeded,
			"this request needs %d input tokens, more than this key's budget of %d per minute: split it", n, tpm)
	}
	r := h.Limiter.TakeTokens(c.Request().Context(), key.ID, n)
	setLimitHeaders(c.Response().Header(), "tokens", r)
	if !r.Allowed {
		return fault.Retry(fault.TokenRateLimited, r.RetryAfter,
			"token rate limit exceeded for this key: this request needs %d input tokens, %d are left; retry in %d ms",
			n, r.Remaining, ceilMillis(r.RetryAfter))
	}
	return nil
}

// limitHeaderNames are the canonical names of each bucket's three headers, by
// kind, worked out once rather than on every answer.
var limitHeaderNames = map[string][3]string{
	"requests": canonicalLimitHeaders("requests"),
	"tokens":   canonicalLimitHeaders("tokens"),
}

func canonicalLimitHeaders(kind string) [3]string {
	return [3]string{
		http.CanonicalHeaderKey("x-ratelimit-limit-" + kind),
		http.CanonicalHeaderKey("x-ratelimit-remaining-" + kind),
		http.CanonicalHeaderKey("x-ratelimit-reset-" + kind),
	}
}

// setLimitHeaders writes one bucket's figures the way OpenAI's API does:
// the limit per minute, what is left, and the time until the bucket is full.
func setLimitHeaders(h http.Header, kind string, r ratelimit.Result) {
	names, ok := limitHeaderNames[kind]
	if !ok {
		names = canonicalLimitHeaders(kind)
	}
	// The three values are cut from one string and their lists from one
	// array, and assigned by canonical name, as Header.Set would, without
	// working the name out again: two allocations where there were six.
	var buf [64]byte
	b := strconv.AppendInt(buf[:0], int64(r.Limit), 10)
	i := len(b)
	b = strconv.AppendInt(b, int64(r.Remaining), 10)
	j := len(b)
	b = appendReset(b, r.ResetAfter)
	all := string(b)
	values := [3]string{all[:i], all[i:j], all[j:]}
	lists := make([]string, 3)
	copy(lists, values[:])
	h[names[0]] = lists[0:1:1]
	h[names[1]] = lists[1:2:2]
	h[names[2]] = lists[2:3:3]
}

// resetString writes d as "20ms", "1s", "6m0s": rounded up to whole
// milliseconds, where Go's duration syntax stays plain ASCII (no "µs").
func resetString(d time.Duration) string {
	return string(appendReset(nil, d))
}

// appendReset appends resetString(d) to b. Under a second, the usual
// case, Duration.String writes whole milliseconds as "20ms": appended
// here without the string it would allocate.
func appendReset(b []byte, d time.Duration) []byte {
	ms := ceilMillis(d)
	if ms > 0 && ms < 1000 {
		return append(strconv.AppendInt(b, ms, 10), "ms"...)
	}
	return append(b, (time.Duration(ms) * time.Millisecond).String()...)
}

var (
	headerTypesafeRequestID = http.CanonicalHeaderKey("x-typesafe-request-id")
	headerRequestID         = http.CanonicalHeaderKey(server.HeaderRequestID)
)

// measure records status and latency per route. It renders errors itself so
// the status it records is the one the client gets. It also repeats the
// request id under the name System One clients read it from.
func (h *handler) measure(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		hdr := c.Response().Header()
		// The same list under both names: header lists are only read.
		hdr[headerTypesafeRequestID] = hdr[headerRequestID]
		start := time.Now()
		if err := next(c); err != nil {
			c.Error(err)
		}
		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		h.Metrics.Request(route, c.Response().Status, time.Since(start))
		return nil
	}
}

// errorBody is the error shape of docs/api.md, "Judge errors".
type errorBody struct {
	Detail errorDetail `json:"detail"`
}

type errorDetail struct {
	ErrorType string `json:"error_type"`
	Message   string `json:"message"`
}

// handleError is the judge's one error handler: it writes every error as a
// status and the pinned body. Validation problems keep their field paths
// in the list form; a body that is not JSON and echo's own errors (no
// route, wrong method) are read here; everything else is what fault.From
// says it is. The status comes from the one fault table whatever the
// route; the body is the route's own (h.bodies): OpenAI's on /v1/decisions,
// System One's everywhere else.
func (h *handler) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	log := server.Logger(c)
	bodies, ok := h.bodies[c.Path()]
	if !ok {
		bodies = systemOneBodies{}
	}
	var (
		se *systemone.SyntaxError
		ve *systemone.ValidationError
		he *echo.HTTPError
		fe *fault.Error
	)
	switch {
	case errors.As(err, &se):
		fe = fault.New(fault.InvalidArgument, "%s", se.Error())
	case errors.As(err, &ve):
		log.Info("invalid request", "problems", len(ve.Items))
		h.write(c, http.StatusUnprocessableEntity, bodies.validation(ve))
		return
	case errors.As(err, &he):
		fe = fromEcho(he)
	default:
		fe = fault.From(err)
	}
	if fe.Code.Status() >= 500 {
		log.Error("request failed", "err", err, "cause", fe.Err)
	}
	if fe.RetryAfter > 0 {
		hdr := c.Response().Header()
		hdr.Set("Retry-After", fmt.Sprint((ceilMillis(fe.RetryAfter)+999)/1000))
		hdr.Set("retry-after-ms", fmt.Sprint(ceilMillis(fe.RetryAfter)))
	}
	msg := fe.Message
	if fe.Code == fault.Internal {
		msg = "internal error"
	}
	h.write(c, fe.Code.Status(), bodies.fault(fe.Kind(), msg))
}

func (h *handler) write(c echo.Context, status int, body any) {
	var err error
	if c.Request().Method == http.MethodHead {
		err = c.NoContent(status)
	} else {
		err = c.JSON(status, body)
	}
	if err != nil {
		server.Logger(c).Warn("writing the error response failed", "err", err)
	}
}

// fromEcho maps the errors echo raises itself (no route, wrong method).
func fromEcho(he *echo.HTTPError) *fault.Error {
	switch he.Code {
	case http.StatusNotFound:
		return fault.New(fault.NotFound, "no such endpoint")
	case http.StatusMethodNotAllowed:
		return fault.New(fault.MethodNotAllowed, "method not allowed on this endpoint")
	case http.StatusRequestEntityTooLarge:
		return fault.New(fault.TooLarge, "the body is too large")
	case http.StatusUnauthorized:
		return fault.New(fault.Unauthenticated, "authentication required")
	}
	if he.Code >= 400 && he.Code < 500 {
		return fault.New(fault.InvalidArgument, "%s", http.StatusText(he.Code))
	}
	return fault.New(fault.Internal, "internal error")
}

// ceilMillis rounds d up to whole milliseconds, so a client that waits the
// advertised time always finds a token.
func ceilMillis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}
