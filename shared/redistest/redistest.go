// Package redistest runs a throwaway redis-server for tests: on a free
// loopback port, without persistence, stopped when the test ends. A server
// can be stopped and started again on the same port, as fallback tests need.
package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/judgeworks/shared/internal/daemon"
)

// EnvBinary names the variable that may point at the server binary
// (redis-server or valkey-server); unset, the PATH and /usr/bin are searched.
const EnvBinary = "REDIS_SERVER"

// Server is one redis-server process (or the next one after a restart) on a
// fixed loopback port.
type Server struct {
	bin, dir string
	port     int
	proc     daemon.Process
}

// New starts a server for t and stops it and removes its files when t ends.
func New(t testing.TB) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := StartServer(ctx)
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("redis-server output:\n%s", s.Output())
		}
		if err := s.Close(); err != nil {
			t.Errorf("redistest: %v", err)
		}
	})
	return s
}

// StartServer starts a server in a new temporary directory on a free
// loopback port. The port is picked free just before the server binds it,
// so a lost race is retried with another one.
func StartServer(ctx context.Context) (*Server, error) {
	bin, err := findBinary()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "redistest-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir, proc: daemon.Process{
		Name: "redis-server", Log: filepath.Join(dir, "redis.log"),
		Ready: 15 * time.Second, Poll: 20 * time.Millisecond, Awaited: "answer PING",
		Signal: syscall.SIGTERM, Grace: 10 * time.Second,
	}}
	if err := daemon.OnFreePort(func(port int) error { s.port = port; return s.Start(ctx) }); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// URL is the server's address as REDIS_URL takes it, the same across restarts.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Addr is host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Output is everything the server printed, every run, until Close.
func (s *Server) Output() string { return s.proc.Output() }

// Start starts the server (again, after Stop) on its port and waits until
// it answers PING. A restarted server starts empty: nothing is persisted.
func (s *Server) Start(ctx context.Context) error {
	cmd := exec.Command(s.bin,
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		// Test data is disposable: no snapshots, no append-only file.
		"--save", "", "--appendonly", "no",
		"--daemonize", "no", "--logfile", "", "--databases", "1")
	cmd.Dir = s.dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	// An orphaned server would hold the port after the test binary died.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return s.proc.Start(ctx, cmd, func(ctx context.Context) error { return Ping(ctx, s.Addr()) })
}

// Stop shuts the server down (SIGTERM; killed after 10 s) and keeps its
// port for Start. Clients' connections are cut.
func (s *Server) Stop() { s.proc.Stop() }

// Close stops the server and removes its files.
func (s *Server) Close() error {
	s.Stop()
	return os.RemoveAll(s.dir)
}

// Ping sends PING to the server at addr and expects +PONG.
func Ping(ctx context.Context, addr string) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	deadline := time.Now().Add(time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = conn.SetDeadline(deadline)
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		// Loading or a misconfigured server: say what it answered.
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

func findBinary() (string, error) {
	if b := os.Getenv(EnvBinary); b != "" {
		return b, nil
	}
	for _, name := range []string{"redis-server", "valkey-server"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
		if p := filepath.Join("/usr/bin", name); fileExists(p) {
			return p, nil
		}
	}
	return "", errors.New("no redis-server or valkey-server found (run make deps, or set " + EnvBinary + ")")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
