package main_test

// Black-box tests of the keys file, budgets and usage: keys made with
// `judge keys new`, a fake chat model that counts its calls, one real
// redis-server shared by two judges.

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/judgeworks/shared/proctest"
	"github.com/judgeworks/shared/redistest"
)

// newKey runs `judge keys new --id id` and returns the key it printed and
// the keys-file line it said to add.
func newKey(t *testing.T, id string) (secret, line string) {
	t.Helper()
	out, err := exec.Command(proctest.Build(t, "."), "keys", "new", "--id", id).Output()
	if err != nil {
		t.Fatalf("judge keys new: %v", err)
	}
	m := regexp.MustCompile(`(?m)^key \(shown once[^)]*\): (\S+)\n.*\n(  - \{id: ` + regexp.QuoteMeta(id) + `, sha256: [0-9a-f]{64}\})$`).FindStringSubmatch(string(out))
	if m == nil || len(m[1]) < 32 {
		t.Fatalf("judge keys new printed:\n%s", out)
	}
	return m[1], m[2]
}

// keysFile is a keys file being edited.
type keysFile struct {
	path string
}

func newKeysFile(t *testing.T) *keysFile {
	return &keysFile{path: filepath.Join(t.TempDir(), "keys.yaml")}
}

// write replaces the file's content at once, as an editor saving it would:
// a reader sees the old content or the new, never half of it.
func (f *keysFile) write(t *testing.T, entries ...string) {
	t.Helper()
	body := "keys:\n" + strings.Join(entries, "\n") + "\n"
	if len(entries) == 0 {
		body = "keys: []\n"
	}
	tmp := f.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		t.Fatal(err)
	}
}

// with is a keys-file line with more fields: with(line, "rpm: 1").
func with(line string, fields ...string) string {
	return strings.TrimSuffix(line, "}") + ", " + strings.Join(fields, ", ") + "}"
}

type usageBody struct {
	Key   string      `json:"key"`
	Today usagePeriod `json:"today"`
	Month usagePeriod `json:"month"`
}

