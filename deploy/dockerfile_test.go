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

func parseDockerfile(t *testing.T, path string) []stage {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var stages []stage
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
			stages = append(stages, stage{from: from})
		} else if len(stages) > 0 {
			stages[len(stages)-1].lines = append(stages[len(stages)-1].lines, cur)
		}
		cur = ""
	}
	return stages
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
	for _, tc := range []struct {
		file, binary, runtime string
		web                   bool
	}{
		{"judge.Dockerfile", "/judge", "gcr.io/distroless/static-debian12:nonroot", false},
		{"interview.Dockerfile", "interview", "alpine:", true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			stages := parseDockerfile(t, filepath.Join(root, "deploy", tc.file))
			if len(stages) < 2 {
				t.Fatalf("%d stages, want a multi-stage build", len(stages))
			}
			final := stages[len(stages)-1]
			if !strings.HasPrefix(final.from, tc.runtime) {
				t.Errorf("runtime image %q, want %s…", final.from, tc.runtime)
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
			for _, mod := range []string{"go.work", "shared/go.*", "judge/go.*", "interview/go.*", "deploy/go.*"} {
				if !slices.Contains(copied, mod) {
					t.Errorf("the build does not copy %s, which the go.work workspace needs", mod)
				}
			}

			if tc.web {
				web := stages[0]
				if web.from != "node:20-slim AS web" || len(web.has("RUN --mount=type=cache,target=/root/.npm npm ci")) != 1 || len(web.has("RUN npm run build")) != 1 {
					t.Errorf("web stage %q does not build the client with npm ci and npm run build", web.from)
				}
				if !slices.ContainsFunc(stages[1].lines, func(l string) bool {
					return strings.HasPrefix(l, "COPY --from=web ") && strings.HasSuffix(l, " interview/web/dist/")
				}) {
					t.Error("the Go build does not take the built web client from the web stage")
				}
			}
		})
	}
}
