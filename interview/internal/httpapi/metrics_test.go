package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/judgeworks/shared/server/metricstest"
)

// parseSeries reads the labelled samples of the families named with prefix;
// every sample there is labelled.
func parseSeries(t *testing.T, body, prefix string) []metricstest.Series {
	t.Helper()
	labelled, unlabelled := metricstest.Samples(body, prefix)
	if len(unlabelled) > 0 {
		t.Fatalf("unparsable sample %q", unlabelled[0])
	}
	return labelled
}

// TestMetricLabelsAreBounded: requests with methods and paths a client
// makes up must not create label values: methods outside the known set count
// as "other", routes are registered patterns or "unmatched".
func TestMetricLabelsAreBounded(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	routes := map[string]bool{"unmatched": true}
	for _, r := range e.router.Routes() {
		routes[r.Path] = true
	}
	methods := map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true,
		"DELETE": true, "HEAD": true, "OPTIONS": true, "other": true}

	var sent []string // every made-up method and path segment
	paths := []string{"/healthz", "/readyz", "/api/auth/login", "/api/auth/me", "/api/interview/history"}
	for range 20 {
		seg := metricstest.RandomToken(t, "abcdefghijklmnopqrstuvwxyz0123456789", 12)
		sent = append(sent, seg)
		paths = append(paths, "/"+seg, "/api/"+seg, "/api/interview/"+seg, "/healthz/"+seg, "/v1/"+seg+"/x")
	}
	const requests = 200
	for i := range requests {
		method := []string{http.MethodGet, http.MethodPost, http.MethodDelete}[i%3]
		if i%2 == 0 {
			// A token, as HTTP allows: mixed case, digits and symbols.
			method = metricstest.RandomToken(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~", 10)
			sent = append(sent, method)
		}
		c.do(method, paths[i%len(paths)], nil)
	}

	body := string(must(t, c.do(http.MethodGet, "/metrics", nil), http.StatusOK).body)
	all := parseSeries(t, body, "interview_http_")
	if len(all) == 0 {
		t.Fatalf("no interview_http_ series in:\n%s", body)
	}
	var counted float64
	seenOther, seenUnmatched := false, false
	for _, s := range all {
		for name, v := range s.Labels {
			switch name {
			case "method":
				if !methods[v] {
					t.Errorf("%s: method label %q is outside the fixed set", s.Name, v)
				}
				seenOther = seenOther || v == "other"
			case "route":
				if !routes[v] {
					t.Errorf("%s: route label %q is not a registered route", s.Name, v)
				}
				seenUnmatched = seenUnmatched || v == "unmatched"
			case "status":
				if len(v) != 3 || v < "100" || v > "599" {
					t.Errorf("%s: status label %q", s.Name, v)
				}
			case "le":
			default:
				t.Errorf("%s: unexpected label %s=%q", s.Name, name, v)
			}
			for _, made := range sent {
				if strings.Contains(v, made) {
					t.Errorf("%s: label %s=%q carries the client's %q", s.Name, name, v, made)
				}
			}
		}
		if s.Name == "interview_http_requests_total" {
			counted++
		}
	}
	// The made-up requests are counted, not dropped.
	if !seenOther || !seenUnmatched {
		t.Errorf("no \"other\" method (%v) or \"unmatched\" route (%v) series", seenOther, seenUnmatched)
	}
	// Bounded: at most one series per method, route and status seen, far
	// fewer than the requests sent.
	if counted > float64(len(methods)*len(routes)*4) || counted >= requests/2 {
		t.Errorf("%v request series for %d requests", counted, requests)
	}
}

// TestMethodLabelKeepsKnownMethods pins the fixed set, "get" included: a
// method is case-sensitive, so a lower-case one is not GET.
func TestMethodLabelKeepsKnownMethods(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "get", "PROPFIND", "TRACE"} {
		c.do(m, "/healthz", nil)
	}
	body := string(must(t, c.do(http.MethodGet, "/metrics", nil), http.StatusOK).body)
	got := map[string]bool{}
	for _, s := range parseSeries(t, body, "interview_http_requests_total") {
		if s.Labels["route"] == "/healthz" {
			got[s.Labels["method"]] = true
		}
	}
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "other"} {
		if !got[m] {
			t.Errorf("no /healthz series with method %q; have %v", m, got)
		}
	}
	for m := range got {
		if m == "get" || m == "PROPFIND" || m == "TRACE" {
			t.Errorf("method %q has a series of its own", m)
		}
	}
}
