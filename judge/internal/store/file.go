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

// File is a Store in one file (a bbolt database). Each write is in a
// transaction synced to disk before the write returns. Writes that arrive
// while one transaction is being synced wait and share the next one (a
// group commit), so many requests at once cost about one sync each round,
// not one sync each.
//
// The file holds two buckets, "day" and "month". Each holds one bucket per
// period kept, named by the period, holding "spent" (key → nano-dollars,
// 8 bytes big-endian) and "use" (key → a bucket of model → Counts as
// encodeCounts writes them).
type File struct {
	db     *bolt.DB
	writes chan *fileWrite
	// mu guards closed: a write never starts after Close.
	mu      sync.RWMutex
	closed  bool
	stopped chan struct{}
}

// fileWrite is one write waiting for its transaction.
type fileWrite struct {
	apply func(*bolt.Tx) error
	done  chan error
}

// ErrClosed is what a File's methods answer once it is closed.
var ErrClosed = errors.New("store: closed")

// OpenFile opens the store in dir (FileName), creating dir (mode 0700) and
// the file (0600) when missing. The file is locked while open: a second
// process given the same dir is refused after lockWait.
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
	f := &File{db: db, writes: make(chan *fileWrite), stopped: make(chan struct{})}
	go f.commit()
	return f, nil
}

// Path is the file's path.
func (f *File) Path() string { return f.db.Path() }

// maxGroup bounds the writes of one transaction.
const maxGroup = 1024

// commit runs the writes, each group that has arrived in one transaction,
// until Close.
func (f *File) commit() {
	defer close(f.stopped)
	for w := range f.writes {
		group := []*fileWrite{w}
	more:
		for len(group) < maxGroup {
			select {
			case w, ok := <-f.writes:
				if !ok {
					break more
				}
				group = append(group, w)
			default:
				break more
			}
		}
		err := f.db.Update(func(tx *bolt.Tx) error {
			for _, w := range group {
				if err := w.apply(tx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil && len(group) > 1 {
			// One write's failure must not fail the others: each again,
			// alone.
			for _, w := range group {
				w.done <- f.db.Update(w.apply)
			}
			continue
		}
		for _, w := range group {
			w.done <- err
		}
	}
}

// update runs apply in a read-write transaction and returns once that is
// on disk. A write to a local file is not abandoned when the caller's context ends:
// it is as quick as the disk either way.
func (f *File) update(apply func(*bolt.Tx) error) error {
	w := &fileWrite{apply: apply, done: make(chan error, 1)}
	f.mu.RLock()
	if f.closed {
		f.mu.RUnlock()
		return ErrClosed
	}
	f.writes <- w
	f.mu.RUnlock()
	return <-w.done
}

var (
	kinds     = [2][]byte{[]byte("day"), []byte("month")}
	spentName = []byte("spent")
	useName   = []byte("use")
)

// periods are the buckets of at's day and month, nil for a period that has
// none. In a write, a period newer than those kept of its kind replaces
// them, and one older is nil: the write is dropped.
func periods(tx *bolt.Tx, at Periods) ([2]*bolt.Bucket, error) {
	var out [2]*bolt.Bucket
	for i, name := range [2][]byte{[]byte(at.Day), []byte(at.Month)} {
		kind := tx.Bucket(kinds[i])
		if !tx.Writable() {
			if kind != nil {
				out[i] = kind.Bucket(name)
			}
			continue
		}
		var err error
		if kind, err = tx.CreateBucketIfNotExists(kinds[i]); err != nil {
			return out, err
		}
		if out[i] = kind.Bucket(name); out[i] != nil {
			continue
		}
		var older [][]byte
		newer := false
		_ = kind.ForEach(func(k, _ []byte) error {
			if string(k) < string(name) {
				older = append(older, append([]byte(nil), k...))
			} else {
				newer = true
			}
			return nil
		})
		if newer {
			continue
		}
		for _, k := range older {
			if err := kind.DeleteBucket(k); err != nil {
				return out, err
			}
		}
		p, err := kind.CreateBucket(name)
		if err != nil {
			return out, err
		}
		if _, err := p.CreateBucket(spentName); err != nil {
			return out, err
		}
		if _, err := p.CreateBucket(useName); err != nil {
			return out, err
		}
		out[i] = p
	}
	return out, nil
}

func spentOf(p *bolt.Bucket, key []byte) int64 {
	if p == nil {
		return 0
	}
	if v := p.Bucket(spentName).Get(key); len(v) == 8 {
		return int64(binary.BigEndian.Uint64(v))
	}
	return 0
}

func addSpent(ps [2]*bolt.Bucket, key []byte, delta int64) error {
	for _, p := range ps {
		if p == nil {
			continue
		}
		v := binary.BigEndian.AppendUint64(nil, uint64(spentOf(p, key)+delta))
		if err := p.Bucket(spentName).Put(key, v); err != nil {
			return err
		}
	}
	return nil
}

func (f *File) Reserve(_ context.Context, key string, at Periods, amount int64, limits Amounts) (before Amounts, ok bool, err error) {
	err = f.update(func(tx *bolt.Tx) error {
		ps, err := periods(tx, at)
		if err != nil {
			return err
		}
		k := []byte(key)
		before = Amounts{spentOf(ps[0], k), spentOf(ps[1], k)}
		if ok = fits(before, amount, limits); !ok {
			return nil
		}
		return addSpent(ps, k, amount)
	})
	if err != nil {
		return Amounts{}, false, err
	}
	return before, ok, nil
}

func (f *File) AddSpent(_ context.Context, key string, at Periods, delta int64) error {
	return f.update(func(tx *bolt.Tx) error {
		ps, err := periods(tx, at)
		if err != nil {
			return err
		}
		return addSpent(ps, []byte(key), delta)
	})
}

func (f *File) Spent(_ context.Context, key string, at Periods) (out Amounts, err error) {
	err = f.db.View(func(tx *bolt.Tx) error {
		ps, _ := periods(tx, at)
		out = Amounts{spentOf(ps[0], []byte(key)), spentOf(ps[1], []byte(key))}
		return nil
	})
	return out, err
}

func (f *File) AddUse(_ context.Context, key string, at Periods, model string, c Counts) error {
	return f.update(func(tx *bolt.Tx) error {
		ps, err := periods(tx, at)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if p == nil {
				continue
			}
			byModel, err := p.Bucket(useName).CreateBucketIfNotExists([]byte(key))
			if err != nil {
				return err
			}
			sum := decodeCounts(byModel.Get([]byte(model)))
			sum.Add(c)
			if err := byModel.Put([]byte(model), encodeCounts(sum)); err != nil {
				return err
			}
		}
		return nil
	})
}

func (f *File) Use(_ context.Context, key string, at Periods) (day, month map[string]Counts, err error) {
	var out [2]map[string]Counts
	err = f.db.View(func(tx *bolt.Tx) error {
		ps, _ := periods(tx, at)
		for i, p := range ps {
			out[i] = map[string]Counts{}
			if p == nil {
				continue
			}
			byModel := p.Bucket(useName).Bucket([]byte(key))
			if byModel == nil {
				continue
			}
			_ = byModel.ForEach(func(model, v []byte) error {
				out[i][string(model)] = decodeCounts(v)
				return nil
			})
		}
		return nil
	})
	return out[0], out[1], err
}

// Close waits for the writes in flight, then closes the file and lets go
// of its lock. Later calls answer ErrClosed.
func (f *File) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	close(f.writes)
	f.mu.Unlock()
	<-f.stopped
	return f.db.Close()
}
