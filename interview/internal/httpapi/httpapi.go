// Package httpapi is the interview service's HTTP layer, every route of it:
// it turns requests into account, interview and voice calls (an upload's
// body read at its pace and within its bounds included) and their errors
// into the pinned JSON error shape, and nothing else.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/account"
	"github.com/judgeworks/interview/internal/auth"
	"github.com/judgeworks/interview/internal/interviews"
	"github.com/judgeworks/interview/internal/throttle"
	"github.com/judgeworks/interview/internal/voice"
	"github.com/judgeworks/shared/server"
)

// CookieName is the session cookie.
const CookieName = "session"

// BodyLimit bounds JSON request bodies.
const BodyLimit = "64K"

// voiceFeatures names the voice features the page may offer.
type voiceFeatures struct {
	Transcribe bool `json:"transcribe"`
	Speech     bool `json:"speech"`
}

// Deps is what the router needs.
type Deps struct {
	Logger         *slog.Logger
	Accounts       *account.Service
	Interviews     *interviews.Service
	Tokens         *auth.Tokens
	SecureCookies  bool
	GoogleClientID string
	// Voice serves the voice routes; nil leaves them out.
	Voice *voice.Service
	// Ready reports whether the database is reachable.
	Ready func(context.Context) error
	// Registry collects the metrics served on /metrics.
	Registry *prometheus.Registry
	// Throttle limits sign-in and registration attempts; nil turns the
	// limits off (tests of other things, load programs).
	Throttle *throttle.Auth
	// TrustedProxies are the peers whose X-Forwarded-For is believed when
	// naming a client's address; none: the peer's own address.
	TrustedProxies []*net.IPNet
	// SharedLookups limits the share links a client network opens that do
	// not exist; nil turns the limit off.
	SharedLookups *throttle.Lookups
	// RoleFamilies are the role families the offline question bank covers
	// and FallbackFamily the one any other role gets; empty with a
	// language model, which asks about any role.
	RoleFamilies   []string
	FallbackFamily string
}

// API holds the handlers.
type API struct {
	d Deps
}

// New returns the echo instance with every route of the service but the web
// client, which the caller mounts last as the fallback.
func New(d Deps) *echo.Echo {
	a := &API{d: d}
	e := server.New(d.Logger)
	e.HTTPErrorHandler = HandleError
	e.IPExtractor = ipExtractor(d.TrustedProxies)
	e.Use(redactShareTokens, metrics(d.Registry), jsonOnly)

	e.GET("/healthz", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	e.GET("/readyz", a.readyz)
	e.GET("/metrics", echo.WrapHandler(promhttp.HandlerFor(d.Registry, promhttp.HandlerOpts{})))

	api := e.Group("/api", middleware.BodyLimit(BodyLimit))
	api.GET("/config", a.config)
	api.POST("/auth/register", a.register)
	api.POST("/auth/login", a.login)
	api.POST("/auth/logout", a.logout)
	api.GET("/auth/me", a.me)
	api.DELETE("/auth/me", a.deleteAccount)
	api.POST("/auth/google", a.google)
	api.POST("/auth/password", a.changePassword)
	api.POST("/auth/logout-all", a.logoutAll)
	api.POST("/interview/start", a.start)
	api.GET("/interview/history", a.history)
	api.GET("/interview/active", a.active)
	api.GET("/interview/families", a.families)
	api.GET("/interview/:id", a.get)
	api.DELETE("/interview/:id", a.discard)
	api.POST("/interview/answer", a.answer)
	api.POST("/interview/retry", a.retry)
	api.POST("/interview/finish", a.finish)
	api.POST("/interview/:id/share", a.share)
	api.DELETE("/interview/:id/share", a.unshare)
	api.GET("/shared/:token", a.shared)
	// Unknown API paths answer JSON, never the web client's HTML.
	api.Any("/*", func(echo.Context) error { return echo.ErrNotFound })
	if d.Voice != nil {
		(&voiceHandler{svc: d.Voice, userID: a.userID, grace: UploadGrace}).register(e)
	}
	return e
}

// sessionToken returns the request's session and its token.
func (a *API) sessionToken(c echo.Context) (auth.Session, string, error) {
	s, err := a.session(c)
	if err != nil {
		return s, "", err
	}
	ck, _ := c.Cookie(CookieName)
	return s, ck.Value, nil
}

// userID returns the signed-in user's id from the session cookie, or an
// unauthenticated error.
func (a *API) userID(c echo.Context) (string, error) {
	s, err := a.session(c)
	return s.Subject, err
}

// session returns the session of the request's cookie: a valid token whose
// version is still the account's (see account.Service.Check). A revoked
// session's cookie is cleared with the refusal.
func (a *API) session(c echo.Context) (auth.Session, error) {
	ck, err := c.Cookie(CookieName)
	if err != nil || ck.Value == "" {
		return auth.Session{}, interview.Errorf(interview.Unauthenticated, "sign in first")
	}
	s, err := a.d.Tokens.VerifySession(ck.Value)
	if err != nil {
		return auth.Session{}, interview.Wrap(err, interview.Unauthenticated, "your session is invalid or expired; sign in again")
	}
	if err := a.d.Accounts.Check(c.Request().Context(), s, ck.Value); err != nil {
		if interview.Is(err, interview.Unauthenticated) {
			c.SetCookie(auth.ClearedCookie(CookieName, a.d.SecureCookies))
		}
		return auth.Session{}, err
	}
	return s, nil
}

func (a *API) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := a.d.Ready(ctx); err != nil {
		return interview.Wrap(err, interview.Unavailable, "database unreachable")
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}

// limits are the bounds the page shows and holds its forms to, read from
// the rules that enforce them so that the page copies none.
type limits struct {
	MinQuestions      int `json:"minQuestions"`
	MaxQuestions      int `json:"maxQuestions"`
	MaxFollowUps      int `json:"maxFollowUps"`
	DefaultFollowUps  int `json:"defaultFollowUps"`
	MaxSetupText      int `json:"maxSetupText"`
	MinPassword       int `json:"minPassword"`
	MaxAnswer         int `json:"maxAnswer"`
	MaxJobDescription int `json:"maxJobDescription"`
	// MaxInProgress is 0 when there is no cap.
	MaxInProgress int `json:"maxInProgress"`
}

func (a *API) config(c echo.Context) error {
	var v voiceFeatures
	if a.d.Voice != nil {
		v.Transcribe, v.Speech = a.d.Voice.Features()
	}
	return c.JSON(http.StatusOK, map[string]any{
		"googleClientId": a.d.GoogleClientID,
		"voice":          v,
		"mode":           a.d.Interviews.Mode(),
		"roleFamilies":   nonNilStrings(a.d.RoleFamilies),
		"fallbackFamily": a.d.FallbackFamily,
		// Easiest first: the page offers them in this order and steps one
		// down for easier practice.
		"difficulties":      interview.Difficulties(),
		"defaultDifficulty": interview.DefaultDifficulty,
		"limits": limits{
			MinQuestions: interviews.MinQuestions, MaxQuestions: interviews.MaxQuestions,
			MaxFollowUps: interviews.MaxFollowUps, DefaultFollowUps: interviews.DefaultFollowUps,
			MaxSetupText: interviews.MaxSetupChars, MinPassword: account.MinPasswordChars, MaxAnswer: interviews.MaxAnswerChars, MaxJobDescription: interviews.MaxJobDescription,
			MaxInProgress: a.d.Interviews.MaxInProgress(),
		},
	})
}

func nonNilStrings(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// ipExtractor names the client: the nearest address in X-Forwarded-For
// that is not a trusted proxy, or the peer itself when the peer is not one.
// Nothing is trusted by default, so a client cannot pick its own address
// (and its own throttle bucket) by sending the header.
func ipExtractor(trusted []*net.IPNet) echo.IPExtractor {
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// redactShareTokens keeps share links out of the access log: the path of
// a report's page or data is logged with its token replaced, since a
// logged token is a working link.
func redactShareTokens(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		p := path.Clean("/" + c.Request().URL.Path)
		for _, prefix := range []string{"/api/shared/", "/shared/"} {
			if strings.HasPrefix(p, prefix) {
				server.LogPath(c, prefix+"REDACTED")
			}
		}
		return next(c)
	}
}

// jsonOnly refuses API POSTs whose body is not declared JSON (415), so an
// HTML form on another site, which can only send form, multipart or text
// bodies, cannot make a request the API acts on, whatever a browser does
// with cookies. A POST without a body and without a Content-Type (logout)
// passes; the transcription upload is multipart by design and checks its
// own body.
func jsonOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/api/voice/transcribe" {
			return next(c)
		}
		ct := r.Header.Get(echo.HeaderContentType)
		if ct == "" && r.ContentLength == 0 {
			return next(c)
		}
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != echo.MIMEApplicationJSON {
			return interview.Errorf(interview.Unsupported, "send the request body as JSON with Content-Type: application/json")
		}
		return next(c)
	}
}

