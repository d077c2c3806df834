// Package harness starts what `make run` starts (a Postgres, the built judge
// and interview binaries, Caddy with deploy/Caddyfile) on free loopback
// ports, for the fault, load and security suites and the load program. Every
// process keeps its whole output, so callers can read the logs, and can be
// killed and started again on the same address.
package harness

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
	"sync"
	"syscall"
	"time"
)

// Proc is a started process. Its output, across restarts, is kept in memory.
type Proc struct {
	Name string
	dir  string
	env  []string
	bin  string
	args []string
	out  *Buffer

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Buffer is an output buffer safe for concurrent writes and reads.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// StartProc starts bin with args in dir with exactly env.
func StartProc(name, dir string, env []string, bin string, args ...string) (*Proc, error) {
	p := &Proc{Name: name, dir: dir, env: env, bin: bin, args: args, out: &Buffer{}}
	return p, p.Start()
}

// Start starts the process again after it exited (or was killed), with the
// same command, environment and output buffer.
func (p *Proc) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		select {
		case <-p.done:
		default:
			return fmt.Errorf("%s is still running", p.Name)
		}
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Dir, cmd.Env = p.dir, p.env
	cmd.Stdout, cmd.Stderr = p.out, p.out
	// A parent that dies must not leave servers holding ports.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	p.cmd, p.done = cmd, done
	return nil
}

// Done is closed when the current run of the process has exited.
func (p *Proc) Done() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// Pid is the id of the current run.
func (p *Proc) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.Process.Pid
}

// Kill sends SIGKILL and waits for the exit: no shutdown code runs.
func (p *Proc) Kill() {
	p.signal(syscall.SIGKILL, 0)
}

// Stop asks the process to stop with sig and waits up to timeout before
// killing it.
func (p *Proc) Stop(sig syscall.Signal, timeout time.Duration) {
	p.signal(sig, timeout)
}

func (p *Proc) signal(sig syscall.Signal, timeout time.Duration) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	_ = cmd.Process.Signal(sig)
	if timeout <= 0 {
		<-done
		return
	}
	select {
	case <-done:
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-done
	}
}

// Output is everything the process wrote to stdout and stderr, every run.
func (p *Proc) Output() string { return p.out.String() }

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// WaitOK polls url until it answers 200, failing early when one of procs
// exits.
func WaitOK(ctx context.Context, url string, procs ...*Proc) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	c := &http.Client{Timeout: 2 * time.Second}
	for {
		for _, p := range procs {
			select {
			case <-p.Done():
				return fmt.Errorf("%s exited during start-up:\n%s", p.Name, p.Output())
			default:
			}
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer 200 within 60s", url)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// BaseEnv is a minimal environment: nothing leaks in from the caller's
// shell (no LLM, voice or database settings), so each run says exactly what
// it configures.
func BaseEnv(home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"TMPDIR=" + os.TempDir(),
	}
}

// RepoRoot finds the checkout from the working directory: the nearest
// parent holding go.work.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.work above the working directory")
		}
		dir = parent
	}
}
