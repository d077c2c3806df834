package server

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer counts the writes it gets.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes++
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// A line to a quiet writer is written at once; one that comes in the
// window it opens is written at the window's end, without a flush. The
// test allows far more than LogDelay for that, for a busy machine.
func TestLogWriterWritesPromptly(t *testing.T) {
	var out lockedBuffer
	w := NewLogWriter(&out)
	defer w.Close()
	if _, err := w.Write([]byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "one\n" {
		t.Fatalf("a line to a quiet writer waits: %q", out.String())
	}
	if _, err := w.Write([]byte("two\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for out.String() != "one\ntwo\n" {
		if time.Now().After(deadline) {
			t.Fatalf("second line not written after 10 s: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Once the windows end, the writer is quiet again: at once.
	for {
		w.mu.Lock()
		open := w.open
		w.mu.Unlock()
		if !open {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the window never closes")
		}
		time.Sleep(5 * time.Millisecond)
	}
	w.Write([]byte("three\n"))
	if out.String() != "one\ntwo\nthree\n" {
		t.Fatalf("a line to a quiet writer waits: %q", out.String())
	}
}

// Lines from many writers come out whole, each once, in one write per
// batch, all of them by Close; a full buffer is written at once.
func TestLogWriterKeepsLinesWhole(t *testing.T) {
	var out lockedBuffer
	w := NewLogWriter(&out)
	const writers, lines = 8, 2000
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(w, "writer %d line %d %s\n", g, i, strings.Repeat("x", 40))
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	seen := map[string]bool{}
	for _, l := range got {
		var g, i int
		var rest string
		if _, err := fmt.Sscanf(l, "writer %d line %d %s", &g, &i, &rest); err != nil || rest != strings.Repeat("x", 40) || seen[l] {
			t.Fatalf("line %q split, mixed or repeated", l)
		}
		seen[l] = true
	}
	// About 1 MiB through a 64 KiB buffer: batches, not a write per line.
	if out.writes >= writers*lines/10 {
		t.Fatalf("%d writes for %d lines", out.writes, writers*lines)
	}
	// Closed, it writes straight through.
	w.Write([]byte("after\n"))
	if !strings.HasSuffix(out.String(), "after\n") {
		t.Fatal("a write after Close waits")
	}
}

func TestLogWriterLongLine(t *testing.T) {
	var out lockedBuffer
	w := NewLogWriter(&out)
	w.Write([]byte("short\n"))
	long := strings.Repeat("y", logBuffer+1) + "\n"
	w.Write([]byte(long))
	// The waiting line goes first, then the long one, at once.
	if got := out.String(); got != "short\n"+long {
		t.Fatalf("got %d bytes, want the short line then the long one", len(got))
	}
	w.Close()
}
