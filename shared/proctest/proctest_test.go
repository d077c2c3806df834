package proctest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(Main(m.Run)) }

const echoServer = "./testdata/echoserver"

// serve runs the echo server on a free port with extra environment.
func serve(t *testing.T, env ...string) (*Proc, string) {
	t.Helper()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	p, err := Start(Cmd{Name: "echo", Path: Build(t, echoServer), Env: append(BaseEnv(t.TempDir()), append([]string{"ADDR=" + addr}, env...)...)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill() })
	return p, "http://" + addr + "/healthz"
}

func TestBuildOncePerPackage(t *testing.T) {
	first := Build(t, echoServer)
	info, err := os.Stat(first)
	if err != nil || info.Mode()&0o111 == 0 {
		t.Fatalf("Build gave %s: %v %v", first, info, err)
	}
	if again := Build(t, echoServer); again != first {
		t.Errorf("second Build gave %s, want the first one's %s", again, first)
	}
	if _, err := build("./testdata/nosuchpackage"); err == nil || !strings.Contains(err.Error(), "go build") {
		t.Errorf("building a missing package: %v, want the go build error", err)
	}
}

func TestStartWaitStop(t *testing.T) {
	p, url := serve(t, "LINES=3")
	if err := WaitOK(context.Background(), url, p); err != nil {
		t.Fatal(err)
	}
	if out := p.Output(); !strings.Contains(out, "line 1\nline 2\nline 3\n") {
		t.Errorf("output %q, want the three lines", out)
	}
	if err := p.Stop(syscall.SIGTERM, time.Minute); err != nil {
		t.Errorf("graceful stop: %v", err)
	}
	if !strings.HasSuffix(p.Output(), "stopping\n") {
		t.Errorf("output %q does not end with the shutdown line", p.Output())
	}
	// Stopping an exited process is a no-op with the same result.
	if err := p.Stop(syscall.SIGTERM, time.Minute); err != nil {
		t.Errorf("second stop: %v", err)
	}
}

func TestKillAndRestartKeepOutput(t *testing.T) {
	p, url := serve(t, "LINES=1")
	if err := WaitOK(context.Background(), url, p); err != nil {
		t.Fatal(err)
	}
	if err := p.Restart(); err == nil {
		t.Error("Restart of a running process succeeded")
	}
	pid := p.Pid()
	p.Kill()
	select {
	case <-p.Done():
	default:
		t.Fatal("Done not closed after Kill")
	}
	if err := p.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := WaitOK(context.Background(), url, p); err != nil {
		t.Fatal(err)
	}
	if p.Pid() == pid {
		t.Error("same pid after restart")
	}
	if n := strings.Count(p.Output(), "line 1\n"); n != 2 {
		t.Errorf("output %q: want both runs' line", p.Output())
	}
}

func TestStopKillsAProcessThatIgnoresTheSignal(t *testing.T) {
	p, url := serve(t, "IGNORE_TERM=1")
	if err := WaitOK(context.Background(), url, p); err != nil {
		t.Fatal(err)
	}
	err := p.Stop(syscall.SIGTERM, 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Stop of a process ignoring SIGTERM: %v, want an error saying it was killed", err)
	}
	select {
	case <-p.Done():
	default:
		t.Error("still running after Stop")
	}
}

// A process that exits while starting fails WaitOK at once with the end of
// its output, not after the minute WaitOK would otherwise wait.
func TestWaitOKFailsWhenTheProcessExits(t *testing.T) {
	p, url := serve(t, "FAIL=1", fmt.Sprintf("LINES=%d", TailLines+50))
	err := WaitOK(context.Background(), url, p)
	if err == nil {
		t.Fatal("WaitOK succeeded for a process that exits")
	}
	msg := err.Error()
	if !strings.Contains(msg, "echo exited while starting (exit status 3)") || !strings.Contains(msg, "failing as asked") {
		t.Errorf("error %q, want the exit and the last output line", msg)
	}
	// 250 lines and the error line: the first 51 are left out.
	if strings.Contains(msg, "line 51\n") || !strings.Contains(msg, "\nline 52\n") || !strings.Contains(msg, "[51 earlier lines left out]") {
		t.Errorf("error holds the wrong part of the output:\n%s", msg)
	}
}

func TestTail(t *testing.T) {
	lines := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "%d\n", i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"short", "a\nb\n", "a\nb\n"},
		{"exactly the tail", lines(1, TailLines), lines(1, TailLines)},
		{"one more", lines(0, TailLines), "[1 earlier lines left out]\n" + lines(1, TailLines)},
		{"long", lines(1, 5000), "[4800 earlier lines left out]\n" + lines(4801, 5000)},
		{"no final newline", lines(1, 300) + "last", "[101 earlier lines left out]\n" + lines(102, 300) + "last"},
	} {
		if got := Tail(tc.in); got != tc.want {
			t.Errorf("%s: Tail gave %d lines starting %.40q, want %d starting %.40q", tc.name,
				strings.Count(got, "\n"), got, strings.Count(tc.want, "\n"), tc.want)
		}
	}
}

// recorder is a testing.TB whose failure, logs and clean-ups Cleanup's
// test can see.
type recorder struct {
	testing.TB
	failed   bool
	logs     []string
	cleanups []func()
}

func (r *recorder) Helper()                    {}
func (r *recorder) Failed() bool               { return r.failed }
func (r *recorder) Cleanup(f func())           { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Logf(f string, args ...any) { r.logs = append(r.logs, fmt.Sprintf(f, args...)) }

func TestCleanupLogsOnlyTheTailOnFailure(t *testing.T) {
	for _, failed := range []bool{false, true} {
		p, url := serve(t, fmt.Sprintf("LINES=%d", 3*TailLines))
		if err := WaitOK(context.Background(), url, p); err != nil {
			t.Fatal(err)
		}
		r := &recorder{TB: t, failed: failed}
		Cleanup(r, p)
		if len(r.cleanups) != 1 {
			t.Fatalf("%d clean-ups registered, want 1", len(r.cleanups))
		}
		r.cleanups[0]()
		select {
		case <-p.Done():
		default:
			t.Errorf("failed=%v: still running after the clean-up", failed)
		}
		if !failed {
			if len(r.logs) != 0 {
				t.Errorf("a passing test logged %q", r.logs)
			}
			continue
		}
		if len(r.logs) != 1 {
			t.Fatalf("logged %d messages, want 1", len(r.logs))
		}
		log := r.logs[0]
		// The tail ends with the shutdown line, so the last output line
		// before it is line 600 and the first shown is line 402.
		if !strings.Contains(log, "echo output") || !strings.Contains(log, "\nline 402\n") || strings.Contains(log, "\nline 401\n") ||
			!strings.HasSuffix(log, "line 600\nstopping\n") {
			t.Errorf("logged %d lines, want the last %d of the output:\n%.300s", strings.Count(log, "\n"), TailLines, log)
		}
	}
}
