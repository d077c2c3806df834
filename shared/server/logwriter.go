package server

import (
	"io"
	"sync"
	"time"
)

// LogDelay is how long a log line may wait in a LogWriter before it is
// written: short enough that a person or a test watching the log sees
// lines as they happen, long enough that a busy server writes many lines
// per write.
const LogDelay = 50 * time.Millisecond

// logBuffer bounds the bytes a LogWriter holds: a full buffer is written
// at once.
const logBuffer = 64 << 10

// LogWriter gathers log lines and writes them in batches: at most
// LogDelay after the first line of a batch, at once when 64 KiB are
// waiting, and on Flush and Close. A server logs a line per request; one
// write (a system call, for standard error) per line was a tenth of the
// judge's own work per request. A line is never split: each Write is
// kept whole. What is waiting is lost if the process dies without Close
// (a crash), at most LogDelay's worth of lines.
type LogWriter struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	timer  *time.Timer
	armed  bool // the timer will flush buf
	closed bool // writes go straight to w
	err    error
}

// NewLogWriter returns a LogWriter writing to w; Close it before exiting.
func NewLogWriter(w io.Writer) *LogWriter {
	l := &LogWriter{w: w, buf: make([]byte, 0, logBuffer)}
	l.timer = time.AfterFunc(time.Hour, func() { _ = l.Flush() })
	l.timer.Stop()
	return l
}

// Write keeps p to be written within LogDelay. It reports the error of
// the last write that failed, if any, so a logger learns its output is
// gone; the line itself is kept.
func (l *LogWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return l.w.Write(p)
	}
	if len(l.buf)+len(p) > cap(l.buf) {
		l.flushLocked()
		if len(p) > cap(l.buf) {
			_, err := l.w.Write(p)
			return len(p), err
		}
	}
	l.buf = append(l.buf, p...)
	if !l.armed {
		l.armed = true
		l.timer.Reset(LogDelay)
	}
	err := l.err
	l.err = nil
	return len(p), err
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
	if l.armed {
		l.timer.Stop()
		l.armed = false
	}
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
	l.closed = true
	err := l.err
	l.err = nil
	return err
}
