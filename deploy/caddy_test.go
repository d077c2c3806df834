package deploy

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/judgeworks/shared/proctest"
)

// startCaddy runs the real Caddy with deploy/Caddyfile in front of upstream
// (both routes) on a free port, with env added, and returns its base URL and
// port.
func startCaddy(t *testing.T, upstream string, env ...string) (string, int) {
	t.Helper()
	_, base, port := runCaddy(t, upstream, env...)
	return base, port
}

// runCaddy is startCaddy that also returns the process, whose output is
// Caddy's logs.
func runCaddy(t *testing.T, upstream string, env ...string) (*proctest.Proc, string, int) {
	t.Helper()
	caddyBin, err := exec.LookPath("caddy")
	if err != nil {
		t.Fatal("caddy is not installed: run make deps")
	}
	work := t.TempDir()
	port, err := proctest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(upstream, "http://")
	env = append(append(proctest.BaseEnv(work), fmt.Sprintf("CADDY_ADDR=:%d", port),
		"JUDGE_UPSTREAM="+host, "INTERVIEW_UPSTREAM="+host), env...)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	proc := proctest.Run(t, proctest.Cmd{Name: "caddy", Path: caddyBin, Dir: work, Env: env,
		Args: []string{"run", "--config", filepath.Join(repoRoot(t), "deploy/Caddyfile"), "--adapter", "caddyfile"}},
		base+"/healthz")
	return proc, base, port
}

// pathRecorder is an upstream that answers 200 and remembers every path it
// was asked for.
type pathRecorder struct {
	mu    sync.Mutex
	paths []string
}

func (p *pathRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.paths = append(p.paths, r.URL.Path)
	p.mu.Unlock()
	fmt.Fprint(w, "upstream")
}

func (p *pathRecorder) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.paths...)
}

// TestCaddyHidesMetrics: /metrics of both services is for a scraper on their
// own ports; through the proxy it is a 404 that never reaches a service,
// whatever the method and however the path is spelled, while neighbouring
// paths still pass.
func TestCaddyHidesMetrics(t *testing.T) {
	rec := &pathRecorder{}
	upstream := httptest.NewServer(rec)
	defer upstream.Close()
	base, _ := startCaddy(t, upstream.URL)

	for _, tc := range []struct {
		method, path string
	}{
		{http.MethodGet, "/metrics"},
		{http.MethodGet, "/metrics/"},
		{http.MethodGet, "/metrics/extra"},
		{http.MethodGet, "/metrics?format=prometheus"},
		{http.MethodGet, "/METRICS"},
		{http.MethodGet, "/%6detrics"},
		{http.MethodGet, "/./metrics"},
		{http.MethodGet, "/v1/../metrics"},
		{http.MethodHead, "/metrics"},
		{http.MethodPost, "/metrics"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			// Sent as written: the client must not clean the path first.
			req, err := http.NewRequest(tc.method, base, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Opaque = tc.path
			if i := strings.IndexByte(tc.path, '?'); i >= 0 {
				req.URL.Opaque, req.URL.RawQuery = tc.path[:i], tc.path[i+1:]
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("status %d, want 404 (body %q)", resp.StatusCode, body)
			}
			if strings.Contains(string(body), "upstream") {
				t.Errorf("the request reached the upstream: %q", body)
			}
			// The proxy's own answer carries the security headers too.
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("404 without the security headers: %v", resp.Header)
			}
		})
	}
	for _, p := range rec.seen() {
		if clean := strings.ToLower(p); clean == "/metrics" || strings.HasPrefix(clean, "/metrics/") {
			t.Errorf("upstream was asked for %q", p)
		}
	}

	// The matcher is no wider than /metrics: these still reach a service.
	for _, path := range []string{"/metricsboard", "/api/metrics", "/v1/metrics", "/healthz"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != "upstream" {
			t.Errorf("%s: status %d body %q, want the upstream's 200", path, resp.StatusCode, body)
		}
	}
}

// TestCaddyBindsLoopbackByDefault: make run leaves CADDY_BIND unset, and the
// proxy must then listen on 127.0.0.1 only; CADDY_BIND moves it (compose sets
// 0.0.0.0 inside the container). Read from the kernel's socket table, so the
// test needs no address other than loopback.
func TestCaddyBindsLoopbackByDefault(t *testing.T) {
	upstream := httptest.NewServer(&pathRecorder{})
	defer upstream.Close()
	for _, tc := range []struct {
		name string
		env  []string
		// Go listens on [::] (both families) when asked for 0.0.0.0.
		want []string
	}{
		{"unset", nil, []string{"127.0.0.1"}},
		{"0.0.0.0", []string{"CADDY_BIND=0.0.0.0"}, []string{"0.0.0.0", "::"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, port := startCaddy(t, upstream.URL, tc.env...)
			got := listenAddrs(t, port)
			if len(got) != 1 || !slices.Contains(tc.want, got[0]) {
				t.Errorf("listening on %v, want one of %v", got, tc.want)
			}
		})
	}
}

