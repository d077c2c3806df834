package harness

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
)

// Postgres is a throwaway server of its own, unlike the shared one of
// pgtest: the fault suite stops and restarts it on the same port, and the
// secrets suite gives it a password (scram-sha-256) to look for in logs.
type Postgres struct {
	*Proc
	// URL reaches the database "stack" as the superuser, password included.
	URL  string
	dir  string
	port int
}

// StartPostgres runs initdb in a new temporary directory and starts the
// server on a free loopback port. When running as root the server runs as
// the unprivileged user "postgres" (Postgres refuses root), created if
// missing. An empty password means trust authentication.
func StartPostgres(ctx context.Context, password string) (*Postgres, error) {
	bin, err := pgBin()
	if err != nil {
		return nil, err
	}
	cred, err := pgCredential()
	if err != nil {
		return nil, err
	}
	// Under the system temporary directory: the server's user must be able
	// to reach it, which a caller's private directory may not allow.
	dir, err := os.MkdirTemp("", "stack-pg-")
	if err != nil {
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	args := []string{"-D", data, "-U", "postgres", "--no-sync", "--encoding=UTF8", "--locale=C", "--auth=trust"}
	if password != "" {
		pwfile := filepath.Join(dir, "pw")
		if err := os.WriteFile(pwfile, []byte(password+"\n"), 0o600); err != nil {
			return nil, err
		}
		if cred != nil {
			if err := os.Chown(pwfile, int(cred.Uid), int(cred.Gid)); err != nil {
				return nil, err
			}
		}
		args = append(args[:len(args)-1], "--auth=scram-sha-256", "--pwfile="+pwfile)
	}
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), args...)
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	p := &Proc{Name: "postgres", dir: dir, env: BaseEnv(dir), bin: filepath.Join(bin, "postgres"), cred: cred, out: &Buffer{},
		args: []string{"-D", data, "-p", strconv.Itoa(port), "-k", dir, "-c", "listen_addresses=127.0.0.1",
			// Disposable data: trade durability for speed.
			"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
			"-c", "max_connections=300"}}
	u := url.URL{Scheme: "postgres", Host: fmt.Sprintf("127.0.0.1:%d", port), Path: "/postgres", RawQuery: "sslmode=disable"}
	u.User = url.User("postgres")
	if password != "" {
		u.User = url.UserPassword("postgres", password)
	}
	pg := &Postgres{Proc: p, dir: dir, port: port}
	if err := pg.Start(ctx); err != nil {
		return nil, err
	}
	if err := exec1(ctx, u.String(), "CREATE DATABASE stack"); err != nil {
		pg.Close()
		return nil, err
	}
	u.Path = "/stack"
	pg.URL = u.String()
	return pg, nil
}

// Start starts the server (again) and waits until it accepts connections.
func (pg *Postgres) Start(ctx context.Context) error {
	if err := pg.Proc.Start(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		select {
		case <-pg.Done():
			return fmt.Errorf("postgres exited at start:\n%s", pg.Output())
		default:
		}
		// A wrong password is still an answer: the server is up.
		err := exec1(ctx, fmt.Sprintf("postgres://probe@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=1", pg.port), "SELECT 1")
		if err == nil || strings.Contains(err.Error(), "SQLSTATE") {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New("postgres did not accept connections within 30s")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Close stops the server (fast shutdown) and removes its files.
func (pg *Postgres) Close() {
	pg.Stop(syscall.SIGINT, 15*time.Second)
	_ = os.RemoveAll(pg.dir)
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

// pgBin is the newest Postgres bin directory: PG_BIN, then Debian's
// versioned directories, then the PATH.
func pgBin() (string, error) {
	if b := os.Getenv("PG_BIN"); b != "" {
		return b, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	major := func(d string) int { n, _ := strconv.Atoi(filepath.Base(filepath.Dir(d))); return n }
	sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no Postgres binaries found: run make deps or set PG_BIN")
}

// pgCredential is nil unless running as root; then it is the postgres user.
func pgCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "postgres").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("useradd postgres: %v: %s", err, strings.TrimSpace(string(out)))
		}
		if u, err = user.Lookup("postgres"); err != nil {
			return nil, err
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}
