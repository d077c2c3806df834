// Package proctest runs this repository's programs black-box in tests.
//
// Build compiles a main package from source once per test process, so no
// suite can test a stale binary. Start runs it with exactly the environment
// given and keeps everything it writes; WaitOK waits until it answers 200 on
// a URL, failing as soon as it exits; Cleanup stops it when the test ends
// and, if the test failed, logs the last TailLines lines of its output
// rather than the whole stream (a load test can write 100,000 lines).
//
// It is meant for tests and for the load programs that assemble a stack
// from the same parts (deploy/harness); production code never imports it.
package proctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TailLines is how many of a process's last output lines a failed test
// shows.
const TailLines = 200

// Cmd says what to run.
type Cmd struct {
	// Name labels the process in errors and logs ("judge", "caddy").
	Name string
	// Path is the binary: one from Build, or one found with exec.LookPath.
	Path string
	Args []string
	// Dir is the working directory; empty means the test's own.
	Dir string
	// Env is the whole environment: nothing of the caller's is added (see
	// BaseEnv).
	Env []string
}

// Proc is a started process. It can be killed and started again; its
// output, across runs, is kept in memory.
type Proc struct {
	Cmd
	out *Buffer

	mu  sync.Mutex
	cur *run
}

// run is one start of a Proc. err is written before done is closed.
type run struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Start starts c.
func Start(c Cmd) (*Proc, error) {
	p := &Proc{Cmd: c, out: &Buffer{}}
	return p, p.Restart()
}

// Restart starts the process again after it exited or was killed, with the
// same command, environment and output.
func (p *Proc) Restart() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur != nil {
		select {
		case <-p.cur.done:
		default:
			return fmt.Errorf("%s is still running", p.Name)
		}
	}
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Dir, cmd.Env = p.Dir, p.Env
	cmd.Stdout, cmd.Stderr = p.out, p.out
	// A test binary that dies must not leave servers holding ports.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	r := &run{cmd: cmd, done: make(chan struct{})}
	go func() { r.err = cmd.Wait(); close(r.done) }()
	p.cur = r
	return nil
}

func (p *Proc) current() *run {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cur
}

// Done is closed when the current run has exited.
func (p *Proc) Done() <-chan struct{} { return p.current().done }

// Pid is the process id of the current run.
func (p *Proc) Pid() int { return p.current().cmd.Process.Pid }

// Kill sends SIGKILL and waits for the exit: no shutdown code runs.
func (p *Proc) Kill() {
	r := p.current()
	_ = r.cmd.Process.Kill()
	<-r.done
}

// Stop sends sig and waits up to timeout for the exit, then kills the
// process. It returns the exit error of the run, or an error saying it had
// to be killed. A process that has already exited is left alone.
func (p *Proc) Stop(sig syscall.Signal, timeout time.Duration) error {
	r := p.current()
	select {
	case <-r.done:
		return r.err
	default:
	}
	_ = r.cmd.Process.Signal(sig)
	select {
	case <-r.done:
		return r.err
	case <-time.After(timeout):
		_ = r.cmd.Process.Kill()
		<-r.done
		return fmt.Errorf("%s did not exit within %v of %v and was killed", p.Name, timeout, sig)
	}
}

// Output is everything the process wrote to stdout and stderr, every run.
func (p *Proc) Output() string { return p.out.String() }

// Tail returns the last TailLines lines of out, saying how many came
// before them.
func Tail(out string) string {
	n, i := 0, len(out)
	if strings.HasSuffix(out, "\n") {
		i--
	}
	for ; i > 0; i-- {
		if out[i-1] == '\n' {
			if n++; n == TailLines {
				break
			}
		}
	}
	if i == 0 {
		return out
	}
	return fmt.Sprintf("[%d earlier lines left out]\n%s", strings.Count(out[:i], "\n"), out[i:])
}

