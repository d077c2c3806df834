package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// composeStack is docker-compose.yml run by the docker compose CLI from a
// copy of the tree, under a project name of its own, with Caddy on a free
// loopback port.
type composeStack struct {
	dir, project, key string
	port              int
	env               []string
}

// TestComposeStack builds and runs the compose stack for real (make
// test-compose, deploy/compose-test.sh, prepares the engine, the copy of
// the tree in COMPOSE_STACK_DIR and the base images). Through Caddy: the
// README's judge example, an interview to its report, the web page in
// headless Chromium; a restarted interview service keeps the user signed
// in, down and up keep accounts and history; every container runs as
// non-root and only Caddy is published, on 127.0.0.1; the replicas profile
// spreads requests over three judges held to one key's limit. Each phase
// ends with down -v and nothing of the project left.
func TestComposeStack(t *testing.T) {
	dir := os.Getenv("COMPOSE_STACK_DIR")
	if dir == "" {
		t.Skip("make test-compose runs this: it needs a Docker engine, compose and the base images")
	}
	cs := newComposeStack(t, dir)
	t.Cleanup(func() { cs.down(t) })

	t.Run("fail clearly", func(t *testing.T) { testComposeCheck(t, cs) })
	if t.Failed() {
		return
	}
	start := time.Now()
	cs.compose(t, "build")
	t.Logf("docker compose build: %v", time.Since(start).Round(time.Second))
	start = time.Now()
	cs.compose(t, "up", "-d", "--wait", "--wait-timeout", "300")
	t.Logf("docker compose up --wait: %v", time.Since(start).Round(time.Second))

	s := &stack{base: fmt.Sprintf("http://127.0.0.1:%d", cs.port)}
	t.Run("readme judge example", func(t *testing.T) { testReadmeExample(t, cs, s) })
	var client *http.Client
	var interviewID string
	t.Run("interview", func(t *testing.T) { client, interviewID = finishInterview(t, s) })
	state := filepath.Join(t.TempDir(), "browser-state.json")
	t.Run("page in chromium", func(t *testing.T) { browser(t, "register", s.base, state) })
	t.Run("non-root, only caddy published", func(t *testing.T) { testContainers(t, cs) })
	if t.Failed() {
		return
	}

	t.Run("restart keeps the session", func(t *testing.T) {
		cs.compose(t, "restart", "interview")
		cs.compose(t, "up", "-d", "--wait", "--wait-timeout", "120")
		signedIn(t, s, client, interviewID)
		browser(t, "signed-in", s.base, state)
	})
	t.Run("down and up keep accounts and history", func(t *testing.T) {
		cs.compose(t, "down")
		cs.compose(t, "up", "-d", "--wait", "--wait-timeout", "300")
		signedIn(t, s, client, interviewID)
		browser(t, "signed-in", s.base, state)
	})
	cs.down(t)

	t.Run("replicas", func(t *testing.T) { testComposeReplicas(t, cs, s) })
	cs.down(t)
}

