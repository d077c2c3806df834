package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// serveForTest runs Serve with t's timeouts on a loopback port. Its routes
// read the whole body: /read with the server's deadlines, /long with
// Deadlines(long, long). A body read cut by a deadline answers 408.
func serveForTest(t *testing.T, to Timeouts, long time.Duration) string {
	t.Helper()
	e := New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	read := func(c echo.Context) error {
		n, err := io.Copy(io.Discard, c.Request().Body)
		if ReadTimedOut(err) {
			return c.String(http.StatusRequestTimeout, "too slow")
		}
		if err != nil {
			return err
		}
		return c.String(http.StatusOK, fmt.Sprint(n))
	}
	e.POST("/read", read)
	e.POST("/long", read, Deadlines(long, long))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, e, slog.New(slog.NewTextHandler(io.Discard, nil)), to) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// outcome is what a stalled client sees: a status, or the connection
// closed without one.
type outcome struct {
	status int
	closed bool
	after  time.Duration
}

// stall sends head on a fresh connection, then sends rest after wait (if
// rest is not empty), and reports what came back within limit.
func stall(t *testing.T, addr, head string, wait time.Duration, rest string, limit time.Duration) outcome {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	if rest != "" {
		go func() {
			time.Sleep(wait)
			_, _ = io.WriteString(conn, rest)
		}()
	}
	_ = conn.SetReadDeadline(start.Add(limit))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("nothing within %v: the stalled request still holds the connection", limit)
		}
		return outcome{closed: true, after: time.Since(start)}
	}
	resp.Body.Close()
	return outcome{status: resp.StatusCode, after: time.Since(start)}
}

func TestStalledRequestsAreCut(t *testing.T) {
	to := Timeouts{ReadHeader: 500 * time.Millisecond, Read: time.Second, Write: 5 * time.Second, Idle: 5 * time.Second}
	addr := serveForTest(t, to, 10*time.Second)
	// Generous slack: the bound is what matters, not when within it.
	const slack = 10 * time.Second

	t.Run("body stalls", func(t *testing.T) {
		got := stall(t, addr, "POST /read HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nfirst bytes", 0, "", to.Read+slack)
		if !got.closed && got.status != http.StatusRequestTimeout {
			t.Fatalf("stalled body: status %d", got.status)
		}
		if got.after < to.Read/2 {
			t.Fatalf("cut after %v, before the read timeout", got.after)
		}
	})
	t.Run("headers stall", func(t *testing.T) {
		got := stall(t, addr, "POST /read HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n", 0, "", to.ReadHeader+slack)
		if !got.closed && got.status != http.StatusRequestTimeout {
			t.Fatalf("stalled headers: status %d", got.status)
		}
	})
	t.Run("a slow body is cut on an ordinary route", func(t *testing.T) {
		got := stall(t, addr, "POST /read HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\nabc", 3*time.Second, "def", to.Read+slack)
		if !got.closed && got.status != http.StatusRequestTimeout {
			t.Fatalf("status %d: the body was allowed past the read timeout", got.status)
		}
	})
	t.Run("the same body passes where Deadlines allows longer", func(t *testing.T) {
		got := stall(t, addr, "POST /long HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\nabc", 3*time.Second, "def", 10*time.Second+slack)
		if got.closed || got.status != http.StatusOK {
			t.Fatalf("extended route: status %d closed %v after %v", got.status, got.closed, got.after)
		}
	})
	t.Run("an idle connection is closed", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		fmt.Fprint(conn, "POST /read HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok")
		r := bufio.NewReader(conn)
		resp, err := http.ReadResponse(r, nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("first request: %v", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = conn.SetReadDeadline(start.Add(to.Idle + slack))
		if _, err := r.ReadByte(); !errors.Is(err, io.EOF) && !strings.Contains(fmt.Sprint(err), "reset") {
			t.Fatalf("kept-alive connection not closed after the idle timeout: %v", err)
		}
	})
}

func TestDefaultTimeoutsAreSet(t *testing.T) {
	d := DefaultTimeouts
	if d.ReadHeader <= 0 || d.Read < d.ReadHeader || d.Write <= 0 || d.Idle <= 0 {
		t.Fatalf("DefaultTimeouts %+v: every timeout must be set, the read timeout covering the headers'", d)
	}
}
