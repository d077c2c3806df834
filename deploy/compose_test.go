package deploy

import (
	"context"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// designSettings are the pinned variables (docs/api.md, "Settings"), plus
// the judge's REDIS_URL (shared limits for replicas), APP_ENV (strict keys
// in production) and OTEL_EXPORTER_OTLP_ENDPOINT (traces), by the service
// that reads them.
var designSettings = map[string][]string{
	"judge": {"LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "LLM_API", "JUDGE_ADDR", "JUDGE_API_KEYS", "JUDGE_RATE_LIMIT_RPM", "JUDGE_RATE_LIMIT_BURST", "JUDGE_MODEL_ALIASES",
		"JUDGE_CACHE_TTL", "APP_ENV", "REDIS_URL", "JUDGE_DATA_DIR", "OTEL_EXPORTER_OTLP_ENDPOINT"},
	"interview": {"LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "STT_MODEL", "TTS_MODEL", "TTS_VOICE",
		"VOICE_BASE_URL", "VOICE_API_KEY", "INTERVIEW_ADDR", "DATABASE_URL", "JWT_SECRET", "APP_ENV",
		"GOOGLE_CLIENT_ID", "JUDGE_URL", "JUDGE_API_KEY", "OTEL_EXPORTER_OTLP_ENDPOINT"},
}

// composeKey stands for the judge key every compose run must be given.
const composeKey = "0123456789abcdef0123456789abcdef-compose-test"

// loadCompose loads docker-compose.yml as docker compose would, with env
// (and a JUDGE_API_KEYS, which compose requires) as the only environment:
// the developer's shell and .env must not change what the test sees.
func loadCompose(t *testing.T, env ...string) *types.Project {
	t.Helper()
	p, err := tryLoadCompose(t, append([]string{"JUDGE_API_KEYS=" + composeKey}, env...)...)
	if err != nil {
		t.Fatalf("docker-compose.yml does not load: %v", err)
	}
	return p
}

func tryLoadCompose(t *testing.T, env ...string) (*types.Project, error) {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{filepath.Join(repoRoot(t), "docker-compose.yml")},
		cli.WithWorkingDirectory(repoRoot(t)),
		cli.WithEnv(env),
		// COMPOSE_PROFILES in env, as compose reads it.
		cli.WithDefaultProfiles(),
	)
	if err != nil {
		t.Fatal(err)
	}
	return opts.LoadProject(context.Background())
}

// TestComposeRequiresAJudgeKey: compose cannot tell an offline demo from a
// paid model, so it has no default key at all; without one it refuses to
// start and says how to make one. An empty value (a copy of .env.example)
// counts as none.
func TestComposeRequiresAJudgeKey(t *testing.T) {
	for _, env := range [][]string{nil, {"JUDGE_API_KEYS="}, {"LLM_BASE_URL=http://127.0.0.1:1/v1", "LLM_API_KEY=sk-test"}} {
		_, err := tryLoadCompose(t, env...)
		if err == nil {
			t.Errorf("env %q: compose loads without JUDGE_API_KEYS", env)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "JUDGE_API_KEYS") || !strings.Contains(msg, "openssl rand -hex 32") {
			t.Errorf("env %q: error %q does not say how to set the key", env, msg)
		}
	}
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "dev-key") {
		t.Error("docker-compose.yml mentions dev-key")
	}
}

