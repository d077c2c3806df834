package deploy

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/judgeworks/shared/pgtest"
	"github.com/judgeworks/shared/proctest"
)

// frontProxy stands for a load balancer or CDN in front of Caddy: it names
// each client in X-Forwarded-For. The test says which client it is in
// X-Test-Client, as the client's own address would.
func frontProxy(t *testing.T, caddyURL string) string {
	t.Helper()
	target, err := url.Parse(caddyURL)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host
		r.Out.Header.Set("X-Forwarded-For", r.In.Header.Get("X-Test-Client"))
		r.Out.Header.Del("X-Test-Client")
	}})
	t.Cleanup(srv.Close)
	return srv.URL
}

// startInterviewBehindCaddy starts bin/interview on a fresh database, with
// its sign-in limits on and loopback (Caddy) as its trusted proxy, and
// deploy/Caddyfile in front of it with caddyEnv added.
func startInterviewBehindCaddy(t *testing.T, caddyEnv ...string) string {
	t.Helper()
	work := t.TempDir()
	port, err := proctest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	svc := fmt.Sprintf("127.0.0.1:%d", port)
	proctest.Run(t, proctest.Cmd{Name: "interview", Path: proctest.Build(t, interviewPkg), Dir: work,
		Env: append(proctest.BaseEnv(work),
			"INTERVIEW_ADDR="+svc, "DATABASE_URL="+pgtest.NewDatabase(t), "DATA_DIR="+filepath.Join(work, ".data"),
			"TRUSTED_PROXIES=loopback", "AUTH_THROTTLE=on")}, "http://"+svc+"/healthz")
	// No judge behind this Caddy: its routes go to a closed port.
	base, _ := startCaddy(t, "http://"+svc, append([]string{"JUDGE_UPSTREAM=127.0.0.1:9"}, caddyEnv...)...)
	return base
}

// login signs in through base as client (an address) and returns the status.
func login(t *testing.T, base, client, email, password string) int {
	t.Helper()
	h := http.Header{"X-Test-Client": {client}}
	resp := call(t, http.DefaultClient, http.MethodPost, base+"/api/auth/login", h,
		map[string]string{"email": email, "password": password}, nil)
	return resp.StatusCode
}

// One client guessing passwords through a front proxy is limited by its
// own address; another client behind the same proxy signs in as usual.
// Without CADDY_TRUSTED_PROXIES every client there shares the proxy's
// address, and the guesser locks the others out.
func TestSignInLimitsBehindAFrontProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the interview service and Caddy")
	}
	const guesser, owner = "203.0.113.5", "198.51.100.7"
	for _, tc := range []struct {
		name           string
		caddyEnv       []string
		ownerLockedOut bool
	}{
		{"front proxy trusted", []string{"CADDY_TRUSTED_PROXIES=127.0.0.1/32 ::1"}, false},
		{"front proxy not trusted", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := frontProxy(t, startInterviewBehindCaddy(t, tc.caddyEnv...))
			resp := call(t, http.DefaultClient, http.MethodPost, base+"/api/auth/register", http.Header{"X-Test-Client": {owner}},
				map[string]string{"fullName": "Owner", "email": "owner@example.com", "password": "correct horse battery"}, nil)
			wantStatus(t, resp, http.StatusCreated)

			// Failed sign-ins to as many accounts: the address's 20, and the
			// one a token refilled while they ran (one per 6 s), then 429.
			refusedAt := 0
			for i := 1; i <= 40 && refusedAt == 0; i++ {
				switch s := login(t, base, guesser, fmt.Sprintf("nobody%d@example.com", i), "guess"); s {
				case http.StatusTooManyRequests:
					refusedAt = i
				case http.StatusUnauthorized:
				default:
					t.Fatalf("guess %d: status %d", i, s)
				}
			}
			if refusedAt <= 20 {
				t.Fatalf("guess %d refused; want the first 20 let through (0: none refused of 40)", refusedAt)
			}
			s := login(t, base, owner, "owner@example.com", "correct horse battery")
			if tc.ownerLockedOut {
				if s != http.StatusTooManyRequests {
					t.Fatalf("untrusted front proxy: the owner got %d; the clients did not share one address", s)
				}
				return
			}
			if s != http.StatusOK {
				t.Fatalf("the owner, another client behind the same proxy, got %d", s)
			}
		})
	}
}