type usageTotals struct {
	Requests     int64   `json:"requests"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

type usagePeriod struct {
	Period   string `json:"period"`
	ResetsAt string `json:"resets_at"`
	usageTotals
	Models       map[string]usageTotals `json:"models"`
	BudgetUSD    *float64               `json:"budget_usd"`
	RemainingUSD *float64               `json:"remaining_usd"`
}

func (j *judge) usage(t *testing.T, key string) usageBody {
	t.Helper()
	r := j.do(t, http.MethodGet, "/v1/usage", key, nil)
	var u usageBody
	if r.status != http.StatusOK {
		t.Fatalf("GET /v1/usage: %d %s", r.status, r.body)
	}
	if err := json.Unmarshal(r.body, &u); err != nil {
		t.Fatalf("GET /v1/usage: %v in %s", err, r.body)
	}
	return u
}

// paidAsk is one yes-or-no question for the fake chat model, which answers
// every call "yes".
const paidAsk = `{"model": "llm-latest", "state": "I was charged twice and want my money back.",
 "questions": {"refund": {"type": "noul", "instructions": "Is the customer asking for a refund?"}}}`

// paidEnv is a judge whose language model (the fake chat model u) costs
// 100 USD per million input tokens, keyed by the keys file.
func paidEnv(u *chatUpstream, keys *keysFile, more ...string) []string {
	return append([]string{"JUDGE_KEYS_FILE=" + keys.path, "JUDGE_RATE_LIMIT_RPM=100000",
		"LLM_BASE_URL=" + u.srv.URL + "/v1", "LLM_API_KEY=sk-test", "LLM_MODEL=fake-model",
		"JUDGE_MODEL_PRICES=llm-latest=100"}, more...)
}

// A key at its budget is refused with 402 before any upstream call, the
// refusal saying when the budget resets; a key under it spends up to it and
// no further, whatever the answers really cost, and its headers say what
// is left.
func TestBudgetRefusesBeforeAnyCall(t *testing.T) {
	u := newChatUpstream(t, 0, 0)
	spent, spentLine := newKey(t, "spent")
	capped, cappedLine := newKey(t, "capped")
	keys := newKeysFile(t)
	keys.write(t, with(spentLine, "budget_usd_per_day: 0"), with(cappedLine, "budget_usd_per_month: 0.5"))
	j := start(t, paidEnv(u, keys)...)

	r := j.ask(t, spent, paidAsk)
	wantError(t, r, http.StatusPaymentRequired, "budget_exceeded")
	now := time.Now().UTC()
	midnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	if !strings.Contains(string(r.body), midnight) {
		t.Errorf("the refusal does not say the budget resets at %s: %s", midnight, r.body)
	}
	if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs < 1 || secs > 86400 {
		t.Errorf("Retry-After %q, want the seconds until UTC midnight", r.header.Get("Retry-After"))
	}
	if got := r.header.Get("x-ratelimit-remaining-usd-day"); got != "0" {
		t.Errorf("x-ratelimit-remaining-usd-day %q, want 0", got)
	}
	if n := u.calls.Load(); n != 0 {
		t.Fatalf("the upstream saw %d calls for a key at its budget", n)
	}

	var total float64
	var refused result
	for i := range 100 {
		r := j.ask(t, capped, paidAsk)
		if r.status == http.StatusPaymentRequired {
			refused = r
			break
		}
		resp := decodeResponse(t, r)
		total += resp.Usage.Cost
		left, err := strconv.ParseFloat(r.header.Get("x-ratelimit-remaining-usd-month"), 64)
		if err != nil || left < 0 || left > 0.5 || r.header.Get("x-ratelimit-limit-usd-month") != "0.5" {
			t.Errorf("request %d: budget headers %v", i+1, r.header)
		}
	}
	if refused.status == 0 {
		t.Fatalf("100 requests of about %v USD each never reached a budget of 0.5 USD", total)
	}
	calls := u.calls.Load()
	wantError(t, refused, http.StatusPaymentRequired, "budget_exceeded")
	firstOfMonth := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	if !strings.Contains(string(refused.body), firstOfMonth) {
		t.Errorf("the refusal does not say the budget resets at %s: %s", firstOfMonth, refused.body)
	}
	if total > 0.5 || total == 0 {
		t.Errorf("the key spent %v USD on a budget of 0.5", total)
	}
	wantError(t, j.ask(t, capped, paidAsk), http.StatusPaymentRequired, "budget_exceeded")
	if n := u.calls.Load(); n != calls {
		t.Errorf("refused requests made %d upstream calls", n-calls)
	}
	// The offline engines are priced too (0.042 USD per million tokens by
	// default): a zero budget refuses them as well.
	wantError(t, j.ask(t, spent, good), http.StatusPaymentRequired, "budget_exceeded")

	use := j.usage(t, capped)
	m := use.Month.Models["llm-1.0"]
	if use.Key != "capped" || m.Requests < 1 || m.InputTokens < 1 || diff(m.CostUSD, total) > 1e-6 || diff(use.Month.CostUSD, total) > 1e-6 {
		t.Errorf("usage %+v, want the answered requests costing %v USD", use, total)
	}
	if use.Month.BudgetUSD == nil || *use.Month.BudgetUSD != 0.5 || use.Month.RemainingUSD == nil || use.Today.BudgetUSD != nil {
		t.Errorf("usage budget figures: %+v", use)
	}
	metrics := string(j.do(t, http.MethodGet, "/metrics", "", nil).body)
	for _, want := range []string{
		`judge_key_budget_refusals_total{key="spent"} 2`,
		`judge_key_requests_total{key="capped",model="llm-1.0"} ` + strconv.FormatInt(m.Requests, 10),
		`judge_key_cost_usd_total{key="capped",model="llm-1.0"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func diff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}

// Two judges on one Redis share a key's budget: together they spend up to
// it and no further, and both refuse once it is spent. Their usage is one.
func TestReplicasShareABudget(t *testing.T) {
	u := newChatUpstream(t, 0, 0)
	rs := redistest.New(t)
	key, line := newKey(t, "team")
	keys := newKeysFile(t)
	keys.write(t, with(line, "budget_usd_per_day: 0.5"))
	env := paidEnv(u, keys, "REDIS_URL="+rs.URL())
	a, b := start(t, env...), start(t, env...)
	var total float64
	var requests int64
	refusedBy := map[*judge]bool{}
	for i := 0; i < 200 && len(refusedBy) < 2; i++ {
		j := []*judge{a, b}[i%2]
		r := j.ask(t, key, paidAsk)
		if r.status == http.StatusPaymentRequired {
			refusedBy[j] = true
			continue
		}
		total += decodeResponse(t, r).Usage.Cost
		requests++
	}
	if len(refusedBy) < 2 {
		t.Fatalf("after %d requests costing %v USD, not both judges refuse a key with a budget of 0.5 USD", requests, total)
	}
	if total > 0.5 || requests < 2 {
		t.Errorf("two judges spent %v USD in %d requests on a shared budget of 0.5 USD", total, requests)
	}
	for _, j := range []*judge{a, b} {
		use := j.usage(t, key)
		if use.Today.Requests != requests || diff(use.Today.CostUSD, total) > 1e-6 {
			t.Errorf("usage seen by one judge: %d requests, %v USD; want both judges' %d and %v", use.Today.Requests, use.Today.CostUSD, requests, total)
		}
	}
}

// Reloading the keys file (on a change, and on SIGHUP) adds, revokes and
// re-limits keys while a request of a revoked key is in flight: that
// request is answered; a file that does not parse is refused and the keys
// stay.
func TestReloadKeysFile(t *testing.T) {
	u := newChatUpstream(t, 2*time.Second, 0)
	old, oldLine := newKey(t, "old")
	fresh, freshLine := newKey(t, "fresh")
	keys := newKeysFile(t)
	keys.write(t, oldLine)
	j := start(t, paidEnv(u, keys)...)
	wantError(t, j.ask(t, fresh, good), http.StatusUnauthorized, "authentication_error")

	var wg sync.WaitGroup
	var inFlight result
	wg.Add(1)
	go func() {
		defer wg.Done()
		inFlight = j.ask(t, old, paidAsk)
	}()
	proctest.WaitFor(t, 15*time.Second, "the slow request reaches the upstream", func() bool { return u.calls.Load() > 0 })
	keys.write(t, with(freshLine, "rpm: 1"))
	proctest.WaitFor(t, 15*time.Second, "the new key is accepted", func() bool { return j.ask(t, fresh, good).status == http.StatusOK })
	wantError(t, j.ask(t, old, good), http.StatusUnauthorized, "authentication_error")
	wg.Wait()
	if inFlight.status != http.StatusOK {
		t.Errorf("the request in flight during the reload: %d %s", inFlight.status, inFlight.body)
	}
	// rpm: 1 — the one request of the minute is spent.
	wantError(t, j.ask(t, fresh, good), http.StatusTooManyRequests, "rate_limit_exceeded")

	// A bad file is refused; the keys in use stay, and the log says why
	// without quoting a digest.
	keys.write(t, with(freshLine, "rpm: 1", "budget_usd_per_dya: 3"))
	proctest.WaitFor(t, 15*time.Second, "the bad file is refused in the log", func() bool {
		return strings.Contains(j.proc.Output(), "keys file refused")
	})
	digest := regexp.MustCompile(`[0-9a-f]{64}`).FindString(freshLine)
	if strings.Contains(j.proc.Output(), digest) || strings.Contains(j.proc.Output(), fresh) {
		t.Error("the log quotes a key or its digest")
	}
	if r := j.do(t, http.MethodGet, "/v1/models", fresh, nil); r.status != http.StatusOK {
		t.Errorf("after a bad file, a key in use: %d", r.status)
	}

	// Raising the rate takes effect on SIGHUP, the bucket reshaped: a
	// request passes within a second or so, not the minute rpm: 1 waits.
	if err := os.WriteFile(keys.path, []byte("keys:\n"+with(freshLine, "rpm: 600")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(j.proc.Pid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	var r result
	proctest.WaitFor(t, 15*time.Second, "the raised rate lets a request through", func() bool { r = j.ask(t, fresh, good); return r.status == http.StatusOK })
	if r.header.Get("x-ratelimit-limit-requests") != "600" {
		t.Errorf("x-ratelimit-limit-requests %q after raising rpm to 600", r.header.Get("x-ratelimit-limit-requests"))
	}
}

// A revoked key's stored answers and buckets are reachable by no other
// key: not by a new key under a new id, nor by a new secret given the old
// id (which keeps the id's limits, budget and usage: the id is the client).
// Usage shows each key only its own use.
func TestRevokedKeysLeaveNothingBehind(t *testing.T) {
	first, firstLine := newKey(t, "first")
	other, otherLine := newKey(t, "other")
	rotated, rotatedLine := newKey(t, "first")
	keys := newKeysFile(t)
	keys.write(t, with(firstLine, "rpm: 2"), otherLine)
	j := start(t, "JUDGE_KEYS_FILE="+keys.path, "JUDGE_API_KEYS=env-key-0123456789abcdef0123456789ab")

	idem := func(key string) result {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, j.url+"/v1/systemone", strings.NewReader(good))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Idempotency-Key", "order-42")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return result{status: resp.StatusCode, header: resp.Header}
	}
	if r := idem(first); r.status != http.StatusOK {
		t.Fatalf("first: %d", r.status)
	}
	if r := idem(first); r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the same key's retry is not replayed: %v", r.header)
	}
	// The two requests of the minute are spent.
	wantError(t, j.ask(t, first, good), http.StatusTooManyRequests, "rate_limit_exceeded")
	if r := j.ask(t, other, good); r.status != http.StatusOK {
		t.Fatalf("other: %d %s", r.status, r.body)
	}
	if u := j.usage(t, other); u.Key != "other" || u.Today.Requests != 1 || len(u.Today.Models) != 1 {
		t.Errorf("usage of other: %+v, want its one request only", u)
	}
	if u := j.usage(t, first); u.Key != "first" || u.Today.Requests != 1 {
		t.Errorf("usage of first: %+v, want its one answered request (a replay is not use)", u)
	}
	if u := j.usage(t, "env-key-0123456789abcdef0123456789ab"); u.Today.Requests != 0 || u.Key == "first" || u.Key == "other" {
		t.Errorf("usage of a key that sent nothing: %+v", u)
	}

	// Revoke first; its id goes to a new secret.
	keys.write(t, otherLine, with(rotatedLine, "rpm: 600"))
	proctest.WaitFor(t, 15*time.Second, "the rotated key is accepted", func() bool {
		return j.do(t, http.MethodGet, "/v1/models", rotated, nil).status == http.StatusOK
	})
	wantError(t, j.ask(t, first, good), http.StatusUnauthorized, "authentication_error")
	if r := idem(other); r.status != http.StatusOK || r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("another key with the revoked key's Idempotency-Key: %d %v", r.status, r.header)
	}
	// The id's bucket, spent, refills at the new rate.
	var r result
	proctest.WaitFor(t, 15*time.Second, "the rotated key's bucket refills", func() bool { r = idem(rotated); return r.status == http.StatusOK })
	if r.header.Get("Idempotent-Replayed") != "" {
		t.Error("a new secret under the revoked key's id got its stored answer")
	}
	// other's bucket is its own; the id first keeps its (spent) bucket.
	if r := j.ask(t, other, good); r.status != http.StatusOK {
		t.Errorf("other after the reload: %d", r.status)
	}
	metrics := string(j.do(t, http.MethodGet, "/metrics", "", nil).body)
	if !strings.Contains(metrics, `key="first"`) {
		t.Error("the id first, still configured, lost its metrics")
	}
	keys.write(t, otherLine)
	proctest.WaitFor(t, 15*time.Second, "a removed id's metrics are dropped", func() bool {
		return !strings.Contains(string(j.do(t, http.MethodGet, "/metrics", "", nil).body), `key="first"`)
	})
}

// The keys file is read strictly: an unknown field, a bad digest, a
// duplicate id, a negative number stop the judge from starting, naming the
// entry and never the digest.
func TestKeysFileRefusesBadFiles(t *testing.T) {
	_, line := newKey(t, "a")
	digest := regexp.MustCompile(`[0-9a-f]{64}`).FindString(line)
	for _, tt := range []struct{ body, want string }{
		{"keys:\n" + with(line, "budget_usd_per_dya: 1"), "budget_usd_per_dya"},
		{"keys:\n  - {id: a, sha256: abc}", "sha256"},
		{"keys:\n" + line + "\n" + strings.Replace(line, digest, strings.Repeat("0", 64), 1), "already used"},
		{"keys:\n" + with(line, "budget_usd_per_day: -1"), "budget_usd_per_day"},
		{"keys:\n" + with(line, "rpm: 0"), "rpm"},
		{"keys:\n  - {id: 'a b', sha256: " + digest + "}", "id"},
		{"", "empty"},
	} {
		path := writeFile(t, "keys.yaml", tt.body)
		cmd := exec.Command(proctest.Build(t, "."))
		cmd.Env = []string{"JUDGE_ADDR=127.0.0.1:0", "JUDGE_KEYS_FILE=" + path}
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("started with %q", tt.body)
			continue
		}
		if !strings.Contains(string(out), "JUDGE_KEYS_FILE") || !strings.Contains(string(out), tt.want) {
			t.Errorf("%q: output does not name JUDGE_KEYS_FILE and %q:\n%s", tt.body, tt.want, out)
		}
		if strings.Contains(string(out), digest) {
			t.Errorf("%q: the output quotes the digest:\n%s", tt.body, out)
		}
	}
	out, err := exec.Command(proctest.Build(t, "."), "keys", "new", "--id", "no spaces").CombinedOutput()
	if err == nil {
		t.Errorf("keys new with a bad id: %s", out)
	}
}
