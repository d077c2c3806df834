package deploy

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/judgeworks/shared/pgtest"
	"github.com/judgeworks/shared/proctest"
)

// runScript is one deploy/run.sh (make run without the build) started in a
// scratch checkout: deploy/run.sh and deploy/Caddyfile copied, bin/ holding
// links to the judge and interview built from source for this test run, so
// its .data/ is the test's own and no stale binary is tested.
type runScript struct {
	root                            string
	proc                            *proctest.Proc
	judgePort, interviewPort, caddy int
}

// startRunScript starts deploy/run.sh with env (on top of a minimal
// environment, a fresh database and free ports) and waits for "ready".
func startRunScript(t *testing.T, root string, env ...string) *runScript {
	t.Helper()
	r := &runScript{root: root}
	for _, p := range []*int{&r.judgePort, &r.interviewPort, &r.caddy} {
		port, err := proctest.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		*p = port
	}
	env = append(append(proctest.BaseEnv(root),
		"DATABASE_URL="+pgtest.NewDatabase(t),
		fmt.Sprintf("JUDGE_ADDR=127.0.0.1:%d", r.judgePort),
		fmt.Sprintf("INTERVIEW_ADDR=127.0.0.1:%d", r.interviewPort),
		fmt.Sprintf("CADDY_PORT=%d", r.caddy)), env...)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	proc, err := proctest.Start(proctest.Cmd{Name: "make run", Path: bash, Args: []string{"deploy/run.sh"}, Dir: root, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	r.proc = proc
	t.Cleanup(func() {
		r.stop()
		if t.Failed() {
			t.Logf("--- run.sh output:\n%s", proc.Output())
		}
	})
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(proc.Output(), "[run] ready") {
		select {
		case <-proc.Done():
			t.Fatalf("run.sh exited before it was ready:\n%s", proc.Output())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("run.sh not ready within 90 s:\n%s", proc.Output())
		}
	}
	return r
}

// stop ends run.sh as Ctrl-C would; it stops what it started.
func (r *runScript) stop() {
	select {
	case <-r.proc.Done():
	default:
		r.proc.Stop(syscall.SIGTERM, 30*time.Second)
	}
}

// scratchCheckout lays out what run.sh needs from a checkout.
func scratchCheckout(t *testing.T) string {
	t.Helper()
	repo, dir := repoRoot(t), t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"deploy/run.sh", "deploy/Caddyfile"} {
		b, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, pkg := range map[string]string{"judge": judgePkg, "interview": interviewPkg} {
		if err := os.Symlink(proctest.Build(t, pkg), filepath.Join(dir, "bin", name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// status sends GET path to the judge with key and returns the status.
func (r *runScript) judgeStatus(t *testing.T, key string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet,
		fmt.Sprintf("http://127.0.0.1:%d/v1/models", r.judgePort), nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// childEnv returns the environment of the process named comm that run.sh
// started, read from /proc.
func (r *runScript) childEnv(t *testing.T, comm string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	parent := strconv.Itoa(r.proc.Pid())
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so split after ")".
		open, closing := strings.IndexByte(string(stat), '('), strings.LastIndexByte(string(stat), ')')
		if open < 0 || closing < open {
			continue
		}
		fields := strings.Fields(string(stat[closing+1:]))
		if string(stat[open+1:closing]) != comm || len(fields) < 2 || fields[1] != parent {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]string{}
		for kv := range strings.SplitSeq(string(raw), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
		return env
	}
	t.Fatalf("no process %q started by run.sh (pid %s)", comm, parent)
	return nil
}

// TestRunScriptGeneratesAJudgeKey: with a language model configured, make
// run must not hand out dev-key. It generates a random key once, keeps it in
// .data/judge-api-key (mode 600), says where it is kept without printing it,
// gives the interview service the same key, and reuses it on the next start.
// The base URL it prints hides the credentials and query string it carries.
// Caddy listens on loopback.
func TestRunScriptGeneratesAJudgeKey(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole stack twice")
	}
	root := scratchCheckout(t)
	// The model is never called here: nothing listens on port 1.
	llm := []string{"LLM_BASE_URL=http://svc-user:s3cretpw@127.0.0.1:1/v1?api-key=abc123", "LLM_API_KEY=sk-run-script-test", "LLM_MODEL=test-model"}

	var first string
	for run := 1; run <= 2; run++ {
		r := startRunScript(t, root, llm...)
		// The summary's last line follows "ready".
		for deadline := time.Now().Add(30 * time.Second); !strings.Contains(r.proc.Output(), "[run] Ctrl-C stops everything"); {
			if time.Now().After(deadline) {
				t.Fatalf("run %d: no summary after ready", run)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if !strings.Contains(r.proc.Output(), "[run] judge key: kept in .data/judge-api-key") {
			t.Errorf("run %d: run.sh does not say where the judge key is kept", run)
		}
		stored, err := os.ReadFile(filepath.Join(root, ".data", "judge-api-key"))
		if err != nil {
			t.Fatal(err)
		}
		key := string(stored)
		// run.sh's own lines; the services' lines are theirs to keep clean.
		var own []string
		for line := range strings.SplitSeq(r.proc.Output(), "\n") {
			if strings.HasPrefix(line, "[run]") {
				own = append(own, line)
			}
		}
		for _, secret := range []string{key, "s3cretpw", "svc-user", "abc123", "sk-run-script-test"} {
			if strings.Contains(strings.Join(own, "\n"), secret) {
				t.Errorf("run %d: run.sh printed %q", run, secret)
			}
		}
		if !strings.Contains(strings.Join(own, "\n"), "http://…@127.0.0.1:1/v1?…") {
			t.Errorf("run %d: no redacted base URL in run.sh's lines:\n%s", run, strings.Join(own, "\n"))
		}
		if len(key) < 32 {
			t.Errorf("run %d: key of %d characters, want at least 32", run, len(key))
		}
		if strings.Contains(r.proc.Output(), "dev-key") {
			t.Errorf("run %d: run.sh mentions dev-key with a model configured", run)
		}
		info, err := os.Stat(filepath.Join(root, ".data", "judge-api-key"))
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("run %d: .data/judge-api-key has mode %v, want 0600", run, info.Mode().Perm())
		}
		if run == 1 {
			first = key
		} else if key != first {
			t.Errorf("second run generated a new key %q; want the kept %q", key, first)
		}
		if got := r.judgeStatus(t, key); got != http.StatusOK {
			t.Errorf("run %d: judge answers %d for the printed key, want 200", run, got)
		}
		if got := r.judgeStatus(t, "dev-key"); got != http.StatusUnauthorized {
			t.Errorf("run %d: judge answers %d for dev-key, want 401", run, got)
		}
		if got := r.childEnv(t, "interview")["JUDGE_API_KEY"]; got != key {
			t.Errorf("run %d: interview's JUDGE_API_KEY %q, want the judge's key", run, got)
		}
		if got := listenAddrs(t, r.caddy); !slices.Equal(got, []string{"127.0.0.1"}) {
			t.Errorf("run %d: Caddy listens on %v, want 127.0.0.1 only", run, got)
		}
		r.stop()
	}
}

// TestRunScriptKeepsDevKeyOffline: without a model, make run keeps the
// README's dev-key and writes no key file; the judge keeps what keys spent
// under .data/judge.
func TestRunScriptKeepsDevKeyOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole stack")
	}
	root := scratchCheckout(t)
	r := startRunScript(t, root)
	if !strings.Contains(r.proc.Output(), "[run] judge development key: dev-key") {
		t.Error("dev-key not printed")
	}
	if got := r.judgeStatus(t, "dev-key"); got != http.StatusOK {
		t.Errorf("judge answers %d for dev-key offline, want 200", got)
	}
	if got := r.childEnv(t, "interview")["JUDGE_API_KEY"]; got != "dev-key" {
		t.Errorf("interview's JUDGE_API_KEY %q, want dev-key", got)
	}
	if _, err := os.Stat(filepath.Join(root, ".data", "judge-api-key")); !os.IsNotExist(err) {
		t.Errorf(".data/judge-api-key exists offline (err %v)", err)
	}
	// What keys spent and used is kept under .data/ with the rest, and
	// survives the next make run.
	if _, err := os.Stat(filepath.Join(root, ".data", "judge", "spend.db")); err != nil {
		t.Errorf("the judge keeps no spending under .data/judge: %v", err)
	}
}

// TestRunScriptDefaultsAreLoopback pins the listen defaults of make run,
// which the tests above cannot use (they need free ports on a shared
// machine): the judge, the interview service and Caddy serve this machine
// only unless the settings say otherwise.
func TestRunScriptDefaultsAreLoopback(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "deploy", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"judge_addr=${JUDGE_ADDR:-127.0.0.1:8081}\n",
		"interview_addr=${INTERVIEW_ADDR:-127.0.0.1:8082}\n",
		"caddy_bind=${CADDY_BIND:-127.0.0.1}\n",
		`CADDY_BIND="$caddy_bind"`,
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("deploy/run.sh lacks %q", want)
		}
	}
}
