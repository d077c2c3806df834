package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/labstack/echo/v4"
)

func builtApp() fstest.MapFS {
	return fstest.MapFS{
		"index.html":             {Data: []byte(`<!doctype html><div id="root"></div>`)},
		"assets/index-abc123.js": {Data: []byte(`console.log(1)`)},
		"favicon.svg":            {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
	}
}

func TestHandler(t *testing.T) {
	tests := []struct {
		name        string
		app         fstest.MapFS
		method      string
		path        string
		status      int
		contentType string
		cache       string
		bodyHas     string
	}{
		{"root serves the app", builtApp(), "GET", "/", 200, "text/html", "no-cache", `id="root"`},
		{"deep link falls back to the app", builtApp(), "GET", "/interview/6f1c", 200, "text/html", "no-cache", `id="root"`},
		{"report deep link", builtApp(), "GET", "/report/6f1c", 200, "text/html", "no-cache", `id="root"`},
		{"hashed asset is immutable", builtApp(), "GET", "/assets/index-abc123.js", 200, "javascript", "immutable", "console.log"},
		{"other static file revalidates", builtApp(), "GET", "/favicon.svg", 200, "image/svg", "no-cache", "<svg"},
		{"missing asset is a 404, not HTML", builtApp(), "GET", "/assets/index-gone.js", 404, "text/plain", "", "not found"},
		{"missing file with extension is a 404", builtApp(), "GET", "/robots.txt", 404, "text/plain", "", "not found"},
		{"dot-dot cannot escape", builtApp(), "GET", "/../../etc/passwd", 200, "text/html", "no-cache", `id="root"`},
		{"HEAD works", builtApp(), "HEAD", "/history", 200, "text/html", "no-cache", ""},
		{"POST is refused", builtApp(), "POST", "/", 405, "text/plain", "", "method not allowed"},
		{"not built: clear page", fstest.MapFS{}, "GET", "/", 503, "text/html", "no-cache", "make build"},
		{"not built: deep link too", fstest.MapFS{}, "GET", "/history", 503, "text/html", "no-cache", "Web client not built"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHandler(tt.app)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			wantResponse(t, rec, tt.status, tt.contentType, tt.bodyHas)
			if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, tt.cache) {
				t.Errorf("Cache-Control = %q, want it to contain %q", cc, tt.cache)
			}
		})
	}
}

// wantResponse checks rec's status (0: any), that its Content-Type
// contains contentType and its body bodyHas.
func wantResponse(t *testing.T, rec *httptest.ResponseRecorder, status int, contentType, bodyHas string) {
	t.Helper()
	if status != 0 && rec.Code != status {
		t.Fatalf("status = %d, want %d; body %q", rec.Code, status, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.Contains(ct, contentType) {
		t.Errorf("Content-Type = %q, want it to contain %q", ct, contentType)
	}
	if !strings.Contains(rec.Body.String(), bodyHas) {
		t.Errorf("body %q does not contain %q", rec.Body.String(), bodyHas)
	}
}

// TestRegister checks the router contract: the app is the fallback for page
// paths, while unknown API paths stay errors of the service's error handler
// and explicit routes win.
func TestRegister(t *testing.T) {
	e := echo.New()
	e.GET("/api/auth/me", func(c echo.Context) error { return c.JSON(200, map[string]string{"route": "me"}) })
	e.GET("/healthz", func(c echo.Context) error { return c.String(200, "ok") })
	Register(e)

	tests := []struct {
		method, path string
		status       int
		bodyHas      string
		contentType  string
	}{
		{"GET", "/api/auth/me", 200, `"route":"me"`, "application/json"},
		{"GET", "/api/nope", 404, "Not Found", "application/json"},
		{"POST", "/api/interview/nope", 404, "Not Found", "application/json"},
		{"GET", "/api", 404, "Not Found", "application/json"},
		{"GET", "/healthz", 200, "ok", "text/plain"},
		// This test binary may or may not carry a built app; either way a
		// page path gets HTML, never JSON.
		{"GET", "/interview/abc", 0, "", "text/html"},
		{"GET", "/apiary", 0, "", "text/html"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			wantResponse(t, rec, tt.status, tt.contentType, tt.bodyHas)
		})
	}
}

// TestBuiltMatchesEmbed keeps Built honest against the real embedded tree.
func TestBuiltMatchesEmbed(t *testing.T) {
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if Built() == nil && rec.Code != http.StatusOK {
		t.Fatalf("Built() says built but / answered %d", rec.Code)
	}
	if Built() != nil && rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("Built() says not built but / answered %d", rec.Code)
	}
}
