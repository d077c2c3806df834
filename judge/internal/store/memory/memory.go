// Package memory is the store driver that keeps everything in the process
// (judge/internal/store): spending and usage of the newest day and month,
// buckets, and answers bounded per owner and in all. It is what a judge
// without Redis decides with, what a judge with Redis falls back to while
// Redis cannot be reached (store.Fallback), and what the file driver
// writes to disk behind.
package memory

import (
	"time"
)

// Store keeps per-key state in the process. It is safe for concurrent
// use; spending, buckets and answers each have a lock of their own, so
// one never waits for another. The zero value is not ready: use New.
type Store struct {
	now     func() time.Time
	epoch   time.Time
	figures figures
	buckets buckets
	answers answers
}

// New returns an empty store on the real clock.
func New() *Store { return NewAt(time.Now) }

// NewAt returns an empty store whose clock is now, for tests that move
// time by hand. Buckets refill and answers expire by it; periods are named
// by the caller.
func NewAt(now func() time.Time) *Store {
	m := &Store{now: now, epoch: now()}
	m.figures.day, m.figures.month = &period{}, &period{}
	m.buckets.full = map[string]float64{}
	m.buckets.sweepAt = minSweep
	m.answers.spaces = map[string]*shelf{}
	return m
}

// Close does nothing: the state goes with the process.
func (m *Store) Close() error { return nil }
