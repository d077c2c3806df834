package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/judgeworks/shared/server"
)

// TestStalledBodyIsCut sends a sign-in whose body stops halfway. The
// built service answers 408 in the pinned error shape, or closes the
// connection, once its read timeout has passed, and not long after.
func TestStalledBodyIsCut(t *testing.T) {
	s := newService(t)
	s.start()
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST /api/auth/login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\":", s.addr)
	timeout := server.DefaultTimeouts.Read
	const slack = 20 * time.Second
	_ = conn.SetReadDeadline(start.Add(timeout + slack))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	elapsed := time.Since(start)
	switch {
	case err == nil:
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestTimeout {
			t.Fatalf("stalled body: status %d %s", resp.StatusCode, body)
		}
		t.Logf("408 after %v: %s", elapsed.Round(time.Millisecond), body)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		t.Logf("connection closed after %v", elapsed.Round(time.Millisecond))
	default:
		t.Fatalf("no answer and no close within %v: %v", timeout+slack, err)
	}
	if elapsed < timeout-time.Second {
		t.Fatalf("cut after %v, before the %v read timeout", elapsed, timeout)
	}
}