// userAndBody returns the signed-in user's id and the request's JSON body,
// in that order: a caller who is not signed in learns nothing about the body.
func userAndBody[T any](a *API, c echo.Context) (string, T, error) {
	var req T
	uid, err := a.userID(c)
	if err != nil {
		return "", req, err
	}
	err = readJSON(c, &req)
	return uid, req, err
}

// readJSON decodes the request body into v.
func readJSON(c echo.Context, v any) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return he
		}
		if server.ReadTimedOut(err) {
			return interview.Wrap(err, interview.Timeout, "the request body did not arrive in time")
		}
		return interview.Wrap(err, interview.Invalid, "could not read the request body")
	}
	return decodeJSON(body, v)
}

// decodeJSON decodes a JSON object into v with a message a person can act
// on. Unknown fields are ignored: clients may send more than we read (the
// question text, say), and it must not matter.
func decodeJSON(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return interview.Errorf(interview.Invalid, "field %s has the wrong type (want %s)", te.Field, te.Type)
		}
		return interview.Errorf(interview.Invalid, "the request body must be a JSON object")
	}
	return nil
}

func metrics(reg *prometheus.Registry) echo.MiddlewareFunc {
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "interview_http_requests_total", Help: "HTTP requests by route and status.",
	}, []string{"method", "route", "status"})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "interview_http_request_duration_seconds", Help: "HTTP request latency by route.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 12),
	}, []string{"method", "route"})
	reg.MustRegister(requests, duration)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			if err := next(c); err != nil {
				c.Error(err)
			}
			route := routeLabel(c)
			method := methodLabel(c.Request().Method)
			requests.WithLabelValues(method, route, strconv.Itoa(c.Response().Status)).Inc()
			duration.WithLabelValues(method, route).Observe(time.Since(start).Seconds())
			return nil
		}
	}
}

// Label values come from fixed sets: every value a client can choose would
// otherwise become a series of its own, kept for the life of the process.

// routeLabel is the registered route pattern, never the path (ids would
// explode the series). echo sets Path to a registered pattern, for a 405
// too, and leaves it empty when nothing matched.
func routeLabel(c echo.Context) string {
	if route := c.Path(); route != "" {
		return route
	}
	return "unmatched"
}

// methodLabel is the method when it is one the API knows, else "other": a
// client may send any token as a method.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions:
		return method
	}
	return "other"
}
