package main_test

// Black-box tests: the judge is built from source once per test process
// (proctest.Build), and each test starts it on a free loopback port with its
// own environment and talks HTTP to it.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/shared/proctest"
	"github.com/judgeworks/shared/redistest"
)

func TestMain(m *testing.M) { os.Exit(proctest.Main(m.Run)) }

// judge is one running judge process.
type judge struct {
	url  string
	addr string
	proc *proctest.Proc
}

// start builds the judge (once), runs it with env and waits for /healthz.
// It is stopped when the test ends, and the end of its log is shown if the
// test failed. Its JUDGE_DATA_DIR is its own unless env names one.
func start(t *testing.T, env ...string) *judge {
	t.Helper()
	port, err := proctest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	j := &judge{url: "http://" + addr, addr: addr}
	home := t.TempDir()
	own := []string{"JUDGE_ADDR=" + addr, "JUDGE_DATA_DIR=" + filepath.Join(home, "data")}
	// The last of a variable given twice wins.
	j.proc = proctest.Run(t, proctest.Cmd{Name: "judge", Path: proctest.Build(t, "."),
		Env: append(proctest.BaseEnv(home), append(own, env...)...)}, j.url+"/healthz")
	return j
}

type result struct {
	status int
	header http.Header
	body   []byte
}

