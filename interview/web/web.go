// Package web ships the built web client inside the interview binary and
// serves it: hashed assets with long cache lifetimes, index.html for every
// other page path so that deep links such as /interview/<id> load the app.
//
// The app is built by `make build` (npm run build) into dist/app. A plain
// `go build` without it still compiles, because the embed pattern matches the
// committed dist/README; the handler then answers with a page that says how to
// build the client.
package web

import (
	"bytes"
	"embed"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

//go:embed all:dist
var dist embed.FS

// Vite puts content-hashed files under assets/: their names change whenever
// their bytes do, so browsers may keep them for a year without revalidating.
const (
	assetsDir      = "assets/"
	immutableCache = "public, max-age=31536000, immutable"
	revalidate     = "no-cache"
)

// notBuiltPage is served instead of the app when the binary was built
// without it, so that the cause is obvious from the browser.
const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Web client not built</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
<h1>Web client not built</h1>
<p>This interview service binary was built without its web client.
Run <code>make build</code> (or <code>npm ci &amp;&amp; npm run build</code> in
<code>interview/web</code>, then <code>go build</code> again) and restart the service.</p>
<p>The HTTP API under <code>/api/</code> works without it.</p>
</body></html>
`

// Handler returns the handler for the embedded app.
func Handler() http.Handler {
	app, err := fs.Sub(dist, "dist/app")
	if err != nil {
		// fs.Sub only fails for an invalid path, which "dist/app" is not.
		panic(err)
	}
	return newHandler(app)
}

// Register mounts the app on e as the fallback route for every path that no
// other route claims. Paths under /api/ are left to e's error handler as 404s
// so that API clients always get JSON, never the app's HTML.
func Register(e *echo.Echo) {
	h := Handler()
	e.Any("/*", func(c echo.Context) error {
		p := c.Request().URL.Path
		if p == "/api" || strings.HasPrefix(p, "/api/") {
			return echo.ErrNotFound
		}
		h.ServeHTTP(c.Response(), c.Request())
		return nil
	})
}

type handler struct {
	app   fs.FS
	index []byte // nil when the app was not built
	built time.Time
}

func newHandler(app fs.FS) *handler {
	h := &handler{app: app, built: time.Now()}
	if b, err := fs.ReadFile(app, "index.html"); err == nil {
		h.index = b
	}
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" || name == "index.html" {
		h.serveIndex(w, r)
		return
	}
	if h.serveFile(w, r, name) {
		return
	}
	// A missing script, style or image must not turn into HTML: the browser
	// would report a confusing MIME error instead of a plain 404.
	if strings.HasPrefix(name, assetsDir) || path.Ext(name) != "" {
		http.NotFound(w, r)
		return
	}
	h.serveIndex(w, r)
}

// serveFile serves name from the app if it is a regular file and reports
// whether it did.
func (h *handler) serveFile(w http.ResponseWriter, r *http.Request, name string) bool {
	f, err := h.app.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return false
	}
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		return false
	}
	if strings.HasPrefix(name, assetsDir) {
		w.Header().Set("Cache-Control", immutableCache)
	} else {
		w.Header().Set("Cache-Control", revalidate)
	}
	// Embedded files carry no modification time; ServeContent then relies
	// on the Cache-Control above alone, which is what we want.
	http.ServeContent(w, r, name, st.ModTime(), rs)
	return true
}

func (h *handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", revalidate)
	if h.index == nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		if r.Method != http.MethodHead {
			_, _ = w.Write([]byte(notBuiltPage))
		}
		return
	}
	http.ServeContent(w, r, "index.html", h.built, bytes.NewReader(h.index))
}

// errNotBuilt is reported by Built when the binary carries no app.
var errNotBuilt = errors.New("web client not built: run make build")

// Built reports whether the binary carries the built app, so that main can
// log a clear warning at start-up.
func Built() error {
	if _, err := fs.Stat(dist, "dist/app/index.html"); err != nil {
		return errNotBuilt
	}
	return nil
}
