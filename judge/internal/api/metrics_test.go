package api

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/labstack/echo/v4"

	"github.com/judgeworks/shared/server/metricstest"
	"github.com/judgeworks/shared/systemone"
)

// answering is a backend that answers every noul question with 0.5.
type answering struct{}

func (answering) Ask(_ context.Context, req systemone.Request) (*systemone.Response, error) {
	half := 0.5
	answers := map[string]systemone.Answer{}
	for name := range req.Questions {
		answers[name] = systemone.Answer{Type: systemone.TypeNoul, Noul: &half}
	}
	return &systemone.Response{Model: req.Model, Answers: answers}, nil
}

// TestMetricLabelsAreBounded: whatever methods, paths, model names and
// question types clients make up, the judge's label values stay within fixed
// sets: routes are registered patterns or "unmatched", models the registry's,
// question types the three the API accepts, keys the configured ids.
func TestMetricLabelsAreBounded(t *testing.T) {
	srv := serve(t, answering{})
	routes := map[string]bool{"unmatched": true}
	for _, r := range srv.Config.Handler.(*echo.Echo).Routes() {
		routes[r.Path] = true
	}
	allowed := map[string]map[string]bool{
		"route": routes,
		"type":  {"noul": true, "choice": true, "score": true},
		"model": {"m-1": true},
		// The configured keys' ids only.
		"key": {auth.KeyID(sha256.Sum256([]byte("k"))): true},
	}

	do := func(method, path, body string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer k")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var sent []string
	const requests = 150
	for i := range requests {
		seg := metricstest.RandomToken(t, "abcdefghijklmnopqrstuvwxyz0123456789", 12)
		sent = append(sent, seg)
		switch i % 5 {
		case 0:
			method := metricstest.RandomToken(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~", 10)
			sent = append(sent, method)
			do(method, []string{"/v1/systemone", "/v1/models", "/healthz", "/" + seg}[i%4], body)
		case 1:
			do(http.MethodGet, []string{"/" + seg, "/v1/" + seg, "/v1/systemone/" + seg, "/healthz/" + seg}[i%4], "")
		case 2:
			do(http.MethodPost, "/v1/systemone", fmt.Sprintf(`{"model": %q, "state": "s", "questions": {"q": {"type": "noul", "instructions": "i"}}}`, seg))
		case 3:
			do(http.MethodPost, "/v1/systemone", fmt.Sprintf(`{"model": "m-latest", "state": "s", "questions": {"q": {"type": %q, "instructions": "i"}}}`, seg))
		default:
			do(http.MethodPost, "/v1/systemone", body)
		}
	}

	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	seen := map[string]map[string]bool{}
	requestSeries := 0
	labelled, _ := metricstest.Samples(string(raw), "judge_") // unlabelled samples have nothing to bound
	for _, s := range labelled {
		if s.Name == "judge_http_requests_total" {
			requestSeries++
		}
		for name, v := range s.Labels {
			if seen[name] == nil {
				seen[name] = map[string]bool{}
			}
			seen[name][v] = true
			switch {
			case name == "status":
				if len(v) != 3 || v < "100" || v > "599" {
					t.Errorf("%s: status label %q", s.Name, v)
				}
			case name == "le":
			case allowed[name] == nil:
				t.Errorf("%s: unexpected label %s=%q", s.Name, name, v)
			case !allowed[name][v]:
				t.Errorf("%s: label %s=%q is outside the fixed set", s.Name, name, v)
			}
			for _, made := range sent {
				if strings.Contains(v, made) {
					t.Errorf("%s: label %s=%q carries the client's %q", s.Name, name, v, made)
				}
			}
		}
	}
	// The requests were measured: answers by model and type, made-up paths
	// as unmatched.
	if !seen["model"]["m-1"] || !seen["type"]["noul"] || !seen["route"]["unmatched"] || !seen["route"]["/v1/systemone"] {
		t.Errorf("expected series missing; label values seen: %v", seen)
	}
	if requestSeries >= requests/2 {
		t.Errorf("%d request series for %d requests", requestSeries, requests)
	}
}

func (answering) PlannedInputTokens(_ systemone.Request, tokens int) int { return tokens }