func newComposeStack(t *testing.T, dir string) *composeStack {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, ".env"))
	if err != nil {
		t.Fatal(err)
	}
	key, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "JUDGE_API_KEYS=")
	if !ok || strings.Contains(key, "\n") {
		t.Fatalf("%s/.env should hold JUDGE_API_KEYS alone:\n%s", dir, raw)
	}
	cs := &composeStack{dir: dir, key: key, project: fmt.Sprintf("judgeworks-test-%d", os.Getpid()), port: freePort(t)}
	// The stack sees .env and nothing of this shell's settings but the
	// build's (image, module proxy and registry settings).
	compose, err := os.ReadFile(filepath.Join(dir, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]bool{}
	for _, m := range regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*)`).FindAllSubmatch(compose, -1) {
		if !strings.HasSuffix(string(m[1]), "_IMAGE") {
			settings[string(m[1])] = true
		}
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !settings[name] && !strings.HasPrefix(name, "COMPOSE_") {
			cs.env = append(cs.env, kv)
		}
	}
	cs.env = append(cs.env, "COMPOSE_PROJECT_NAME="+cs.project, "CADDY_PORT="+strconv.Itoa(cs.port))
	return cs
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// run runs a command in the stack's directory with its environment plus
// extra, and returns its output; a failure ends the test with that output.
func (cs *composeStack) run(t *testing.T, extra []string, name string, args ...string) string {
	t.Helper()
	out, err := cs.try(extra, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func (cs *composeStack) try(extra []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = cs.dir
	cmd.Env = append(slices.Clone(cs.env), extra...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func (cs *composeStack) compose(t *testing.T, args ...string) string {
	t.Helper()
	return cs.run(t, nil, "docker", append([]string{"compose"}, args...)...)
}

// down removes the project with its volumes, and checks that nothing of it
// is left: no container, volume or network.
func (cs *composeStack) down(t *testing.T) {
	t.Helper()
	if out, err := cs.try(nil, "docker", "compose", "--profile", "replicas", "down", "-v", "--remove-orphans", "--timeout", "20"); err != nil {
		t.Errorf("docker compose down -v: %v\n%s", err, out)
	}
	label := "label=com.docker.compose.project=" + cs.project
	for _, what := range [][]string{{"ps", "-a", "-q"}, {"volume", "ls", "-q"}, {"network", "ls", "-q"}} {
		out, err := cs.try(nil, "docker", append(what, "--filter", label)...)
		if err != nil || strings.TrimSpace(out) != "" {
			t.Errorf("after down -v, docker %s for the project: %q (%v)", what[0], out, err)
		}
	}
}

// testComposeCheck: deploy/compose-check.sh passes on the copy, and a
// missing key, a port in use and a base image that cannot be had each end
// with one line saying what to do.
func testComposeCheck(t *testing.T, cs *composeStack) {
	check := filepath.Join(cs.dir, "deploy", "compose-check.sh")
	if out, err := cs.try(nil, "bash", check); err != nil {
		t.Fatalf("compose-check on a ready copy: %v\n%s", err, out)
	}
	noKey := t.TempDir()
	compose, err := os.ReadFile(filepath.Join(cs.dir, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(noKey, "docker-compose.yml"), compose, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(noKey, ".env"), []byte("LLM_MODEL=\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct {
		what  string
		args  []string
		extra []string
		want  []string
	}{
		{"no JUDGE_API_KEYS", []string{check, noKey}, nil, []string{"JUDGE_API_KEYS", "openssl rand -hex 32"}},
		{"port in use", []string{check}, []string{"CADDY_PORT=" + busyPort}, []string{"port " + busyPort, "in use", "CADDY_PORT"}},
		{"base image unavailable", []string{check}, []string{"GO_IMAGE=judgeworks.invalid/golang:none"},
			[]string{"judgeworks.invalid/golang:none", "cannot be had", "mirror"}},
	} {
		out, err := cs.try(tc.extra, "bash", tc.args...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if err == nil || len(lines) != 1 {
			t.Errorf("%s: compose-check exited with %v, want a failure with one line:\n%s", tc.what, err, out)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: %q does not say %q", tc.what, out, w)
			}
		}
	}
}

// readmeJudgeExample is the README's first curl to /v1/systemone.
var readmeJudgeExample = regexp.MustCompile("(?s)```sh\n(curl -s http://localhost:8080/v1/systemone .*?)\n```")

// testReadmeExample runs the README's judge example as written, with the
// stack's address and key.
func testReadmeExample(t *testing.T, cs *composeStack, s *stack) {
	readme, err := os.ReadFile(filepath.Join(cs.dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := readmeJudgeExample.FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no curl example for /v1/systemone")
	}
	cmd := strings.NewReplacer("http://localhost:8080", s.base, "dev-key", cs.key).Replace(string(m[1]))
	out := cs.run(t, nil, "bash", "-c", cmd+" --fail-with-body --max-time 30")
	var got struct {
		Model   string `json:"model"`
		Answers map[string]struct {
			Type   string `json:"type"`
			Choice string `json:"choice"`
		} `json:"answers"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("README example answered %v:\n%s", err, out)
	}
	for name, typ := range map[string]string{"refund": "noul", "team": "choice", "anger": "score"} {
		if got.Answers[name].Type != typ {
			t.Errorf("README example: answer %q is %+v, want type %s\n%s", name, got.Answers[name], typ, out)
		}
	}
	if got.Answers["team"].Choice != "billing" {
		t.Errorf("README example: team %q, the README shows billing", got.Answers["team"].Choice)
	}
}

// signedIn: the client's session still names its user, and the finished
// interview is still in the history.
func signedIn(t *testing.T, s *stack, c *http.Client, interviewID string) {
	t.Helper()
	if c == nil {
		t.Fatal("no signed-in user: the interview step failed")
	}
	var me struct {
		User struct {
			ID string `json:"_id"`
		} `json:"user"`
	}
	wantStatus(t, call(t, c, http.MethodGet, s.base+"/api/auth/me", nil, nil, &me), http.StatusOK)
	var history []struct {
		ID string `json:"_id"`
	}
	wantStatus(t, call(t, c, http.MethodGet, s.base+"/api/interview/history", nil, nil, &history), http.StatusOK)
	if len(history) != 1 || history[0].ID != interviewID {
		t.Errorf("history %+v, want the finished interview %s", history, interviewID)
	}
}

func browser(t *testing.T, mode, base, state string) {
	t.Helper()
	cmd := exec.Command("node", "compose-browser.mjs", mode, base, state)
	cmd.Env = append(os.Environ(), "WEB_DIR="+webDir(t))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("headless Chromium (%s): %v\n%s", mode, err, out)
	}
}

func webDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("WEB_DIR"); d != "" {
		return d
	}
	return filepath.Join(repoRoot(t), "interview", "web")
}

// container is what docker inspect says of one container of the project.
type container struct {
	Config struct {
		User   string
		Labels map[string]string
	}
	State struct {
		Pid int
	}
	NetworkSettings struct {
		Ports    map[string][]struct{ HostIp, HostPort string }
		Networks map[string]struct{ IPAddress string }
	}
}

func (c container) service() string { return c.Config.Labels["com.docker.compose.service"] }

func (cs *composeStack) containers(t *testing.T, service string) ([]string, []container) {
	t.Helper()
	args := []string{"compose", "ps", "-q"}
	if service != "" {
		args = append(args, service)
	}
	ids := strings.Fields(cs.run(t, nil, "docker", args...))
	if len(ids) == 0 {
		t.Fatalf("no running container of %q", service)
	}
	var out []container
	if err := json.Unmarshal([]byte(cs.run(t, nil, "docker", append([]string{"inspect"}, ids...)...)), &out); err != nil {
		t.Fatal(err)
	}
	return ids, out
}

// testContainers: every process of every container runs as a non-root
// user, and only Caddy has published ports, all on 127.0.0.1.
func testContainers(t *testing.T, cs *composeStack) {
	ids, all := cs.containers(t, "")
	var services []string
	for i, c := range all {
		services = append(services, c.service())
		if u := c.Config.User; u == "" || u == "root" || u == "0" || strings.HasPrefix(u, "0:") {
			t.Errorf("%s: configured user %q", c.service(), u)
		}
		top := cs.run(t, nil, "docker", "top", ids[i], "-eo", "pid,uid,comm")
		for _, line := range strings.Split(strings.TrimSpace(top), "\n")[1:] {
			if f := strings.Fields(line); len(f) < 3 || f[1] == "0" {
				t.Errorf("%s: a process runs as root: %q", c.service(), line)
			}
		}
		for port, bindings := range c.NetworkSettings.Ports {
			if len(bindings) > 0 && c.service() != "caddy" {
				t.Errorf("%s publishes %s: %+v", c.service(), port, bindings)
			}
			for _, b := range bindings {
				if b.HostIp != "127.0.0.1" || b.HostPort != strconv.Itoa(cs.port) {
					t.Errorf("%s: %s published on %s:%s, want 127.0.0.1:%d only", c.service(), port, b.HostIp, b.HostPort, cs.port)
				}
			}
		}
	}
	slices.Sort(services)
	if want := []string{"caddy", "interview", "judge", "postgres"}; !slices.Equal(services, want) {
		t.Errorf("running services %v, want %v", services, want)
	}
}

// composeReplicaRPM is the judges' per-key limit in the replicas phase:
// low, so that a short flood exceeds it many times over.
const composeReplicaRPM = 60

// testComposeReplicas: with the replicas profile and three judges, Caddy
// reaches every judge (it looks the service name up again: the third is
// added after Caddy started), and a flood spread over them is held to one
// key's limit through the shared Redis.
func testComposeReplicas(t *testing.T, cs *composeStack, s *stack) {
	extra := []string{"REDIS_URL=redis://redis:6379/0", "JUDGE_RATE_LIMIT_RPM=" + strconv.Itoa(composeReplicaRPM),
		"JUDGE_RATE_LIMIT_BURST=" + strconv.Itoa(replicaBurst)}
	cs.env = append(cs.env, extra...)
	defer func() { cs.env = cs.env[:len(cs.env)-len(extra)] }()
	cs.compose(t, "--profile", "replicas", "up", "-d", "--wait", "--wait-timeout", "300", "--scale", "judge=2")
	cs.compose(t, "--profile", "replicas", "up", "-d", "--wait", "--wait-timeout", "300", "--scale", "judge=3", "--no-recreate")
	_, judges := cs.containers(t, "judge")
	if len(judges) != 3 {
		t.Fatalf("%d judges running, want 3", len(judges))
	}
	var bases []string
	for _, j := range judges {
		for _, n := range j.NetworkSettings.Networks {
			if n.IPAddress != "" {
				bases = append(bases, "http://"+n.IPAddress+":8081")
				break
			}
		}
	}
	if len(bases) != 3 {
		t.Fatalf("judge addresses %v", bases)
	}
	c := &http.Client{Timeout: 30 * time.Second}
	const sent, workers = 3 * composeReplicaRPM / 2, 6
	body, _ := json.Marshal(map[string]any{
		"model": "local/lexical-latest", "state": "Please refund the duplicate charge.",
		"questions": map[string]any{"refund": map[string]any{"type": "noul", "instructions": "Does the customer ask for a refund?"}},
	})
	// A judge that started before Redis answered counts on its own until a
	// request finds Redis again: one request straight to each such judge,
	// then the flood starts once every judge shares the bucket. These
	// requests take from that bucket, so the bound below still holds.
	before := onRedis(t, c, bases, cs.key, body, 90*time.Second)
	statuses := map[int]int{}
	var mu sync.Mutex
	jobs := make(chan struct{}, sent)
	for range sent {
		jobs <- struct{}{}
	}
	close(jobs)
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range jobs {
				req, _ := http.NewRequest(http.MethodPost, s.base+"/v1/systemone", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+cs.key)
				req.Header.Set("Content-Type", "application/json")
				status := 0
				if resp, err := c.Do(req); err == nil {
					status = resp.StatusCode
					resp.Body.Close()
				}
				mu.Lock()
				statuses[status]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	after := scrapeAll(t, c, bases)

	shape := bucketShape{burst: min(replicaBurst, composeReplicaRPM), perMinute: composeReplicaRPM}
	t.Logf("replicas: %d requests in %v through Caddy: statuses %v", sent, elapsed.Round(time.Millisecond), statuses)
	if statuses[http.StatusOK] < 1 {
		t.Errorf("three judges admitted none of %d requests", sent)
	}
	// A Redis call slower than its deadline (a busy machine) is decided by
	// that judge alone, by design; the bound allows for each such decision.
	checkShared(t, "compose flood", float64(statuses[http.StatusOK]), sent, 1, shape, elapsed, before, after)
	if statuses[http.StatusOK]+statuses[http.StatusTooManyRequests] != sent {
		t.Errorf("statuses %v: every request should be answered 200 or 429", statuses)
	}
	for i := range bases {
		if n := after[i].requests - before[i].requests; n < 1 {
			t.Errorf("judge %s was not reached through Caddy (requests %v before, %v after)", bases[i], before[i].requests, after[i].requests)
		}
	}
	// A judge that decided alone during the flood finds Redis again.
	onRedis(t, c, bases, cs.key, body, 30*time.Second)
}

// onRedis sends one request straight to each judge that counts its limits
// on its own until every judge counts them in Redis, failing the test
// after within, and returns the judges' metrics as last read, every judge
// on Redis.
func onRedis(t *testing.T, c *http.Client, bases []string, key string, body []byte, within time.Duration) []replicaMetrics {
	t.Helper()
	ms := scrapeAll(t, c, bases)
	for deadline := time.Now().Add(within); !allRedisUp(ms); ms = scrapeAll(t, c, bases) {
		if time.Now().After(deadline) {
			t.Fatalf("judges not all on Redis after %v: %+v", within, ms)
		}
		for i, m := range ms {
			if m.redisUp == 1 {
				continue
			}
			req, _ := http.NewRequest(http.MethodPost, bases[i]+"/v1/systemone", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			if resp, err := c.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		time.Sleep(time.Second)
	}
	return ms
}

// allRedisUp reports whether every judge scraped counts its limits in Redis.
func allRedisUp(ms []replicaMetrics) bool {
	for _, m := range ms {
		if m.redisUp != 1 {
			return false
		}
	}
	return true
}