// TestComposeInterviewUsesTheJudgeKey: the interview service scores through
// the judge with the judge's own key unless told another one.
func TestComposeInterviewUsesTheJudgeKey(t *testing.T) {
	p := loadCompose(t)
	if got, _ := envOf(service(t, p, "interview"), "JUDGE_API_KEY"); got != composeKey {
		t.Errorf("interview JUDGE_API_KEY %q, want the judge's key %q", got, composeKey)
	}
	p = loadCompose(t, "JUDGE_API_KEY=another-key-of-the-judge-0123456789")
	if got, _ := envOf(service(t, p, "interview"), "JUDGE_API_KEY"); got != "another-key-of-the-judge-0123456789" {
		t.Errorf("interview JUDGE_API_KEY %q, want the one given", got)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func service(t *testing.T, p *types.Project, name string) types.ServiceConfig {
	t.Helper()
	s, ok := p.Services[name]
	if !ok {
		t.Fatalf("service %q missing", name)
	}
	return s
}

func envOf(s types.ServiceConfig, key string) (string, bool) {
	v, ok := s.Environment[key]
	if !ok || v == nil {
		return "", false
	}
	return *v, true
}

func TestComposeServices(t *testing.T) {
	p := loadCompose(t)
	if p.Name != "judgeworks" {
		t.Errorf("project name %q, want judgeworks", p.Name)
	}
	var names []string
	for n := range p.Services {
		names = append(names, n)
	}
	slices.Sort(names)
	if want := []string{"caddy", "interview", "judge", "postgres"}; !slices.Equal(names, want) {
		t.Fatalf("services %v, want %v", names, want)
	}
	for _, n := range names {
		hc := p.Services[n].HealthCheck
		if hc == nil || hc.Disable || len(hc.Test) < 2 {
			t.Errorf("%s: no health check", n)
		}
	}
}

func TestComposePostgres(t *testing.T) {
	pg := service(t, loadCompose(t), "postgres")
	if pg.Image != "postgres:15" {
		t.Errorf("postgres image %q", pg.Image)
	}
	if !slices.ContainsFunc(pg.Volumes, func(v types.ServiceVolumeConfig) bool {
		return v.Type == types.VolumeTypeVolume && v.Target == "/var/lib/postgresql/data"
	}) {
		t.Errorf("postgres data is not on a named volume: %+v", pg.Volumes)
	}
	if !strings.Contains(strings.Join(pg.HealthCheck.Test, " "), "pg_isready") {
		t.Errorf("postgres health check %v does not use pg_isready", pg.HealthCheck.Test)
	}
	if len(pg.Ports) != 0 {
		t.Errorf("postgres must not be published: %+v", pg.Ports)
	}
}

func TestComposeServicesBuildAndCheckHealth(t *testing.T) {
	p := loadCompose(t)
	for _, tc := range []struct {
		service, dockerfile string
		health              []string
	}{
		{"judge", "deploy/judge.Dockerfile", []string{"CMD", "/judge", "healthcheck"}},
		{"interview", "deploy/interview.Dockerfile", []string{"CMD", "interview", "healthcheck"}},
	} {
		t.Run(tc.service, func(t *testing.T) {
			s := service(t, p, tc.service)
			if s.Build == nil {
				t.Fatal("no build section")
			}
			if s.Build.Context != repoRoot(t) {
				t.Errorf("build context %q, want the repository root (the go.work workspace)", s.Build.Context)
			}
			if s.Build.Dockerfile != tc.dockerfile {
				t.Errorf("dockerfile %q, want %q", s.Build.Dockerfile, tc.dockerfile)
			}
			if _, err := os.Stat(filepath.Join(repoRoot(t), tc.dockerfile)); err != nil {
				t.Error(err)
			}
			if !slices.Equal(s.HealthCheck.Test, tc.health) {
				t.Errorf("health check %v, want %v", s.HealthCheck.Test, tc.health)
			}
			if len(s.Ports) != 0 {
				t.Errorf("%s is published directly; only caddy should be: %+v", tc.service, s.Ports)
			}
		})
	}
}

func TestComposeDependsOn(t *testing.T) {
	p := loadCompose(t)
	for _, tc := range []struct{ service, on string }{
		{"interview", "postgres"},
		{"interview", "judge"},
		{"caddy", "judge"},
		{"caddy", "interview"},
	} {
		dep, ok := service(t, p, tc.service).DependsOn[tc.on]
		if !ok {
			t.Errorf("%s does not depend on %s", tc.service, tc.on)
			continue
		}
		if dep.Condition != types.ServiceConditionHealthy {
			t.Errorf("%s depends on %s with condition %q, want service_healthy", tc.service, tc.on, dep.Condition)
		}
	}
}

func TestComposeCaddy(t *testing.T) {
	p := loadCompose(t)
	c := service(t, p, "caddy")
	if !strings.HasPrefix(c.Image, "caddy:2") {
		t.Errorf("caddy image %q", c.Image)
	}
	if len(c.Ports) != 1 || c.Ports[0].Published != "8080" || c.Ports[0].Target != 8080 || c.Ports[0].HostIP != "127.0.0.1" {
		t.Errorf("caddy ports %+v, want 127.0.0.1:8080:8080 (this machine only)", c.Ports)
	}
	if got, _ := envOf(c, "CADDY_ADDR"); got != ":8080" {
		t.Errorf("CADDY_ADDR %q, want :8080 (the published target)", got)
	}
	// Inside its container Caddy must listen on every interface, or the
	// published port would reach nothing.
	if got, _ := envOf(c, "CADDY_BIND"); got != "0.0.0.0" {
		t.Errorf("caddy's CADDY_BIND %q, want 0.0.0.0 inside the container", got)
	}
	open := service(t, loadCompose(t, "CADDY_BIND=0.0.0.0"), "caddy")
	if len(open.Ports) != 1 || open.Ports[0].HostIP != "0.0.0.0" {
		t.Errorf("CADDY_BIND=0.0.0.0: caddy ports %+v, want host IP 0.0.0.0", open.Ports)
	}
	caddyfile := filepath.Join(repoRoot(t), "deploy", "Caddyfile")
	if !slices.ContainsFunc(c.Volumes, func(v types.ServiceVolumeConfig) bool {
		return v.Type == types.VolumeTypeBind && v.Source == caddyfile && v.Target == "/etc/caddy/Caddyfile" && v.ReadOnly
	}) {
		t.Errorf("deploy/Caddyfile is not mounted read-only at /etc/caddy/Caddyfile: %+v", c.Volumes)
	}
	// The upstreams must be where the services listen inside the network;
	// the judge's by its service name, looked up again and again, so that
	// every replica of a scaled judge is reached.
	interviewAddr, _ := envOf(service(t, p, "interview"), "INTERVIEW_ADDR")
	if got, _ := envOf(c, "INTERVIEW_UPSTREAM"); got != "interview"+interviewAddr {
		t.Errorf("INTERVIEW_UPSTREAM = %q, want interview%s (the interview service's listen address)", got, interviewAddr)
	}
	judgeAddr, _ := envOf(service(t, p, "judge"), "JUDGE_ADDR")
	for k, want := range map[string]string{"JUDGE_DISCOVERY": "dns", "JUDGE_DNS_NAME": "judge", "JUDGE_DNS_PORT": strings.TrimPrefix(judgeAddr, ":")} {
		if got, _ := envOf(c, k); got != want {
			t.Errorf("caddy's %s = %q, want %q", k, got, want)
		}
	}
}

// TestComposeJudgeKeepsSpendOnAVolume: a judge without Redis keeps what
// keys spent under JUDGE_DATA_DIR, which compose puts on a named volume,
// writable under a read-only root file system. A new volume takes the
// ownership of the directory it is mounted on, so the image makes that
// directory its user's, readable by no one else.
func TestComposeJudgeKeepsSpendOnAVolume(t *testing.T) {
	j := service(t, loadCompose(t), "judge")
	dir, _ := envOf(j, "JUDGE_DATA_DIR")
	if !path.IsAbs(dir) {
		t.Fatalf("judge JUDGE_DATA_DIR %q, want an absolute path in the container", dir)
	}
	if !j.ReadOnly || !slices.ContainsFunc(j.Volumes, func(v types.ServiceVolumeConfig) bool {
		return v.Type == types.VolumeTypeVolume && v.Target == dir && !v.ReadOnly
	}) {
		t.Errorf("judge: read-only root %v, volumes %+v; want a writable named volume at %s", j.ReadOnly, j.Volumes, dir)
	}

	stages, _ := parseDockerfile(t, filepath.Join(repoRoot(t), "deploy", "judge.Dockerfile"))
	final := stages[len(stages)-1]
	users := final.has("USER ")
	user := strings.TrimPrefix(users[len(users)-1], "USER ")
	if !slices.ContainsFunc(final.has("ENV "), func(l string) bool { return slices.Contains(strings.Fields(l), "JUDGE_DATA_DIR="+dir) }) {
		t.Errorf("the image's JUDGE_DATA_DIR is not compose's %s: %q", dir, final.has("ENV "))
	}
	// COPY --from=build --chown=USER SRC DST, DST holding dir; an earlier
	// stage makes SRC's part of it with mode 0700.
	made := false
	for _, l := range final.has("COPY --from=") {
		f := strings.Fields(l)
		if len(f) != 5 || f[2] != "--chown="+user || (dir != f[4] && !strings.HasPrefix(dir, f[4]+"/")) {
			continue
		}
		want := "install -d -m 0700 " + f[3] + strings.TrimPrefix(dir, f[4])
		for _, s := range stages[:len(stages)-1] {
			made = made || slices.ContainsFunc(s.has("RUN "), func(l string) bool { return strings.Contains(l, want) })
		}
	}
	if !made {
		t.Errorf("deploy/judge.Dockerfile does not give %s to its user %s with mode 0700", dir, user)
	}
}

// TestComposeReplicasProfile: Redis joins only with the replicas profile,
// unpublished, and the judges find it at the address the docs give.
func TestComposeReplicasProfile(t *testing.T) {
	if _, ok := loadCompose(t).Services["redis"]; ok {
		t.Error("redis runs without the replicas profile")
	}
	p := loadCompose(t, "COMPOSE_PROFILES=replicas", "REDIS_URL=redis://redis:6379/0")
	r := service(t, p, "redis")
	if r.Image != "redis:7" || len(r.Ports) != 0 || r.HealthCheck == nil {
		t.Errorf("redis: image %q, ports %+v, health check %+v", r.Image, r.Ports, r.HealthCheck)
	}
	if got, _ := envOf(service(t, p, "judge"), "REDIS_URL"); got != "redis://redis:6379/0" {
		t.Errorf("judge REDIS_URL %q", got)
	}
}

// TestComposeHardening: every service runs as a non-root user without
// capabilities; the stateless ones on a read-only root file system.
func TestComposeHardening(t *testing.T) {
	p := loadCompose(t, "COMPOSE_PROFILES=replicas")
	for name, s := range p.Services {
		if !slices.Contains(s.CapDrop, "ALL") || !slices.Contains(s.SecurityOpt, "no-new-privileges:true") {
			t.Errorf("%s: cap_drop %v, security_opt %v", name, s.CapDrop, s.SecurityOpt)
		}
		// judge and interview set their user in the image (USER).
		if s.Build == nil && (s.User == "" || s.User == "root" || strings.HasPrefix(s.User, "0")) {
			t.Errorf("%s: user %q, want a non-root user", name, s.User)
		}
		if name != "postgres" && !s.ReadOnly {
			t.Errorf("%s: root file system is writable", name)
		}
	}
}

func TestComposeDefaults(t *testing.T) {
	p := loadCompose(t)
	judge := service(t, p, "judge")
	interview := service(t, p, "interview")
	pg := service(t, p, "postgres")
	for _, tc := range []struct {
		s          types.ServiceConfig
		key, value string
	}{
		{judge, "JUDGE_ADDR", ":8081"},
		{judge, "JUDGE_API_KEYS", composeKey},
		{judge, "JUDGE_RATE_LIMIT_RPM", "1200"},
		{judge, "APP_ENV", "development"},
		{judge, "LLM_BASE_URL", ""},
		{judge, "LLM_API_KEY", ""},
		{judge, "REDIS_URL", ""},
		{interview, "INTERVIEW_ADDR", ":8082"},
		{interview, "APP_ENV", "development"},
		{interview, "JUDGE_URL", "http://judge:8081"},
		{interview, "JUDGE_API_KEY", composeKey},
		{interview, "GOOGLE_CLIENT_ID", ""},
	} {
		if got, ok := envOf(tc.s, tc.key); !ok || got != tc.value {
			t.Errorf("%s: %s = %q (set %v), want %q", tc.s.Name, tc.key, got, ok, tc.value)
		}
	}
	// DATABASE_URL must name the postgres service with its own credentials.
	raw, _ := envOf(interview, "DATABASE_URL")
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("DATABASE_URL %q: %v", raw, err)
	}
	user, _ := envOf(pg, "POSTGRES_USER")
	pass, _ := envOf(pg, "POSTGRES_PASSWORD")
	db, _ := envOf(pg, "POSTGRES_DB")
	gotPass, _ := u.User.Password()
	if u.Hostname() != "postgres" || u.Port() != "5432" || u.User.Username() != user || gotPass != pass || u.Path != "/"+db {
		t.Errorf("DATABASE_URL %q does not match the postgres service (%s/%s/%s)", raw, user, pass, db)
	}
}

func TestComposeEveryDesignSettingReachesItsService(t *testing.T) {
	// Each setting gets a distinct value, so a variable wired to the wrong
	// name shows up as a wrong value.
	var env []string
	for _, keys := range designSettings {
		for _, k := range keys {
			env = append(env, k+"=value-of-"+k)
		}
	}
	env = append(env, "CADDY_PORT=9090", "CADDY_BIND=192.0.2.1", "POSTGRES_PASSWORD=s3cret")
	p := loadCompose(t, env...)
	// The listen addresses, the judge's URL and the database are fixed by the
	// compose network, the judge's data directory by its volume; a .env
	// meant for make run must not move them.
	fixed := map[string]bool{"JUDGE_ADDR": true, "INTERVIEW_ADDR": true, "DATABASE_URL": true, "JUDGE_URL": true, "JUDGE_DATA_DIR": true}
	for svc, keys := range designSettings {
		s := service(t, p, svc)
		for _, k := range keys {
			got, ok := envOf(s, k)
			if !ok {
				t.Errorf("%s: %s not passed to the container", svc, k)
				continue
			}
			if !fixed[k] && got != "value-of-"+k {
				t.Errorf("%s: %s = %q, want the value from .env", svc, k, got)
			}
			if fixed[k] && strings.Contains(got, "value-of-") {
				t.Errorf("%s: %s = %q follows .env, but the compose network fixes it", svc, k, got)
			}
		}
	}
	if c := service(t, p, "caddy"); c.Ports[0].Published != "9090" || c.Ports[0].HostIP != "192.0.2.1" {
		t.Errorf("CADDY_PORT or CADDY_BIND not applied: %+v", c.Ports)
	}
	raw, _ := envOf(service(t, p, "interview"), "DATABASE_URL")
	pgPass, _ := envOf(service(t, p, "postgres"), "POSTGRES_PASSWORD")
	if pgPass != "s3cret" || !strings.Contains(raw, ":s3cret@") {
		t.Errorf("POSTGRES_PASSWORD not applied to both sides: %q, %q", pgPass, raw)
	}
}

// TestEnvExampleDocumentsEverySetting keeps .env.example complete: every
// pinned variable (docs/api.md, "Settings") and every variable docker-compose.yml interpolates.
func TestEnvExampleDocumentsEverySetting(t *testing.T) {
	root := repoRoot(t)
	example, err := os.ReadFile(filepath.Join(root, ".env.example"))
	if err != nil {
		t.Fatal(err)
	}
	compose, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, keys := range designSettings {
		for _, k := range keys {
			want[k] = true
		}
	}
	for _, m := range regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*)`).FindAllSubmatch(compose, -1) {
		want[string(m[1])] = true
	}
	for k := range want {
		// Set or shown commented out, at the start of a line.
		if !regexp.MustCompile(`(?m)^(# )?` + k + `=`).Match(example) {
			t.Errorf(".env.example does not document %s", k)
		}
	}
}