// Cleanup stops procs when t ends, in the order given (SIGTERM, then
// SIGKILL after 15 s), and logs the tail of each one's output if t failed.
func Cleanup(t testing.TB, procs ...*Proc) {
	t.Helper()
	t.Cleanup(func() {
		for _, p := range procs {
			_ = p.Stop(syscall.SIGTERM, 15*time.Second)
		}
		if t.Failed() {
			for _, p := range procs {
				t.Logf("--- %s output (last %d lines):\n%s", p.Name, TailLines, Tail(p.Output()))
			}
		}
	})
}

// Run starts c for t, waits until readyURL answers 200 (unless it is
// empty), and stops the process when t ends (see Cleanup).
func Run(t testing.TB, c Cmd, readyURL string) *Proc {
	t.Helper()
	p, err := Start(c)
	if err != nil {
		t.Fatal(err)
	}
	Cleanup(t, p)
	if readyURL != "" {
		if err := WaitOK(context.Background(), readyURL, p); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// WaitOK polls url until it answers 200, for at most a minute, failing as
// soon as one of procs exits.
func WaitOK(ctx context.Context, url string, procs ...*Proc) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c := &http.Client{Timeout: 2 * time.Second}
	last := "no answer"
	for {
		for _, p := range procs {
			r := p.current()
			select {
			case <-r.done:
				return fmt.Errorf("%s exited while starting (%v); last lines of its output:\n%s", p.Name, r.err, Tail(p.Output()))
			default:
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := c.Do(req); err != nil {
			last = err.Error()
		} else {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer 200 in time (last: %s)", url, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// WaitFor calls cond until it holds, failing t with what if it still does
// not after timeout. It polls often at first and backs off to every 100 ms,
// so a condition that needs a request per call does not flood the server.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v still waiting for %s", timeout, what)
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// BaseEnv is a minimal environment with home as HOME and the XDG
// directories under it: nothing leaks in from the caller's shell (model
// keys, database URLs), so each run says exactly what it configures.
func BaseEnv(home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"TMPDIR=" + os.TempDir(),
	}
}

// Buffer is an output buffer safe for concurrent writes and reads: a log
// destination a test can read while the server's goroutines write to it.
// The zero value is ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// builds are the binaries of this process, one per package, in one
// temporary directory that Main removes.
var builds struct {
	mu   sync.Mutex
	main bool
	dir  string
	bins map[string]*binary
}

type binary struct {
	once sync.Once
	out  string // where go build writes it
	path string // out, once built
	err  error
}

// Main runs run (a test binary's m.Run, or a function calling pgtest.Main)
// and then removes the binaries Build made. Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(proctest.Main(m.Run)) }
func Main(run func() int) int {
	builds.mu.Lock()
	builds.main = true
	builds.mu.Unlock()
	code := run()
	builds.mu.Lock()
	dir := builds.dir
	builds.mu.Unlock()
	if dir != "" {
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintln(os.Stderr, "proctest:", err)
		}
	}
	return code
}

// Build compiles the main package pkg (an import path of the workspace,
// or a directory such as ".") with `go build`, once per test process, and
// returns the binary's path. Tests calling it at once share one build.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	path, err := build(pkg)
	if err != nil {
		t.Fatalf("proctest: %v", err)
	}
	return path
}

func build(pkg string) (string, error) {
	key := pkg
	if strings.HasPrefix(pkg, ".") {
		abs, err := filepath.Abs(pkg)
		if err != nil {
			return "", err
		}
		key = abs
	}
	builds.mu.Lock()
	if !builds.main {
		builds.mu.Unlock()
		return "", errors.New("call proctest.Main from TestMain, so the binaries are removed")
	}
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "proctest-")
		if err != nil {
			builds.mu.Unlock()
			return "", err
		}
		builds.dir, builds.bins = dir, map[string]*binary{}
	}
	b := builds.bins[key]
	if b == nil {
		// A directory per package: two may share a last path element
		// (cmd/judge, tools/judge).
		b = &binary{out: filepath.Join(builds.dir, fmt.Sprint(len(builds.bins)), filepath.Base(key))}
		builds.bins[key] = b
	}
	builds.mu.Unlock()

	b.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if msg, err := exec.CommandContext(ctx, "go", "build", "-o", b.out, key).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
			return
		}
		b.path = b.out
	})
	return b.path, b.err
}
