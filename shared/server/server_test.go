package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

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