// listenAddrs returns the local addresses with a listening TCP socket on
// port, from /proc/net/tcp and tcp6: dotted IPv4, "::" for IPv6's any
// address, other IPv6 addresses in the kernel's hex.
func listenAddrs(t *testing.T, port int) []string {
	t.Helper()
	var addrs []string
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(file)
		if err != nil {
			if file == "/proc/net/tcp6" {
				continue // no IPv6 on this machine
			}
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// sl local_address rem_address st …; st 0A is LISTEN.
			if len(fields) < 4 || fields[3] != "0A" {
				continue
			}
			host, p, ok := strings.Cut(fields[1], ":")
			if !ok || p != fmt.Sprintf("%04X", port) {
				continue
			}
			if file == "/proc/net/tcp6" {
				if strings.Trim(host, "0") == "" {
					host = "::"
				}
				addrs = append(addrs, host)
				continue
			}
			addrs = append(addrs, hexIPv4(host))
		}
		f.Close()
	}
	return addrs
}

// hexIPv4 turns /proc/net/tcp's little-endian hex address into dotted form.
func hexIPv4(h string) string {
	var b [4]byte
	for i := range b {
		fmt.Sscanf(h[2*i:2*i+2], "%02X", &b[3-i])
	}
	return fmt.Sprintf("%d.%d.%d.%d", b[0], b[1], b[2], b[3])
}

// securityHeaders are the headers every answer through Caddy carries.
var securityHeaders = []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Permissions-Policy", "Referrer-Policy"}

// TestCaddyHeadersOnSharedReportsAndErrors: through Caddy a shared report's
// page and data keep the service's Referrer-Policy (no-referrer) and are
// noindex, and Caddy's own 502s carry the security headers too. Share tokens, in the path or in a
// Referer, appear in none of Caddy's log lines, its errors included.
func TestCaddyHeadersOnSharedReportsAndErrors(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/shared/") {
			w.Header().Set("Referrer-Policy", "no-referrer") // as the service does
		}
		fmt.Fprint(w, "upstream")
	}))
	proc, base, _ := runCaddy(t, upstream.URL)
	token := "Tok3nTok3nTok3nTok3nTok3nTok3nTok3nTok3nTok"
	get := func(path string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Referer", base+"/shared/"+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	check := func(resp *http.Response, path string, status int, referrer, robots string) {
		t.Helper()
		if resp.StatusCode != status {
			t.Errorf("%s: status %d, want %d", path, resp.StatusCode, status)
		}
		for _, h := range securityHeaders {
			if resp.Header.Get(h) == "" {
				t.Errorf("%s (%d): no %s", path, resp.StatusCode, h)
			}
		}
		if resp.Header.Get("Server") != "" {
			t.Errorf("%s (%d): Server %q", path, resp.StatusCode, resp.Header.Get("Server"))
		}
		if got := resp.Header.Get("Referrer-Policy"); got != referrer {
			t.Errorf("%s (%d): Referrer-Policy %q, want %q", path, resp.StatusCode, got, referrer)
		}
		if got := resp.Header.Get("X-Robots-Tag"); got != robots {
			t.Errorf("%s (%d): X-Robots-Tag %q, want %q", path, resp.StatusCode, got, robots)
		}
	}
	for _, status := range []int{http.StatusOK, http.StatusBadGateway} {
		if status == http.StatusBadGateway {
			upstream.Close() // Caddy answers by itself from here on
		}
		check(get("/shared/"+token), "/shared/"+token, status, "no-referrer", "noindex")
		check(get("/api/shared/"+token), "/api/shared/"+token, status, "no-referrer", "noindex")
		check(get("/"), "/", status, "strict-origin-when-cross-origin", "")
		check(get("/v1/models"), "/v1/models", status, "strict-origin-when-cross-origin", "")
	}

	out := proc.Output()
	if strings.Contains(out, token) {
		t.Fatalf("a share token is in Caddy's output:\n%s", out)
	}
	if !strings.Contains(out, `"uri":"/api/shared/REDACTED"`) || !strings.Contains(out, `"uri":"/shared/REDACTED"`) {
		t.Fatalf("no redacted share paths in Caddy's access log:\n%s", out)
	}
}
