package server

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

func TestRequestID(t *testing.T) {
	cases := []struct {
		name, incoming string
		keep           bool
	}{
		{"none", "", false},
		{"plain id kept", "abc-123_X.y", true},
		{"newline replaced", "abc\ninjected=1", false},
		{"too long replaced", strings.Repeat("a", 65), false},
		{"space replaced", "a b", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			e := New(slog.New(slog.NewJSONHandler(&logs, nil)))
			var seen string
			e.GET("/", func(c echo.Context) error {
				seen = RequestID(c)
				return c.NoContent(http.StatusNoContent)
			})
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if tc.incoming != "" {
				req.Header.Set(HeaderRequestID, tc.incoming)
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			got := rec.Header().Get(HeaderRequestID)
			if got == "" || got != seen {
				t.Fatalf("response id %q, handler saw %q", got, seen)
			}
			if tc.keep != (got == tc.incoming) {
				t.Fatalf("incoming %q, got %q, want kept=%v", tc.incoming, got, tc.keep)
			}
			if !tc.keep && !regexp.MustCompile(`^req_[0-9a-f]{32}$`).MatchString(got) {
				t.Fatalf("new id %q, want req_ and 32 hex digits", got)
			}
			if !strings.Contains(logs.String(), `"request_id":"`+got+`"`) {
				t.Fatalf("access log lacks the request id: %s", logs.String())
			}
		})
	}
}

// A logger set by middleware is the one both Logger and LoggerFrom return,
// with the request id it was derived from.
func TestSetLoggerReachesContext(t *testing.T) {
	var logs bytes.Buffer
	e := New(slog.New(slog.NewJSONHandler(&logs, nil)))
	enrich := func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			SetLogger(c, Logger(c).With("caller", "key#2"))
			return next(c)
		}
	}
	e.GET("/", func(c echo.Context) error {
		Logger(c).Info("from the handler")
		LoggerFrom(c.Request().Context()).Info("from the domain")
		return c.NoContent(http.StatusNoContent)
	}, enrich)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	id := rec.Header().Get(HeaderRequestID)
	for _, msg := range []string{"from the handler", "from the domain"} {
		var line string
		for l := range strings.SplitSeq(logs.String(), "\n") {
			if strings.Contains(l, `"msg":"`+msg+`"`) {
				line = l
			}
		}
		if !strings.Contains(line, `"caller":"key#2"`) || !strings.Contains(line, `"request_id":"`+id+`"`) {
			t.Errorf("%s: log line %q lacks the enriched logger's attributes", msg, line)
		}
	}
}

func TestPanicBecomesError(t *testing.T) {
	e := New(slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)))
	e.GET("/boom", func(c echo.Context) error { panic("secret detail") })
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/boom", nil))
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", rec.Code)
	}
	if strings.Contains(rec.Body.String(), "secret detail") {
		t.Fatalf("panic value leaked to the client: %s", rec.Body.String())
	}
	if rec.Header().Get(HeaderRequestID) == "" {
		t.Fatal("no request id on the error response")
	}
}

// logFields lists a JSON log line's fields in order, time and duration
// blanked (they differ from line to line).
func logFields(t *testing.T, line string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %q", line)
	}
	var out []string
	for dec.More() {
		k, _ := dec.Token()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if k == "time" || k == "duration" {
			v = "…"
		}
		out = append(out, fmt.Sprintf("%s=%v", k, v))
	}
	return out
}

// The access log line is the one the request's logger, derived attribute
// by attribute, would write: the same fields in the same order, with what
// middleware added (AddLogAttr) and the path LogPath gives.
func TestAccessLogLine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		logPath string
		set     bool
	}{{"plain", "", false}, {"log path", "/shared/REDACTED", false}, {"logger set", "", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			base := slog.New(slog.NewJSONHandler(&logs, nil))
			e := New(base)
			e.GET("/shared/:token", func(c echo.Context) error {
				AddLogAttr(c, "key", "key#2")
				if tc.set {
					SetLogger(c, Logger(c).With("extra", "yes"))
				}
				if tc.logPath != "" {
					LogPath(c, tc.logPath)
				}
				return c.String(http.StatusTeapot, "short and stout")
			})
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/shared/secret", nil))
			id := rec.Header().Get(HeaderRequestID)
			got := logFields(t, strings.TrimSpace(logs.String()))

			var want bytes.Buffer
			l := slog.New(slog.NewJSONHandler(&want, nil)).With("request_id", id).With("key", "key#2")
			if tc.set {
				l = l.With("extra", "yes")
			}
			path := cmp.Or(tc.logPath, "/shared/secret")
			l.Info("request", "method", "GET", "path", path, "status", http.StatusTeapot, "bytes", len("short and stout"), "duration", time.Second)
			if w := logFields(t, strings.TrimSpace(want.String())); !slices.Equal(got, w) {
				t.Fatalf("access log\n%v\nwant\n%v", got, w)
			}
		})
	}
}

// An attribute added by middleware reaches the handler's and the domain's
// lines too.
func TestAddLogAttrReachesContext(t *testing.T) {
	var logs bytes.Buffer
	e := New(slog.New(slog.NewJSONHandler(&logs, nil)))
	e.GET("/", func(c echo.Context) error {
		AddLogAttr(c, "caller", "key#2")
		Logger(c).Info("from the handler")
		LoggerFrom(c.Request().Context()).Info("from the domain")
		return c.NoContent(http.StatusNoContent)
	})
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	id := rec.Header().Get(HeaderRequestID)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3: %s", len(lines), logs.String())
	}
	for _, line := range lines {
		if !strings.Contains(line, `"request_id":"`+id+`","caller":"key#2"`) {
			t.Errorf("log line %q lacks the request's attributes", line)
		}
	}
}
