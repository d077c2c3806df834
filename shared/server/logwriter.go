package server

import (
	"io"
	"sync"
	"time"
)

// LogDelay is the longest a log line waits in a LogWriter before it is
// written: short enough that a person or a test watching the log sees
// lines as they happen, long enough that a busy server writes many lines
// per write.
const LogDelay = 50 * time.Millisecond

// logBuffer bounds the bytes a LogWriter holds: a full buffer is written
// at once.
const logBuffer = 64 << 10

// LogWriter gathers log lines and writes them in batches. A line that
// comes while the writer is quiet is written at once, and opens a window
// of LogDelay: lines that come within it wait for its end and are written
// together, and the window stays open while lines keep coming. A full
// buffer (64 KiB) is written at once, and so is what waits on Flush and
// Close. So a lone line is never held back, and a busy server writes
// about one batch per LogDelay: one write (a system call, for standard
// error) per line was a tenth of the judge's own work per request. A line
// is never split: each Write is kept whole. What is waiting is lost if the
// process dies without Close (a crash), at most LogDelay's worth of lines.
type LogWriter struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	timer  *time.Timer
	open   bool // a window is open: lines wait in buf for the timer
	closed bool // writes go straight to w
	err    error
}

// NewLogWriter returns a LogWriter writing to w; Close it before exiting.
func NewLogWriter(w io.Writer) *LogWriter {
	l := &LogWriter{w: w, buf: make([]byte, 0, logBuffer)}
	l.timer = time.AfterFunc(time.Hour, l.tick)
	l.timer.Stop()
	return l
}

// Write writes p now if the writer is quiet, else keeps it for the end of
// the window. It reports the error of the last write that failed, if any,
// so a logger learns its output is gone.
func (l *LogWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return l.w.Write(p)
	}
	if !l.open {
		l.open = true
		l.timer.Reset(LogDelay)
		_, err := l.w.Write(p)
		return len(p), err
	}
	if len(l.buf)+len(p) > cap(l.buf) {
		l.flushLocked()
		if len(p) > cap(l.buf) {
			_, err := l.w.Write(p)
			return len(p), err
		}
	}
	l.buf = append(l.buf, p...)
	err := l.err
	l.err = nil
	return len(p), err
}

// tick ends a window: what waits is written, and if anything did, the
// next window opens at once, the writer being busy.
func (l *LogWriter) tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.open || l.closed {
		return
	}
	if len(l.buf) == 0 {
		l.open = false
		return
	}
	l.flushLocked()
	l.timer.Reset(LogDelay)
}

// Flush writes what is waiting now.
func (l *LogWriter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked()
	err := l.err
	l.err = nil
	return err
}

func (l *LogWriter) flushLocked() {
	if len(l.buf) == 0 {
		return
	}
	if _, err := l.w.Write(l.buf); err != nil {
		l.err = err
	}
	l.buf = l.buf[:0]
}

// Close writes what is waiting; later writes go straight through.
func (l *LogWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked()
	l.timer.Stop()
	l.closed = true
	err := l.err
	l.err = nil
	return err
}
