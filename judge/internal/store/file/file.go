// Package file is the store driver of a judge without Redis
// (judge/internal/store): the memory driver, whose spending and usage are
// also kept in one file (a bbolt database) under JUDGE_DATA_DIR, so that
// a restart, a crash included, keeps refusing a key over its budget.
// Buckets and stored answers are the memory driver's, in the process
// only: they carry their own expiry, and a restart that forgets them
// costs a key at most a fresh burst and a retry run again.
package file

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/memory"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Name is the file a Store keeps its figures in, under its directory.
const Name = "spend.db"

// lockWait is how long Open waits for another process to let go of the
// file: long enough for a judge being restarted to exit, short enough that
// a second judge on the same directory is told at once.
const lockWait = 2 * time.Second

// Store keeps spending and usage in one file, for a judge without Redis,
// and everything else in memory. The process holds the file's lock while
// it is open, so the figures of its memory driver are the truth, read
// without touching the disk; every change is written to the file behind
// them:
//
//   - a reservation against a cap (a key with a budget) is on disk before
//     Reserve returns, so a judge that dies a moment later still refuses
//     the key once restarted;
//   - every other change (a settlement, a key without a budget, usage) is
//     on disk within FlushEvery, and all of them at Close (a judge's
//     graceful stop).
//
// Writes waiting for the disk share one transaction and one sync (a group
// commit), and the many writes of a busy second cost a handful of syncs,
// not one each: a request of a key without a budget never waits for the
// disk. A judge killed outright loses at most FlushEvery of settlements
// and usage counts; a settlement lost leaves the key charged its planned
// cost, never less than it spent.
//
// The file holds two buckets, "day" and "month". Each holds one bucket per
// period kept, named by the period, holding "spent" (key → nano-dollars,
// 8 bytes big-endian) and "use" (key → a bucket of model → Counts as
// encodeCounts writes them).
type Store struct {
	// Spent, Use, the buckets and the answers are the memory driver's;
	// Reserve, AddSpent and AddUse write behind it.
	*memory.Store
	db *bolt.DB

	// mu guards what is not yet on disk, and closed. It is taken before
	// the memory driver's own lock, so a change and its mark are one step.
	mu     sync.Mutex
	dirty  map[memory.Figure]struct{}
	next   *flush // the flush that will carry the changes made now
	closed bool

	wake    chan struct{} // a write waits: flush now
	stop    chan struct{}
	stopped chan struct{}
}

// FlushEvery is how long a change that nobody waits for may stay in memory
// only.
const FlushEvery = 200 * time.Millisecond

// flush is one write of the changes to the file; done closes once it is
// on disk (or failed, with err).
type flush struct {
	done chan struct{}
	err  error
}

// ErrClosed is what a Store's writes answer once it is closed.
var ErrClosed = errors.New("store: closed")

// Open opens the store in dir (Name), creating dir (mode 0700) and the
// file (0600) when missing, and reads the figures of the newest day and
// month it holds. The file is locked while open: a second process given
// the same dir is refused after lockWait.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, Name)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockWait})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%s is locked by another process (another judge with the same data directory?)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f := &Store{Store: memory.New(), db: db, dirty: map[memory.Figure]struct{}{}, next: newFlush(),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	if err := db.View(f.load); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	go f.run()
	return f, nil
}

func newFlush() *flush { return &flush{done: make(chan struct{})} }

// Path is the file's path.
func (f *Store) Path() string { return f.db.Path() }

// load reads the newest period of each kind into memory.
func (f *Store) load(tx *bolt.Tx) error {
	for i, kindName := range kinds {
		kind := tx.Bucket(kindName)
		if kind == nil {
			continue
		}
		name, _ := kind.Cursor().Last()
		if name == nil {
			continue
		}
		p := kind.Bucket(name)
		if p == nil {
			continue
		}
		at := memory.Figure{Month: i == 1, Period: string(name)}
		if err := p.Bucket(spentName).ForEach(func(k, v []byte) error {
			if len(v) == 8 {
				fig := at
				fig.Key = string(k)
				f.SetFigure(fig, int64(binary.BigEndian.Uint64(v)), store.Counts{})
			}
			return nil
		}); err != nil {
			return err
		}
		use := p.Bucket(useName)
		if err := use.ForEachBucket(func(key []byte) error {
			return use.Bucket(key).ForEach(func(model, v []byte) error {
				fig := at
				fig.Key, fig.Model = string(key), string(model)
				f.SetFigure(fig, 0, decodeCounts(v))
				return nil
			})
		}); err != nil {
			return err
		}
	}
	return nil
}

// run writes the changes to the file every FlushEvery, and at once when a
// write waits, until Close.
func (f *Store) run() {
	defer close(f.stopped)
	tick := time.NewTicker(FlushEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-f.wake:
		case <-f.stop:
			f.flush()
			return
		}
		f.flush()
	}
}

// flush writes what changed since the last flush, each figure as it
// stands in memory now, in one transaction. Figures that could not be
// written stay to be written by the next.
func (f *Store) flush() {
	f.mu.Lock()
	fl := f.next
	f.next = newFlush()
	figs := f.dirty
	f.dirty = map[memory.Figure]struct{}{}
	values := f.values(figs)
	f.mu.Unlock()
	if len(figs) > 0 {
		fl.err = f.db.Update(func(tx *bolt.Tx) error { return write(tx, values) })
	}
	if fl.err != nil {
		f.mu.Lock()
		for fig := range figs {
			f.dirty[fig] = struct{}{}
		}
		f.mu.Unlock()
	}
	close(fl.done)
}

// value is a figure and what it holds: spent, or counts.
type value struct {
	memory.Figure
	spent  int64
	counts store.Counts
}

