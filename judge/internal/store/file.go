package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// FileName is the file a File keeps its figures in, under its directory.
const FileName = "spend.db"

// lockWait is how long OpenFile waits for another process to let go of the
// file: long enough for a judge being restarted to exit, short enough that
// a second judge on the same directory is told at once.
const lockWait = 2 * time.Second

// File is a Store in one file (a bbolt database), for a judge without
// Redis. The process holds the file's lock while it is open, so its own
// figures in memory (a Memory) are the truth, read without touching the
// disk; every change is written to the file behind it:
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
type File struct {
	db  *bolt.DB
	mem *Memory

	// mu guards what is not yet on disk, and closed. It is taken before
	// mem's own lock, so a change and its mark are one step.
	mu     sync.Mutex
	dirty  map[fileEntry]struct{}
	next   *flush // the flush that will carry the changes made now
	closed bool

	wake    chan struct{} // a write waits: flush now
	stop    chan struct{}
	stopped chan struct{}
}

// FlushEvery is how long a change that nobody waits for may stay in memory
// only.
const FlushEvery = 200 * time.Millisecond

// fileEntry names one figure: a key's spending (model empty) or its use of
// a model, in the day (kind 0) or month (kind 1) named period.
type fileEntry struct {
	kind               int
	period, key, model string
}

// flush is one write of the changes to the file; done closes once it is
// on disk (or failed, with err).
type flush struct {
	done chan struct{}
	err  error
}

// ErrClosed is what a File's methods answer once it is closed.
var ErrClosed = errors.New("store: closed")

