package main_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/judgeworks/shared/redistest"
)

// callCounted is biasedChat counting the calls it answers.
func callCounted(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	model := biasedChat(t)
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		model.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// TestAnswerCacheAcrossReplicas: two judges on one Redis with
// JUDGE_CACHE_TTL answer each other's repeats without a model call, per
// key; Cache-Control: no-cache asks the model again.
func TestAnswerCacheAcrossReplicas(t *testing.T) {
	rs := redistest.New(t)
	model, calls := callCounted(t)
	other := strings.Repeat("o", 32)
	env := []string{"JUDGE_API_KEYS=" + strongKey + "," + other, "JUDGE_RATE_LIMIT_RPM=100000",
		"LLM_BASE_URL=" + model.URL + "/v1", "LLM_API_KEY=sk-test", "LLM_MODEL=biased",
		"REDIS_URL=" + rs.URL(), "JUDGE_CACHE_TTL=1h"}
	a, b := start(t, env...), start(t, env...)
	body := `{"model": "llm-latest", "state": "I was charged twice and I am furious.", "questions": {
	  "refund": {"type": "noul", "instructions": "Is the customer asking for a refund?"},
	  "team": {"type": "choice", "criteria": {"billing": "Payments and refunds", "technical": "Bugs and errors"}}}}`
	ask := func(j *judge, key string, header ...string) (result, int64) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, j.url+"/v1/systemone", bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", "Bearer "+key)
		if len(header) == 2 {
			req.Header.Set(header[0], header[1])
		}
		before := calls.Load()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, raw)
		}
		return result{resp.StatusCode, resp.Header, raw}, calls.Load() - before
	}
	usage := func(r result) (cost float64, tokens int) {
		var out struct {
			Usage struct {
				InputTokens int     `json:"input_tokens"`
				Cost        float64 `json:"cost"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(r.body, &out); err != nil {
			t.Fatal(err)
		}
		return out.Usage.Cost, out.Usage.InputTokens
	}
	first, n := ask(a, strongKey)
	if cost, _ := usage(first); n == 0 || first.header.Get("Judge-Cache") != "miss" || cost == 0 {
		t.Fatalf("first: %d calls, Judge-Cache %q, cost %v", n, first.header.Get("Judge-Cache"), cost)
	}
	r, n := ask(b, strongKey)
	if cost, tokens := usage(r); n != 0 || r.header.Get("Judge-Cache") != "hit" || cost != 0 || tokens != 0 {
		t.Errorf("the other replica, same key: %d calls, Judge-Cache %q, cost %v, %d tokens; want a free hit",
			n, r.header.Get("Judge-Cache"), cost, tokens)
	}
	if r, n := ask(b, other); n == 0 || r.header.Get("Judge-Cache") != "miss" {
		t.Errorf("another key: %d calls, Judge-Cache %q; want its own miss", n, r.header.Get("Judge-Cache"))
	}
	if r, n := ask(a, strongKey, "Cache-Control", "no-cache"); n == 0 || r.header.Get("Judge-Cache") != "bypass" {
		t.Errorf("no-cache: %d calls, Judge-Cache %q; want the model asked", n, r.header.Get("Judge-Cache"))
	}
	if logs := a.proc.Output(); !strings.Contains(logs, "cached answers shared through Redis") {
		t.Errorf("the judge does not say its cache is shared:\n%s", logs)
	}
}