// values are the figures of figs as memory holds them, but for those of a
// period a newer one replaced: nothing of it is kept. The caller holds
// f.mu.
func (f *Store) values(figs map[memory.Figure]struct{}) []value {
	out := make([]value, 0, len(figs))
	for fig := range figs {
		if spent, counts, ok := f.Figure(fig); ok {
			out = append(out, value{fig, spent, counts})
		}
	}
	return out
}

// write puts values in the file, replacing older periods of their kinds.
func write(tx *bolt.Tx, values []value) error {
	for _, v := range values {
		p, err := period(tx, v.Month, []byte(v.Period))
		if err != nil {
			return err
		}
		if p == nil {
			continue // older than what the file keeps
		}
		if v.Model == "" {
			if err := p.Bucket(spentName).Put([]byte(v.Key), binary.BigEndian.AppendUint64(nil, uint64(v.spent))); err != nil {
				return err
			}
			continue
		}
		byModel, err := p.Bucket(useName).CreateBucketIfNotExists([]byte(v.Key))
		if err != nil {
			return err
		}
		if err := byModel.Put([]byte(v.Model), encodeCounts(v.counts)); err != nil {
			return err
		}
	}
	return nil
}

// change runs apply on memory and marks the figures it changed, under one
// lock; it returns the flush that will carry them.
func (f *Store) change(apply func() []memory.Figure) (*flush, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, ErrClosed
	}
	for _, fig := range apply() {
		f.dirty[fig] = struct{}{}
	}
	return f.next, nil
}

// await asks for fl now and waits until it is on disk.
func (f *Store) await(fl *flush) error {
	select {
	case f.wake <- struct{}{}:
	default: // a flush is asked for already
	}
	<-fl.done
	return fl.err
}

// figures are key's figures of model ("": its spending) in both periods
// of at.
func figures(key, model string, at store.Periods) []memory.Figure {
	return []memory.Figure{{Period: at.Day, Key: key, Model: model}, {Month: true, Period: at.Month, Key: key, Model: model}}
}

func (f *Store) Reserve(ctx context.Context, key string, at store.Periods, amount int64, limits store.Amounts) (before store.Amounts, ok bool, err error) {
	fl, err := f.change(func() []memory.Figure {
		before, ok, _ = f.Store.Reserve(ctx, key, at, amount, limits)
		if !ok {
			return nil
		}
		return figures(key, "", at)
	})
	if err != nil || !ok || (limits.Day < 0 && limits.Month < 0) {
		return before, ok, err
	}
	// Against a cap: on disk before the request goes upstream.
	if err := f.await(fl); err != nil {
		_ = f.AddSpent(ctx, key, at, -amount)
		return store.Amounts{}, false, err
	}
	return before, true, nil
}

func (f *Store) AddSpent(ctx context.Context, key string, at store.Periods, delta int64) error {
	_, err := f.change(func() []memory.Figure {
		_ = f.Store.AddSpent(ctx, key, at, delta)
		return figures(key, "", at)
	})
	return err
}

func (f *Store) AddUse(ctx context.Context, key string, at store.Periods, model string, c store.Counts) error {
	_, err := f.change(func() []memory.Figure {
		_ = f.Store.AddUse(ctx, key, at, model, c)
		return figures(key, model, at)
	})
	return err
}

// Close writes every change still in memory to the file, then closes it
// and lets go of its lock. Later writes of spending and usage answer
// ErrClosed.
func (f *Store) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	f.mu.Unlock()
	close(f.stop)
	<-f.stopped
	return f.db.Close()
}

var (
	kinds     = [2][]byte{[]byte("day"), []byte("month")}
	spentName = []byte("spent")
	useName   = []byte("use")
)

// period is the bucket of the month's or the day's kind named name, nil
// when there is none. In a write, a period newer than those kept of its
// kind replaces them, and one older is nil: the write is dropped.
func period(tx *bolt.Tx, month bool, name []byte) (*bolt.Bucket, error) {
	kind := kinds[0]
	if month {
		kind = kinds[1]
	}
	b, err := tx.CreateBucketIfNotExists(kind)
	if err != nil {
		return nil, err
	}
	if p := b.Bucket(name); p != nil {
		return p, nil
	}
	var older [][]byte
	newer := false
	_ = b.ForEach(func(k, _ []byte) error {
		if string(k) < string(name) {
			older = append(older, append([]byte(nil), k...))
		} else {
			newer = true
		}
		return nil
	})
	if newer {
		return nil, nil
	}
	for _, k := range older {
		if err := b.DeleteBucket(k); err != nil {
			return nil, err
		}
	}
	p, err := b.CreateBucket(name)
	if err != nil {
		return nil, err
	}
	if _, err := p.CreateBucket(spentName); err != nil {
		return nil, err
	}
	if _, err := p.CreateBucket(useName); err != nil {
		return nil, err
	}
	return p, nil
}

// encodeCounts is c as stored in the file: each field as 8 bytes,
// big-endian, in store.CountFields' order.
func encodeCounts(c store.Counts) []byte {
	b := make([]byte, 0, 8*len(store.CountFields))
	for _, fld := range store.CountFields {
		b = binary.BigEndian.AppendUint64(b, uint64(*fld.Of(&c)))
	}
	return b
}

// decodeCounts reads encodeCounts' bytes; fields past the end of b (a
// file written before a field was added) are zero.
func decodeCounts(b []byte) store.Counts {
	var c store.Counts
	for _, fld := range store.CountFields {
		if len(b) < 8 {
			break
		}
		*fld.Of(&c) = int64(binary.BigEndian.Uint64(b))
		b = b[8:]
	}
	return c
}
