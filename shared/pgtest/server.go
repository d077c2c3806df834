package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/judgeworks/shared/internal/daemon"
)

// Options say how StartServer sets up a server.
type Options struct {
	// Password, when set, is the superuser's password and turns on
	// scram-sha-256 authentication; empty means trust authentication.
	Password string
	// Settings are extra server settings, each "name=value", passed as -c.
	Settings []string
}

// Server is a throwaway Postgres in a temporary directory, listening on a
// loopback port. It can be stopped and started again on the same port with
// its data kept, as fault tests need.
type Server struct {
	dir, data string
	bin       string
	cred      *syscall.Credential
	port      int
	password  string
	settings  []string
	proc      daemon.Process
}

// StartServer runs initdb in a new temporary directory and starts the server
// on a free loopback port. When running as root the server runs as the
// unprivileged ServiceUser (created if missing), because Postgres refuses
// to run as root. The port is picked free just before postgres binds it, so
// a lost race is retried with another one.
func StartServer(ctx context.Context, opts Options) (*Server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	// Under the system temporary directory: the server's user must be able
	// to reach it, which a caller's private directory may not allow.
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, data: filepath.Join(dir, "data"), bin: bin, cred: cred,
		password: opts.Password, settings: opts.Settings, proc: daemon.Process{
			Name: "postgres", Log: filepath.Join(dir, "postgres.log"),
			Ready: 30 * time.Second, Poll: 50 * time.Millisecond, Awaited: "accept connections",
			// A fast shutdown: open sessions are cut.
			Signal: syscall.SIGINT, Grace: 15 * time.Second,
		}}
	if err := s.initdb(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := daemon.OnFreePort(func(port int) error { s.port = port; return s.Start(ctx) }); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func (s *Server) initdb(ctx context.Context) error {
	if s.cred != nil {
		if err := os.Chown(s.dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return err
		}
	}
	args := []string{"-D", s.data, "-U", "postgres", "--no-sync", "--encoding=UTF8", "--locale=C"}
	if s.password == "" {
		args = append(args, "--auth=trust")
	} else {
		pwfile := filepath.Join(s.dir, "pw")
		if err := os.WriteFile(pwfile, []byte(s.password+"\n"), 0o600); err != nil {
			return err
		}
		if s.cred != nil {
			if err := os.Chown(pwfile, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
				return err
			}
		}
		args = append(args, "--auth=scram-sha-256", "--pwfile="+pwfile)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, "initdb"), args...)
	cmd.Env = s.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	return nil
}

// env is a minimal environment: nothing of the caller's shell (database
// URLs, secrets) reaches the server.
func (s *Server) env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.dir, "TMPDIR=" + os.TempDir()}
}

// URL reaches the database "postgres" as the superuser, password included.
func (s *Server) URL() string {
	u := url.URL{Scheme: "postgres", Host: fmt.Sprintf("127.0.0.1:%d", s.port), Path: "/postgres", RawQuery: "sslmode=disable"}
	u.User = url.User("postgres")
	if s.password != "" {
		u.User = url.UserPassword("postgres", s.password)
	}
	return u.String()
}

// Port is the loopback port the server listens on, the same across restarts.
func (s *Server) Port() int { return s.port }

// Output is everything the server logged, every run, until Close.
func (s *Server) Output() string { return s.proc.Output() }

// Start starts the server (again, after Stop) on its port and waits until
// it accepts connections.
func (s *Server) Start(ctx context.Context) error {
	args := []string{"-D", s.data, "-p", strconv.Itoa(s.port), "-k", s.dir, "-c", "listen_addresses=127.0.0.1",
		// Test data is disposable: trade durability for speed.
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300"}
	for _, kv := range s.settings {
		args = append(args, "-c", kv)
	}
	cmd := exec.Command(filepath.Join(s.bin, "postgres"), args...)
	cmd.Env = s.env()
	// SIGQUIT on the parent's death: an orphaned server would hold the port.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGQUIT}
	return s.proc.Start(ctx, cmd, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		return Exec(ctx, s.URL(), "SELECT 1")
	})
}

// Stop asks for a fast shutdown (open sessions are cut), waits up to 15 s
// before killing the server, and keeps the data for Start.
func (s *Server) Stop() { s.proc.Stop() }

// Close stops the server and removes its files.
func (s *Server) Close() error {
	s.Stop()
	return os.RemoveAll(s.dir)
}

// Exec runs one statement on a new connection to connURL.
func Exec(ctx context.Context, connURL, sql string) error {
	conn, err := pgx.Connect(ctx, connURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

// findBin returns the newest Postgres bin directory: PG_BIN, then Debian's
// versioned directories, then the PATH.
func findBin() (string, error) {
	if b := os.Getenv("PG_BIN"); b != "" {
		return b, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no Postgres binaries found (run make deps, set PG_BIN, or set " + EnvURL + ")")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// credential is nil unless running as root; then it is the unprivileged
// ServiceUser, created if missing.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(ServiceUser)
	if err != nil {
		if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", ServiceUser).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("useradd %s: %v: %s", ServiceUser, err, strings.TrimSpace(string(out)))
		}
		if u, err = user.Lookup(ServiceUser); err != nil {
			return nil, err
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}
