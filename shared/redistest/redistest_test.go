package redistest

import (
	"bufio"
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// do sends one inline command and returns its reply: a status or error
// line as sent, a bulk string's value ("$-1" for nil), an array's elements
// joined by spaces.
func do(t *testing.T, addr, cmd string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte(cmd + "\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	line := func() string {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(l, "\r\n")
	}
	var reply func() string
	reply = func() string {
		l := line()
		switch {
		case l == "$-1":
			return l
		case strings.HasPrefix(l, "$"):
			return line()
		case strings.HasPrefix(l, "*"):
			n, _ := strconv.Atoi(l[1:])
			parts := make([]string, n)
			for i := range parts {
				parts[i] = reply()
			}
			return strings.Join(parts, " ")
		}
		return l
	}
	return reply()
}

// TestRestartKeepsPortNotData stops a server and starts it again: the URL
// stays, nothing answers in between, and the data is gone because nothing
// is persisted.
func TestRestartKeepsPortNotData(t *testing.T) {
	s := New(t)
	if !strings.HasPrefix(s.URL(), "redis://127.0.0.1:") {
		t.Fatalf("URL %s is not a loopback redis URL", s.URL())
	}
	if got := do(t, s.Addr(), "SET kept 42"); got != "+OK" {
		t.Fatalf("SET answered %q", got)
	}
	if got := do(t, s.Addr(), "GET kept"); got != "42" {
		t.Fatalf("GET answered %q", got)
	}
	for setting, want := range map[string]string{"save": "save ", "appendonly": "appendonly no", "bind": "bind 127.0.0.1"} {
		if got := do(t, s.Addr(), "CONFIG GET "+setting); got != want {
			t.Errorf("CONFIG GET %s answered %q, want %q", setting, got, want)
		}
	}
	before := s.URL()
	s.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	err := Ping(ctx, s.Addr())
	cancel()
	if err == nil {
		t.Fatal("the stopped server still answers PING")
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err == nil {
		t.Error("Start of a running server succeeded")
	}
	if s.URL() != before {
		t.Fatalf("URL after restart %s, want %s", s.URL(), before)
	}
	if got := do(t, s.Addr(), "GET kept"); got != "$-1" {
		t.Errorf("GET after restart answered %q, want nil: nothing may be persisted", got)
	}
}

func TestTwoServersDoNotShare(t *testing.T) {
	a, b := New(t), New(t)
	if a.Addr() == b.Addr() {
		t.Fatalf("both servers on %s", a.Addr())
	}
	do(t, a.Addr(), "SET only-a 1")
	if got := do(t, b.Addr(), "GET only-a"); got != "$-1" {
		t.Errorf("server b sees server a's key: %q", got)
	}
}
