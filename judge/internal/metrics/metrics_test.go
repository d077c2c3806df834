package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/shared/systemone"
)

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

// TestKeptSeriesFollowForget holds the series kept per key and per route
// to what the registry shows: counted on, dropped by Forget, and counted
// from zero again after it.
func TestKeptSeriesFollowForget(t *testing.T) {
	m := New()
	u := systemone.Usage{InputTokens: 5, OutputTokens: 1}
	m.Charged("a", "local/x", u, true)
	m.Charged("a", "local/x", u, true)
	m.Charged("a", "local/x", systemone.Usage{InputTokens: 7, Cost: 0.5}, false)
	m.Charged("b", "local/x", u, true)
	m.Request("/v1/systemone", 200, time.Millisecond)
	m.Request("/v1/systemone", 200, time.Millisecond)
	req := systemone.Request{Questions: map[string]systemone.Question{"a": {Type: systemone.TypeNoul}, "b": {Type: systemone.TypeNoul}, "c": {Type: systemone.TypeChoice}}}
	for range 2 {
		m.Answered(req)
	}
	out := scrape(t, m)
	for _, want := range []string{
		`judge_questions_total{type="noul"} 4`,
		`judge_questions_total{type="choice"} 2`,
		`judge_input_tokens_total{model="local/x"} 22`,
		`judge_output_tokens_total{model="local/x"} 3`,
		`judge_cost_usd_total{model="local/x"} 0.5`,
		`judge_key_requests_total{key="a",model="local/x"} 2`,
		`judge_key_unanswered_requests_total{key="a",model="local/x"} 1`,
		`judge_key_input_tokens_total{key="a",model="local/x"} 17`,
		`judge_key_requests_total{key="b",model="local/x"} 1`,
		`judge_http_requests_total{route="/v1/systemone",status="200"} 2`,
		`judge_http_request_duration_seconds_count{route="/v1/systemone"} 2`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	m.Forget("a")
	if out := scrape(t, m); strings.Contains(out, `key="a"`) || !strings.Contains(out, `key="b"`) {
		t.Errorf("after Forget(a), want no series of a and b's kept:\n%s", out)
	}
	m.Charged("a", "local/x", u, true)
	if out := scrape(t, m); !strings.Contains(out, `judge_key_requests_total{key="a",model="local/x"} 1`) {
		t.Errorf("a answered after Forget: want its count from 1:\n%s", out)
	}
}

// A negative figure cannot reach a counter (which would panic and turn
// every later answer into a 500).
func TestChargedNeverPanics(t *testing.T) {
	m := New()
	m.Charged("a", "local/x", systemone.Usage{InputTokens: -500000, OutputTokens: -1, Cost: -0.02}, true)
	out := scrape(t, m)
	if !strings.Contains(out, `judge_key_input_tokens_total{key="a",model="local/x"} 0`) {
		t.Errorf("negative tokens counted:\n%s", out)
	}
}
