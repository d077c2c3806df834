package deploy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/judgeworks/shared/proctest"
	"github.com/judgeworks/shared/redistest"
)

// TestShippedRedisKeepsSpend runs redis-server with the flags deploy/k8s
// and docker-compose.yml ship (TestRedisNeverEvicts holds them equal) and
// a judge whose key has a budget, spends the budget, then restarts Redis
// as a container restart does (SIGTERM, then the same command on the same
// data directory): the judge still refuses the key for its budget, and GET
// /v1/usage shows the same figures. The judge does not warn that Redis
// forgets.
func TestShippedRedisKeepsSpend(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the judge and redis-server")
	}
	port, err := proctest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	dir := t.TempDir()
	shipped := k8sRedisArgs(t)
	if shipped[0] != "redis-server" {
		t.Fatalf("deploy/k8s/redis.yaml runs %q", shipped)
	}
	// The shipped flags, then where this one listens and keeps its files.
	args := append(shipped[1:], "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir, "--logfile", "")
	rs, err := proctest.Start(proctest.Cmd{Name: "redis-server", Path: redisServer(t), Args: args, Dir: dir, Env: proctest.BaseEnv(dir)})
	if err != nil {
		t.Fatal(err)
	}
	proctest.Cleanup(t, rs)
	waitRedis(t, addr, rs)

	const key = "team-a-0123456789abcdef0123456789abcdef"
	digest := sha256.Sum256([]byte(key))
	keys := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(keys, []byte("keys:\n  - {id: team-a, sha256: "+hex.EncodeToString(digest[:])+", budget_usd_per_day: 0.5}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The offline engine at 2,000 USD per million tokens: a tenth of a
	// dollar or so a request.
	judge, judgeProc := startSpendJudge(t, "JUDGE_KEYS_FILE="+keys, "REDIS_URL=redis://"+addr+"/0",
		"JUDGE_MODEL_PRICES=local/lexical-latest=2000")

	var answered int64
	for status := 0; status != http.StatusPaymentRequired; answered++ {
		if answered > 50 {
			t.Fatal("50 requests never reached a budget of 0.5 USD")
		}
		status = askLexical(t, judge, key)
		if status != http.StatusOK && status != http.StatusPaymentRequired {
			t.Fatalf("request %d: %d", answered+1, status)
		}
	}
	answered-- // the refused one
	before := usageOf(t, judge, key)
	if before.Today.Requests != answered || answered < 2 {
		t.Fatalf("usage %+v after %d answers", before, answered)
	}

	if err := rs.Stop(syscall.SIGTERM, 15*time.Second); err != nil {
		t.Fatalf("redis-server did not stop cleanly: %v", err)
	}
	if err := rs.Restart(); err != nil {
		t.Fatal(err)
	}
	waitRedis(t, addr, rs)
	// Until the judge's connections are made again a key with a budget
	// gets 503; then its budget, as Redis kept it.
	var status int
	proctest.WaitFor(t, 30*time.Second, "the judge reaches Redis again", func() bool {
		status = askLexical(t, judge, key)
		return status != http.StatusServiceUnavailable
	})
	if status != http.StatusPaymentRequired {
		t.Errorf("after Redis restarted, a key that spent its budget: %d, want 402", status)
	}
	if after := usageOf(t, judge, key); after.Today != before.Today {
		t.Errorf("usage after Redis restarted %+v, before %+v", after.Today, before.Today)
	}
	if out := judgeProc.Output(); strings.Contains(out, "does not persist") || strings.Contains(out, "cannot be told") {
		t.Errorf("the judge warns of the shipped Redis:\n%s", out)
	}
}

// redisServer is the redis-server (or valkey-server) binary the tests use.
func redisServer(t *testing.T) string {
	t.Helper()
	if b := os.Getenv(redistest.EnvBinary); b != "" {
		return b
	}
	for _, name := range []string{"redis-server", "valkey-server"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no redis-server or valkey-server (run make deps, or set " + redistest.EnvBinary + ")")
	return ""
}

// waitRedis waits until the server at addr answers PING, failing if p
// exits first.
func waitRedis(t *testing.T, addr string, p *proctest.Proc) {
	t.Helper()
	proctest.WaitFor(t, 30*time.Second, "redis-server answers PING", func() bool {
		select {
		case <-p.Done():
			t.Fatalf("redis-server exited:\n%s", proctest.Tail(p.Output()))
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return redistest.Ping(ctx, addr) == nil
	})
}

// startSpendJudge starts a judge built from source with env and returns
// its base URL and process.
func startSpendJudge(t *testing.T, env ...string) (string, *proctest.Proc) {
	t.Helper()
	port, err := proctest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	env = append(proctest.BaseEnv(work), append([]string{fmt.Sprintf("JUDGE_ADDR=127.0.0.1:%d", port)}, env...)...)
	p := proctest.Run(t, proctest.Cmd{Name: "judge", Path: proctest.Build(t, judgePkg), Dir: work, Env: env}, url+"/healthz")
	return url, p
}

// askLexical asks the offline lexical engine one question and returns
// the status.
func askLexical(t *testing.T, judge, key string) int {
	t.Helper()
	body := `{"model": "local/lexical-latest", "state": "I was charged twice for my subscription and want a refund.",
	 "questions": {"refund": {"type": "noul", "instructions": "Is the customer asking for a refund?"}}}`
	req, _ := http.NewRequest(http.MethodPost, judge+"/v1/systemone", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// spendUsage is the part of GET /v1/usage these tests compare.
type spendUsage struct {
	Today struct {
		Requests     int64   `json:"requests"`
		InputTokens  int64   `json:"input_tokens"`
		CostUSD      float64 `json:"cost_usd"`
		RemainingUSD float64 `json:"remaining_usd"`
	} `json:"today"`
}

func usageOf(t *testing.T, judge, key string) spendUsage {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, judge+"/v1/usage", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var u spendUsage
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/usage: %d", resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&u); err != nil {
		t.Fatal(err)
	}
	return u
}
