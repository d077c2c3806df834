package pgtest

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestServerRestartKeepsPortAndData stops a server and starts it again: the
// URL must stay the same, the data must survive, and while it is stopped
// nothing may answer.
func TestServerRestartKeepsPortAndData(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := StartServer(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := s.URL()
	if err := Exec(ctx, before, "CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	down, downCancel := context.WithTimeout(ctx, 2*time.Second)
	err = Exec(down, before, "SELECT 1")
	downCancel()
	if err == nil {
		t.Fatal("the stopped server still answers")
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if s.URL() != before {
		t.Fatalf("URL after restart %s, want %s", s.URL(), before)
	}
	if err := s.Start(ctx); err == nil {
		t.Error("Start of a running server succeeded")
	}
	conn, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var x int
	if err := conn.QueryRow(ctx, "SELECT x FROM kept").Scan(&x); err != nil || x != 42 {
		t.Fatalf("data after restart: x=%d err=%v", x, err)
	}
	if !strings.Contains(s.Output(), "shutting down") {
		t.Errorf("the log does not show the first run's shutdown:\n%s", s.Output())
	}
}

func TestServerPassword(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const password = "s3cret-pg"
	s, err := StartServer(ctx, Options{Password: password, Settings: []string{"shared_buffers=16MB"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := u.User.Password(); got != password {
		t.Fatalf("URL %s does not carry the password", s.URL())
	}
	var buffers string
	conn, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "SHOW shared_buffers").Scan(&buffers); err != nil || buffers != "16MB" {
		t.Errorf("shared_buffers %q (err %v), want the setting passed in Options", buffers, err)
	}
	for name, user := range map[string]*url.Userinfo{
		"wrong password": url.UserPassword("postgres", "wrong"),
		"no password":    url.User("postgres"),
	} {
		bad := *u
		bad.User = user
		if err := Exec(ctx, bad.String(), "SELECT 1"); err == nil || !strings.Contains(err.Error(), "28P01") {
			t.Errorf("%s: %v, want password authentication failure (28P01)", name, err)
		}
	}
}
