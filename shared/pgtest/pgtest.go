// Package pgtest gives each test its own freshly created Postgres database.
//
// With TEST_DATABASE_URL set, databases are created on that server. Otherwise
// the first test that asks for a database starts a throwaway Postgres for the
// whole test binary: initdb into a temporary directory, listen on a free
// loopback port, and run as an unprivileged user when the tests run as root,
// because Postgres refuses to run as root. Main stops it when the tests end.
//
// StartServer gives a server of the caller's own, one that can be stopped
// and started again on the same port and may require a password.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"
)

// EnvURL names the variable holding the server URL. Main sets it once the
// server runs, so child processes started by tests can reach it too.
const EnvURL = "TEST_DATABASE_URL"

// ServiceUser runs the local server when the tests run as root.
const ServiceUser = "postgres"

// settings suit a server that several test binaries may run at once.
var settings = []string{"shared_buffers=32MB"}

var (
	mainCalled bool
	startOnce  sync.Once
	server     *Server
	serverURL  string
	startErr   error
)

// Main runs the package's tests and stops the local server, if one was
// started. Use it from TestMain: func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }.
func Main(m *testing.M) int {
	mainCalled = true
	code := m.Run()
	if server != nil {
		if err := server.Close(); err != nil {
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
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		server, startErr = StartServer(ctx, Options{Settings: settings})
		if startErr == nil {
			serverURL = server.URL()
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
	if err := Exec(ctx, adminURL, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	drop := func(ctx context.Context) error {
		if err := Exec(ctx, adminURL, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop database %s: %w", name, err)
		}
		return nil
	}
	u.Path = "/" + name
	return u.String(), drop, nil
}

// Start runs a throwaway local server for a program such as a load
// generator, and returns its URL and a function that stops it and removes
// its files. Tests use NewDatabase instead; a test that must stop and
// restart its server uses StartServer.
func Start() (string, func() error, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := StartServer(ctx, Options{Settings: settings})
	if err != nil {
		return "", nil, err
	}
	return s.URL(), s.Close, nil
}