func (j *judge) do(t *testing.T, method, path, key string, body []byte) result {
	t.Helper()
	req, err := http.NewRequest(method, j.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("x-request-id") == "" {
		t.Errorf("%s %s → %d without x-request-id", method, path, resp.StatusCode)
	}
	return result{resp.StatusCode, resp.Header, b}
}

func (j *judge) ask(t *testing.T, key, body string) result {
	t.Helper()
	return j.do(t, http.MethodPost, "/v1/systemone", key, []byte(body))
}

// wantError checks the status and the error body (docs/api.md, "Judge errors").
func wantError(t *testing.T, r result, status int, errorType string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	var body struct {
		Detail struct {
			ErrorType string `json:"error_type"`
			Message   string `json:"message"`
		} `json:"detail"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("error body %s: %v", r.body, err)
	}
	if body.Detail.ErrorType != errorType || body.Detail.Message == "" {
		t.Errorf("error body %s, want error_type %q and a message", r.body, errorType)
	}
}

// validationBody is the body of a 422: one item per problem, each with
// its field path.
type validationBody struct {
	Detail []struct {
		Loc  []string `json:"loc"`
		Msg  string   `json:"msg"`
		Type string   `json:"type"`
	} `json:"detail"`
}

const good = `{"model": "local/lexical-latest",
 "state": "I was charged twice for my subscription and I am furious. Please refund me!",
 "questions": {
  "refund": {"type": "noul", "instructions": "Is the customer asking for a refund?"},
  "team": {"type": "choice", "instructions": "Which team should handle it?",
           "criteria": {"billing": "Payments, invoices, refunds and charges",
                        "technical": "Bugs, errors, crashes and login problems"}},
  "anger": {"type": "score", "instructions": "How angry is the customer?",
            "criteria": ["calm", "annoyed", "furious"]}}}`

func keysEnv(keys string) []string {
	return []string{"JUDGE_API_KEYS=" + keys, "JUDGE_RATE_LIMIT_RPM=100000"}
}

func TestGoodRequest(t *testing.T) {
	j := start(t, keysEnv("good-key")...)
	r := j.ask(t, "good-key", good)
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var resp struct {
		Model   string `json:"model"`
		Answers map[string]struct {
			Type          string             `json:"type"`
			Noul          *float64           `json:"noul"`
			Choice        string             `json:"choice"`
			Score         *float64           `json:"score"`
			Legend        map[string]string  `json:"legend"`
			Probabilities map[string]float64 `json:"probabilities"`
			Confidence    *float64           `json:"confidence"`
		} `json:"answers"`
		Usage struct {
			InputTokens  int     `json:"input_tokens"`
			OutputTokens int     `json:"output_tokens"`
			Cost         float64 `json:"cost"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(r.body, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Model != "local/lexical-1.0" {
		t.Errorf("model = %q, want the exact version local/lexical-1.0", resp.Model)
	}
	if len(resp.Answers) != 3 {
		t.Fatalf("answers: %s", r.body)
	}
	refund := resp.Answers["refund"]
	if refund.Type != "noul" || refund.Noul == nil || *refund.Noul <= 0.5 || *refund.Noul > 1 || refund.Confidence != nil {
		t.Errorf("refund answer: %+v", refund)
	}
	team := resp.Answers["team"]
	if team.Type != "choice" || team.Choice != "billing" || team.Confidence == nil {
		t.Errorf("team answer: %+v", team)
	}
	anger := resp.Answers["anger"]
	if anger.Type != "score" || anger.Score == nil || *anger.Score < 0 || *anger.Score > 2 || anger.Confidence == nil {
		t.Errorf("anger answer: %+v", anger)
	}
	if anger.Legend["0"] != "calm" || anger.Legend["2"] != "furious" {
		t.Errorf("anger legend: %v", anger.Legend)
	}
	for name, a := range map[string]map[string]float64{"team": team.Probabilities, "anger": anger.Probabilities} {
		sum, expect := 0.0, 0.0
		for k, p := range a {
			sum += p
			i, _ := strconv.Atoi(k)
			expect += float64(i) * p
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("%s probabilities sum to %v", name, sum)
		}
		if name == "anger" && math.Abs(expect-*anger.Score) > 1e-9 {
			t.Errorf("score %v, want Σ i·pᵢ = %v", *anger.Score, expect)
		}
	}
	u := resp.Usage
	if u.InputTokens < 40 || u.InputTokens > 400 {
		t.Errorf("input tokens = %d, want a count of this ~70-token request", u.InputTokens)
	}
	if math.Abs(u.Cost-float64(u.InputTokens)*0.042/1e6) > 1e-15 {
		t.Errorf("cost = %v, want %d tokens × 0.042 USD per million", u.Cost, u.InputTokens)
	}
	if r.header.Get("Content-Type") != "application/json" {
		t.Errorf("content type %q", r.header.Get("Content-Type"))
	}
}

func TestModelPriceIsConfigurable(t *testing.T) {
	j := start(t, append(keysEnv("k"), "JUDGE_MODEL_PRICES=local/lexical-latest=1.5")...)
	r := j.ask(t, "k", good)
	var resp struct {
		Usage struct {
			InputTokens int     `json:"input_tokens"`
			Cost        float64 `json:"cost"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(r.body, &resp); err != nil || r.status != http.StatusOK {
		t.Fatalf("%d %s %v", r.status, r.body, err)
	}
	if math.Abs(resp.Usage.Cost-float64(resp.Usage.InputTokens)*1.5/1e6) > 1e-15 {
		t.Errorf("cost %v for %d tokens, want 1.5 USD per million", resp.Usage.Cost, resp.Usage.InputTokens)
	}
}

func TestErrors(t *testing.T) {
	j := start(t, keysEnv("good-key,llm-only:llm-latest")...)
	t.Run("missing key", func(t *testing.T) {
		// 403, as the hosted service answers a request without a key.
		r := j.ask(t, "", good)
		wantError(t, r, http.StatusForbidden, "authentication_error")
		if r.header.Get("WWW-Authenticate") == "" {
			t.Error("403 without WWW-Authenticate")
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		wantError(t, j.ask(t, "wrong-key", good), http.StatusUnauthorized, "authentication_error")
	})
	t.Run("models need a key", func(t *testing.T) {
		wantError(t, j.do(t, http.MethodGet, "/v1/models", "", nil), http.StatusForbidden, "authentication_error")
	})
	t.Run("key limited to another model", func(t *testing.T) {
		r := j.ask(t, "llm-only", good)
		wantError(t, r, http.StatusForbidden, "permission_denied")
		if !strings.Contains(string(r.body), "local/lexical-latest") {
			t.Errorf("403 does not name the model: %s", r.body)
		}
	})
	t.Run("body too large", func(t *testing.T) {
		big := `{"model": "local/lexical-latest", "state": "` + strings.Repeat("a", 1<<20) + `", "questions": {}}`
		wantError(t, j.ask(t, "good-key", big), http.StatusRequestEntityTooLarge, "request_too_large")
	})
	t.Run("malformed JSON", func(t *testing.T) {
		wantError(t, j.ask(t, "good-key", `{"model": "local/lexical-latest", "state": `), http.StatusBadRequest, "invalid_request")
	})
	t.Run("unknown model", func(t *testing.T) {
		body := strings.Replace(good, "local/lexical-latest", "local/lexical-9.9", 1)
		r := j.ask(t, "good-key", body)
		wantError(t, r, http.StatusBadRequest, "api_usage_error")
		if !strings.Contains(string(r.body), "local/lexical-9.9") {
			t.Errorf("400 does not name the model: %s", r.body)
		}
	})
	t.Run("validation lists field paths", func(t *testing.T) {
		body := `{"model": "local/lexical-latest", "state": 42, "questions": {"t": {"type": "choice", "instructions": "x", "criteria": {"only": "one"}}}}`
		r := j.ask(t, "good-key", body)
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		var v validationBody
		if err := json.Unmarshal(r.body, &v); err != nil || len(v.Detail) == 0 {
			t.Fatalf("body %s: %v", r.body, err)
		}
		if !strings.Contains(string(r.body), `"state"`) {
			t.Errorf("the number as state is not reported: %s", r.body)
		}
	})
	t.Run("unknown route", func(t *testing.T) {
		wantError(t, j.do(t, http.MethodGet, "/v1/nothing", "good-key", nil), http.StatusNotFound, "not_found")
	})
	t.Run("wrong method", func(t *testing.T) {
		wantError(t, j.do(t, http.MethodGet, "/v1/systemone", "good-key", nil), http.StatusMethodNotAllowed, "method_not_allowed")
	})
	t.Run("keys are never logged", func(t *testing.T) {
		for line := range strings.Lines(j.proc.Output()) {
			if strings.Contains(line, "good-key") || strings.Contains(line, "wrong-key") {
				t.Errorf("a bearer key appears in the log: %s", line)
			}
		}
	})
}

func TestRateLimit(t *testing.T) {
	// Two requests per minute: the bucket holds two, then refills every 30 s.
	j := start(t, "JUDGE_API_KEYS=first,second", "JUDGE_RATE_LIMIT_RPM=2")
	// The wait the refusal names is 30 s less the time between the first
	// and the third request, which a busy machine can stretch: measure it.
	began := time.Now()
	for i := range 2 {
		if r := j.ask(t, "first", good); r.status != http.StatusOK {
			t.Fatalf("request %d: status %d %s", i+1, r.status, r.body)
		}
	}
	r := j.ask(t, "first", good)
	elapsed := time.Since(began)
	wantError(t, r, http.StatusTooManyRequests, "rate_limit_exceeded")
	lo := (30*time.Second - elapsed).Milliseconds() - 1
	ms, msErr := strconv.Atoi(r.header.Get("retry-after-ms"))
	if msErr != nil || int64(ms) < lo || ms > 30000 {
		t.Errorf("retry-after-ms = %q, want %d…30000: 30 s less the %v the three requests took", r.header.Get("retry-after-ms"), lo, elapsed)
	}
	secs, secsErr := strconv.Atoi(r.header.Get("Retry-After"))
	if secsErr != nil || secs < 1 || secs > 30 {
		t.Errorf("Retry-After = %q, want whole seconds up to 30", r.header.Get("Retry-After"))
	}
	if msErr == nil && secsErr == nil && (ms+999)/1000 != secs {
		t.Errorf("Retry-After %d is not retry-after-ms %d rounded up", secs, ms)
	}
	if r := j.ask(t, "second", good); r.status != http.StatusOK {
		t.Errorf("another key: status %d %s, want 200: buckets are per key", r.status, r.body)
	}
	// Refused requests do not consume: the wait does not grow.
	r2 := j.ask(t, "first", good)
	if ms2, _ := strconv.Atoi(r2.header.Get("retry-after-ms")); r2.status != http.StatusTooManyRequests || ms2 > ms {
		t.Errorf("second refusal: %d, retry-after-ms %d after %d", r2.status, ms2, ms)
	}
}

func TestModelsAndProbes(t *testing.T) {
	j := start(t, keysEnv("all,llm-only:llm-latest")...)
	r := j.do(t, http.MethodGet, "/v1/models", "all", nil)
	var list struct {
		Models []struct {
			Name        string   `json:"name"`
			Description string   `json:"description"`
			ReleaseDate string   `json:"release_date"`
			AliasOf     string   `json:"alias_of"`
			Aliases     []string `json:"aliases"`
		} `json:"models"`
	}
	if err := json.Unmarshal(r.body, &list); err != nil || r.status != http.StatusOK {
		t.Fatalf("%d %s %v", r.status, r.body, err)
	}
	// Every accepted name is an entry, as the service lists them: the two
	// offline engines sorted by name, each followed by its aliases, and
	// jev-latest (the SDKs' default model) naming the default engine.
	var names, aliasOf []string
	for _, m := range list.Models {
		names = append(names, m.Name)
		aliasOf = append(aliasOf, m.AliasOf)
		if m.ReleaseDate == "" || !strings.Contains(m.Description, "not a language model") || strings.Contains(strings.ToLower(m.Description), "jev") {
			t.Errorf("model %s: release date %q, description %q", m.Name, m.ReleaseDate, m.Description)
		}
	}
	if want := []string{"local/lexical-1.0", "local/lexical-latest", "local/semantic-1.0", "local/semantic-latest", "jev-latest"}; !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	if want := []string{"", "local/lexical-1.0", "", "local/semantic-1.0", "local/semantic-1.0"}; !slices.Equal(aliasOf, want) {
		t.Errorf("alias_of %v, want %v", aliasOf, want)
	}
	r = j.do(t, http.MethodGet, "/v1/models", "llm-only", nil)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"models":[]`) {
		t.Errorf("a key limited to an absent model sees: %d %s", r.status, r.body)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if r := j.do(t, http.MethodGet, path, "", nil); r.status != http.StatusOK {
			t.Errorf("%s: %d", path, r.status)
		}
	}
	if r := j.ask(t, "all", good); r.status != http.StatusOK {
		t.Fatalf("ask: %d", r.status)
	}
	j.ask(t, "nobody", good)
	metrics := string(j.do(t, http.MethodGet, "/metrics", "", nil).body)
	for _, want := range []string{
		`judge_http_requests_total{route="/v1/systemone",status="200"} 1`,
		`judge_http_requests_total{route="/v1/systemone",status="401"} 1`,
		`judge_questions_total{type="choice"} 1`,
		`judge_questions_total{type="noul"} 1`,
		`judge_questions_total{type="score"} 1`,
		`judge_input_tokens_total{model="local/lexical-1.0"}`,
		`judge_cost_usd_total{model="local/lexical-1.0"}`,
		`judge_http_request_duration_seconds_bucket{route="/v1/systemone"`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestRequestIDIsEchoed(t *testing.T) {
	j := start(t, keysEnv("k")...)
	req, _ := http.NewRequest(http.MethodPost, j.url+"/v1/systemone", strings.NewReader("{"))
	req.Header.Set("x-request-id", "trace-123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("x-request-id"); got != "trace-123" {
		t.Errorf("x-request-id = %q, want the caller's trace-123", got)
	}
}

func TestHealthcheckCommand(t *testing.T) {
	j := start(t, keysEnv("k")...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	run := func(addr string) error {
		cmd := exec.CommandContext(ctx, proctest.Build(t, "."), "healthcheck")
		cmd.Env = []string{"JUDGE_ADDR=" + addr}
		return cmd.Run()
	}
	if err := run(j.addr); err != nil {
		t.Errorf("healthcheck of a running judge: %v", err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	if err := run(closed); err == nil {
		t.Error("healthcheck of a closed port exited 0")
	}
}

func TestRefusesToStartWithoutKeys(t *testing.T) {
	for _, env := range [][]string{{}, {"JUDGE_API_KEYS=a b"}, {"JUDGE_API_KEYS=k", "JUDGE_RATE_LIMIT_RPM=0"}} {
		cmd := exec.Command(proctest.Build(t, "."))
		cmd.Env = append([]string{"JUDGE_ADDR=127.0.0.1:0"}, env...)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("started with %q", env)
		}
		if strings.Contains(string(out), "a b") {
			t.Errorf("error output quotes a key: %s", out)
		}
	}
}

// TestRefusesWeakKeysWithAModel: once the judge can spend money (a language
// model is configured) or runs in production, it refuses dev-key and short
// keys at start-up, naming the setting and the rule but not the key.
func TestRefusesWeakKeysWithAModel(t *testing.T) {
	strong := strings.Repeat("s", 32)
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{[]string{"JUDGE_API_KEYS=dev-key", "LLM_BASE_URL=http://127.0.0.1:9/v1", "LLM_API_KEY=sk-test", "LLM_MODEL=m"}, "development key"},
		{[]string{"JUDGE_API_KEYS=" + strong + ",only-twenty-chars-ab", "LLM_BASE_URL=http://127.0.0.1:9/v1", "LLM_API_KEY=sk-test", "LLM_MODEL=m"}, "at least 32 characters"},
		{[]string{"JUDGE_API_KEYS=only-twenty-chars-ab", "APP_ENV=production"}, "at least 32 characters"},
	} {
		cmd := exec.Command(proctest.Build(t, "."))
		cmd.Env = append([]string{"JUDGE_ADDR=127.0.0.1:0"}, tt.env...)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("started with %q", tt.env)
			continue
		}
		if !strings.Contains(string(out), "JUDGE_API_KEYS") || !strings.Contains(string(out), tt.want) {
			t.Errorf("%q: output does not name JUDGE_API_KEYS and %q:\n%s", tt.env, tt.want, out)
		}
		if strings.Contains(string(out), "only-twenty-chars-ab") || strings.Contains(string(out), strong) {
			t.Errorf("the output quotes a key:\n%s", out)
		}
	}
	// A long key in production starts.
	j := start(t, "JUDGE_API_KEYS="+strong, "APP_ENV=production")
	if r := j.ask(t, strong, good); r.status != http.StatusOK {
		t.Errorf("production judge with a strong key: %d %s", r.status, r.body)
	}
}

// TestReplicasShareLimitsThroughRedis: two judge processes given the same
// REDIS_URL share each key's buckets, and say so in their headers.
func TestReplicasShareLimitsThroughRedis(t *testing.T) {
	rs := redistest.New(t)
	env := []string{"JUDGE_API_KEYS=first,second", "JUDGE_RATE_LIMIT_RPM=2", "REDIS_URL=" + rs.URL()}
	a, b := start(t, env...), start(t, env...)
	for i, j := range []*judge{a, b} {
		r := j.ask(t, "first", good)
		if r.status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, r.status, r.body)
		}
		if got := r.header.Get("x-ratelimit-remaining-requests"); got != strconv.Itoa(1-i) {
			t.Errorf("request %d: x-ratelimit-remaining-requests %q, want %d of the shared 2", i+1, got, 1-i)
		}
	}
	// The bucket both replicas share is empty: either refuses.
	for _, j := range []*judge{a, b} {
		wantError(t, j.ask(t, "first", good), http.StatusTooManyRequests, "rate_limit_exceeded")
	}
	if r := b.ask(t, "second", good); r.status != http.StatusOK {
		t.Errorf("another key: %d %s", r.status, r.body)
	}
	metrics := string(a.do(t, http.MethodGet, "/metrics", "", nil).body)
	if !strings.Contains(metrics, "judge_ratelimit_redis_up 1") {
		t.Error("metrics do not report Redis up")
	}
	if logs := a.proc.Output(); !strings.Contains(logs, "rate limits shared through Redis") {
		t.Errorf("the judge does not say its limits are shared:\n%s", logs)
	}
}