// OpenFile opens the store in dir (FileName), creating dir (mode 0700) and
// the file (0600) when missing, and reads the figures of the newest day
// and month it holds. The file is locked while open: a second process
// given the same dir is refused after lockWait.
func OpenFile(dir string) (*File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockWait})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%s is locked by another process (another judge with the same data directory?)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f := &File{db: db, mem: NewMemory(), dirty: map[fileEntry]struct{}{}, next: newFlush(),
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
func (f *File) Path() string { return f.db.Path() }

// load reads the newest period of each kind into memory.
func (f *File) load(tx *bolt.Tx) error {
	for i, kept := range [2]**memPeriod{&f.mem.day, &f.mem.month} {
		kind := tx.Bucket(kinds[i])
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
		mp := &memPeriod{name: string(name), spent: map[string]int64{}, use: map[string]map[string]*Counts{}}
		if err := p.Bucket(spentName).ForEach(func(k, v []byte) error {
			if len(v) == 8 {
				mp.spent[string(k)] = int64(binary.BigEndian.Uint64(v))
			}
			return nil
		}); err != nil {
			return err
		}
		if err := p.Bucket(useName).ForEachBucket(func(key []byte) error {
			byModel := map[string]*Counts{}
			mp.use[string(key)] = byModel
			return p.Bucket(useName).Bucket(key).ForEach(func(model, v []byte) error {
				c := decodeCounts(v)
				byModel[string(model)] = &c
				return nil
			})
		}); err != nil {
			return err
		}
		*kept = mp
	}
	return nil
}

// run writes the changes to the file every FlushEvery, and at once when a
// write waits, until Close.
func (f *File) run() {
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
func (f *File) flush() {
	f.mu.Lock()
	fl := f.next
	f.next = newFlush()
	entries := f.dirty
	f.dirty = map[fileEntry]struct{}{}
	values := f.values(entries)
	f.mu.Unlock()
	if len(entries) > 0 {
		fl.err = f.db.Update(func(tx *bolt.Tx) error { return write(tx, values) })
	}
	if fl.err != nil {
		f.mu.Lock()
		for e := range entries {
			f.dirty[e] = struct{}{}
		}
		f.mu.Unlock()
	}
	close(fl.done)
}

// fileValue is an entry and its figure: spent, or counts.
type fileValue struct {
	fileEntry
	spent  int64
	counts Counts
}

// values are the figures of entries as memory holds them. The caller holds
// f.mu.
func (f *File) values(entries map[fileEntry]struct{}) []fileValue {
	f.mem.mu.Lock()
	defer f.mem.mu.Unlock()
	out := make([]fileValue, 0, len(entries))
	for e := range entries {
		p := [2]*memPeriod{f.mem.day, f.mem.month}[e.kind]
		if p.name != e.period {
			continue // a newer period replaced it: nothing of it is kept
		}
		v := fileValue{fileEntry: e}
		if e.model == "" {
			v.spent = p.spent[e.key]
		} else if c := p.use[e.key][e.model]; c != nil {
			v.counts = *c
		}
		out = append(out, v)
	}
	return out
}

// write puts values in the file, replacing older periods of their kinds.
func write(tx *bolt.Tx, values []fileValue) error {
	for _, v := range values {
		p, err := period(tx, v.kind, []byte(v.period))
		if err != nil {
			return err
		}
		if p == nil {
			continue // older than what the file keeps
		}
		if v.model == "" {
			if err := p.Bucket(spentName).Put([]byte(v.key), binary.BigEndian.AppendUint64(nil, uint64(v.spent))); err != nil {
				return err
			}
			continue
		}
		byModel, err := p.Bucket(useName).CreateBucketIfNotExists([]byte(v.key))
		if err != nil {
			return err
		}
		if err := byModel.Put([]byte(v.model), encodeCounts(v.counts)); err != nil {
			return err
		}
	}
	return nil
}

// change runs apply on memory and marks the figures it changed, under one
// lock; it returns the flush that will carry them.
func (f *File) change(apply func() []fileEntry) (*flush, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, ErrClosed
	}
	for _, e := range apply() {
		f.dirty[e] = struct{}{}
	}
	return f.next, nil
}

// await asks for fl now and waits until it is on disk.
func (f *File) await(fl *flush) error {
	select {
	case f.wake <- struct{}{}:
	default: // a flush is asked for already
	}
	<-fl.done
	return fl.err
}

// spentEntries are key's spending in both periods of at.
func spentEntries(key string, at Periods) []fileEntry {
	return []fileEntry{{0, at.Day, key, ""}, {1, at.Month, key, ""}}
}

func (f *File) Reserve(ctx context.Context, key string, at Periods, amount int64, limits Amounts) (before Amounts, ok bool, err error) {
	fl, err := f.change(func() []fileEntry {
		before, ok, _ = f.mem.Reserve(ctx, key, at, amount, limits)
		if !ok {
			return nil
		}
		return spentEntries(key, at)
	})
	if err != nil || !ok || (limits.Day < 0 && limits.Month < 0) {
		return before, ok, err
	}
	// Against a cap: on disk before the request goes upstream.
	if err := f.await(fl); err != nil {
		_ = f.AddSpent(ctx, key, at, -amount)
		return Amounts{}, false, err
	}
	return before, true, nil
}

func (f *File) AddSpent(ctx context.Context, key string, at Periods, delta int64) error {
	_, err := f.change(func() []fileEntry {
		_ = f.mem.AddSpent(ctx, key, at, delta)
		return spentEntries(key, at)
	})
	return err
}

func (f *File) Spent(ctx context.Context, key string, at Periods) (Amounts, error) {
	return f.mem.Spent(ctx, key, at)
}

func (f *File) AddUse(ctx context.Context, key string, at Periods, model string, c Counts) error {
	_, err := f.change(func() []fileEntry {
		_ = f.mem.AddUse(ctx, key, at, model, c)
		return []fileEntry{{0, at.Day, key, model}, {1, at.Month, key, model}}
	})
	return err
}

func (f *File) Use(ctx context.Context, key string, at Periods) (day, month map[string]Counts, err error) {
	return f.mem.Use(ctx, key, at)
}

// Close writes every change still in memory to the file, then closes it
// and lets go of its lock. Later calls answer ErrClosed.
func (f *File) Close() error {
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

// period is the bucket of the kind (0: day, 1: month) named name, nil
// when there is none. In a write, a period newer than those kept of its
// kind replaces them, and one older is nil: the write is dropped.
func period(tx *bolt.Tx, kind int, name []byte) (*bolt.Bucket, error) {
	b := tx.Bucket(kinds[kind])
	if !tx.Writable() {
		if b == nil {
			return nil, nil
		}
		return b.Bucket(name), nil
	}
	b, err := tx.CreateBucketIfNotExists(kinds[kind])
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
