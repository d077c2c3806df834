package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// stage is one FROM section of a Dockerfile, its instructions joined across
// line continuations.
type stage struct {
	from  string
	lines []string
}

// parseDockerfile returns the stages of a Dockerfile, each FROM with the
// defaults of the ARGs before the first FROM substituted, and those defaults.
func parseDockerfile(t *testing.T, path string) ([]stage, map[string]string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var stages []stage
	args := map[string]string{}
	var cur string
	for line := range strings.Lines(string(raw)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutSuffix(line, "\\"); ok {
			cur += rest + " "
			continue
		}
		cur += line
		if from, ok := strings.CutPrefix(cur, "FROM "); ok {
			for name, def := range args {
				from = strings.ReplaceAll(from, "${"+name+"}", def)
			}
			stages = append(stages, stage{from: from})
		} else if arg, ok := strings.CutPrefix(cur, "ARG "); ok && len(stages) == 0 {
			name, def, _ := strings.Cut(arg, "=")
			args[name] = def
		} else if len(stages) > 0 {
			stages[len(stages)-1].lines = append(stages[len(stages)-1].lines, cur)
		}
		cur = ""
	}
	return stages, args
}

func (s stage) has(prefix string) []string {
	var out []string
	for _, l := range s.lines {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

func TestDockerfiles(t *testing.T) {
	root := repoRoot(t)
	p := loadCompose(t)
	for _, tc := range []struct {
		file, service, binary, runtime string
		// The workspace modules the build copies: the one it builds and
		// shared, never the others (each image downloads only what it
		// builds).
		modules []string
		web     bool
	}{
		{"judge.Dockerfile", "judge", "/judge", "gcr.io/distroless/static-debian12:nonroot", []string{"shared", "judge"}, false},
		{"interview.Dockerfile", "interview", "interview", "debian:bookworm-slim", []string{"shared", "interview"}, true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(root, "deploy", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			// A syntax directive makes every build fetch a frontend image
			// from a registry; the built-in frontend runs RUN --mount.
			if strings.Contains(string(raw), "# syntax=") {
				t.Error("a # syntax= directive: the build would need a registry before its first step")
			}
			stages, args := parseDockerfile(t, filepath.Join(root, "deploy", tc.file))
			if len(stages) < 2 {
				t.Fatalf("%d stages, want a multi-stage build", len(stages))
			}
			final := stages[len(stages)-1]
			if final.from != tc.runtime {
				t.Errorf("runtime image %q, want %s", final.from, tc.runtime)
			}
			// Every base image is a build argument with the official default,
			// and compose's default for the runtime is the same image.
			for _, s := range stages[:len(stages)-1] {
				if !strings.HasPrefix(s.from, "golang:") && !strings.HasPrefix(s.from, "node:") {
					t.Errorf("stage FROM %q: want GO_IMAGE or NODE_IMAGE", s.from)
				}
			}
			if args["GO_IMAGE"] != "golang:1.26-bookworm" || args["RUNTIME_IMAGE"] != tc.runtime || tc.web != (args["NODE_IMAGE"] == "node:20-slim") {
				t.Errorf("base image arguments %v", args)
			}
			if b := service(t, p, tc.service).Build; b == nil || b.Args["RUNTIME_IMAGE"] == nil || *b.Args["RUNTIME_IMAGE"] != tc.runtime {
				t.Errorf("compose's RUNTIME_IMAGE for %s is not the Dockerfile's default %s", tc.service, tc.runtime)
			}
			users := final.has("USER ")
			if len(users) == 0 || strings.HasPrefix(users[len(users)-1], "USER root") || strings.HasPrefix(users[len(users)-1], "USER 0") {
				t.Errorf("runtime stage runs as root (USER lines %q)", users)
			}
			hc := final.has("HEALTHCHECK")
			if len(hc) != 1 || !strings.Contains(hc[0], `CMD ["`+tc.binary+`", "healthcheck"]`) {
				t.Errorf("runtime HEALTHCHECK %q, want the binary's healthcheck subcommand", hc)
			}

			var goBuild string
			for _, s := range stages {
				for _, l := range s.has("RUN ") {
					if strings.Contains(l, "go build") {
						goBuild = l
					}
				}
			}
			for _, flag := range []string{"CGO_ENABLED=0", "-trimpath"} {
				if !strings.Contains(goBuild, flag) {
					t.Errorf("go build %q lacks %s", goBuild, flag)
				}
			}

			// What the build copies from the context must exist, or the build
			// fails far from here: a plain path must be there, and each COPY
			// must match something (a pattern such as go.work.sum* may match
			// nothing in a fresh clone). go.work lists every module, so every
			// module's go.mod has to be copied.
			var copied []string
			for _, s := range stages {
				for _, l := range s.has("COPY ") {
					fields := strings.Fields(l)[1:]
					if strings.HasPrefix(fields[0], "--from=") {
						continue
					}
					matched := false
					for _, src := range fields[:len(fields)-1] {
						copied = append(copied, src)
						m, _ := filepath.Glob(filepath.Join(root, src))
						matched = matched || len(m) > 0
						if len(m) == 0 && !strings.ContainsAny(src, "*?[") {
							t.Errorf("COPY source %s does not exist", src)
						}
					}
					if !matched {
						t.Errorf("%q copies nothing", l)
					}
				}
			}
			for _, mod := range []string{"shared", "judge", "interview", "deploy"} {
				want := slices.Contains(tc.modules, mod)
				for _, src := range []string{mod + "/go.*", mod + "/"} {
					if got := slices.Contains(copied, src); got != want {
						t.Errorf("copies %s: %v, want %v (the build's modules: %v)", src, got, want, tc.modules)
					}
				}
			}
			if slices.ContainsFunc(copied, func(src string) bool { return strings.HasPrefix(src, "go.work") }) {
				t.Error("the build copies go.work: it would resolve every module of the workspace")
			}

			if tc.web {
				web := stages[0]
				if web.from != "node:20-slim AS web" || len(web.has("RUN --mount=type=cache,target=/root/.npm npm ci")) != 1 || len(web.has("RUN npm run build")) != 1 {
					t.Errorf("web stage %q does not build the client with npm ci and npm run build", web.from)
				}
				if !slices.ContainsFunc(stages[1].lines, func(l string) bool {
					return strings.HasPrefix(l, "COPY --from=web ") && strings.HasSuffix(l, "/interview/web/dist/")
				}) {
					t.Error("the Go build does not take the built web client from the web stage")
				}
			}
		})
	}
}
