// Package pgtest gives each test its own freshly created Postgres database.
//
// With TEST_DATABASE_URL set, databases are created on that server. Otherwise
// the first test that asks for a database starts a throwaway Postgres for the
// whole test binary: initdb into a temporary directory, listen on a free
// loopback port, and run as an unprivileged user when the tests run as root,
// because Postgres refuses to run as root. Main stops it when the tests end.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable holding the server URL. Main sets it once the
// server runs, so child processes started by tests can reach it too.
const EnvURL = "TEST_DATABASE_URL"

// ServiceUser runs the local server when the tests run as root.
const ServiceUser = "postgres"

var (
	mainCalled bool
	startOnce  sync.Once
	server     *local
	serverURL  string
	startErr   error
)

// Main runs the package's tests and stops the local server, if one was
// started. Use it from TestMain: func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }.
func Main(m *testing.M) int {
	mainCalled = true
	code := m.Run()
	if server != nil {
		if err := server.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest: stop:", err)
		}
	}
	return code
}

// URL returns the URL of the server, starting the local one on first use.
func URL(t testing.TB) string {
	t.Helper()
	if !mainCalled {
		t.Fatal("pgtest: call pgtest.Main from TestMain so the server is stopped")
	}
	startOnce.Do(func() {
		if u := os.Getenv(EnvURL); u != "" {
			serverURL = u
			return
		}
		server, startErr = start()
		if startErr == nil {
			serverURL = server.url
			startErr = os.Setenv(EnvURL, serverURL)
		}
	})
	if startErr != nil {
		t.Fatalf("pgtest: %v", startErr)
	}
	return serverURL
}

// NewDatabase creates an empty database for t, drops it when t ends, and
// returns its URL.
func NewDatabase(t testing.TB) string {
	t.Helper()
	admin := URL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dbURL, drop, err := CreateDatabase(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := drop(ctx); err != nil {
			t.Logf("pgtest: %v", err)
		}
	})
	return dbURL
}

// CreateDatabase creates an empty database on the server at adminURL and
// returns its URL and a function that drops it.
func CreateDatabase(ctx context.Context, adminURL string) (string, func(context.Context) error, error) {
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", nil, fmt.Errorf("%s is not a URL: %w", adminURL, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "test_" + hex.EncodeToString(b[:])
	if err := exec1(ctx, adminURL, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	drop := func(ctx context.Context) error {
		if err := exec1(ctx, adminURL, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop database %s: %w", name, err)
		}
		return nil
	}
	u.Path = "/" + name
	return u.String(), drop, nil
}

// Start runs a throwaway local server for a program such as a load
// generator, and returns its URL and a function that stops it and removes
// its files. Tests use NewDatabase instead.
func Start() (string, func() error, error) {
	l, err := start()
	if err != nil {
		return "", nil, err
	}
	return l.url, l.stop, nil
}

func exec1(ctx context.Context, connURL, sql string) error {
	conn, err := pgx.Connect(ctx, connURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

type local struct {
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
	url    string
}

// start runs initdb and postgres in a fresh temporary directory. The port is
// picked free just before postgres binds it, so a lost race is retried.
func start() (*local, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	cred, uid, gid, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
		"--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	var lastErr error
	for range 3 {
		l, err := run(bin, dir, data, cred)
		if err == nil {
			return l, nil
		}
		lastErr = err
	}
	os.RemoveAll(dir)
	return nil, lastErr
}

func run(bin, dir, data string, cred *syscall.Credential) (*local, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data,
		"-p", strconv.Itoa(port), "-k", dir, "-c", "listen_addresses=127.0.0.1",
		// Test data is disposable: trade durability for speed.
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "shared_buffers=32MB", "-c", "max_connections=300")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// SIGQUIT on the test binary's death: an orphaned server would hold the port.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	l := &local{dir: dir, cmd: cmd, exited: exited, url: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
			return nil, fmt.Errorf("postgres exited at start:\n%s", log)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := exec1(ctx, l.url, "SELECT 1")
		cancel()
		if err == nil {
			return l, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	return nil, errors.New("postgres did not accept connections within 30s")
}

// stop asks for a fast shutdown and removes the data directory.
func (l *local) stop() error {
	_ = l.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-l.exited:
	case <-time.After(15 * time.Second):
		_ = l.cmd.Process.Kill()
	}
	return os.RemoveAll(l.dir)
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
	return "", errors.New("no Postgres binaries found (install postgresql, set PG_BIN, or set " + EnvURL + ")")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// credential returns who the server runs as: the current user, or the
// unprivileged ServiceUser (created if missing) when running as root.
func credential() (*syscall.Credential, int, int, error) {
	if os.Geteuid() != 0 {
		return nil, 0, 0, nil
	}
	u, err := user.Lookup(ServiceUser)
	if err != nil {
		if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", ServiceUser).CombinedOutput(); err != nil {
			return nil, 0, 0, fmt.Errorf("useradd %s: %v: %s", ServiceUser, err, strings.TrimSpace(string(out)))
		}
		if u, err = user.Lookup(ServiceUser); err != nil {
			return nil, 0, 0, err
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, uid, gid, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
