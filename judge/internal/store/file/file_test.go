package file_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/file"
	"github.com/judgeworks/judge/internal/store/memory"
	"github.com/judgeworks/judge/internal/store/storetest"
	"github.com/judgeworks/shared/proctest"
	bolt "go.etcd.io/bbolt"
)

var bg = context.Background()

var (
	nov26 = store.Periods{Day: "2026-11-26", Month: "2026-11"}
	nov27 = store.Periods{Day: "2026-11-27", Month: "2026-11"}
	dec01 = store.Periods{Day: "2026-12-01", Month: "2026-12"}
)

func TestFile(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openFile(t, t.TempDir()) })
}

func openFile(t *testing.T, dir string) *file.Store {
	t.Helper()
	f, err := file.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// What a File was told is there when it is opened again, a new directory
// is created readable by its owner only, and a closed File refuses writes.
func TestFileKeepsFiguresAcrossReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "judge")
	f := openFile(t, dir)
	if _, ok, err := f.Reserve(bg, "k", nov26, 700, store.Amounts{Day: 1000, Month: -1}); !ok || err != nil {
		t.Fatalf("reserve: %v %v", ok, err)
	}
	if err := f.AddUse(bg, "k", nov26, "m", store.Counts{Requests: 1, InputTokens: 7, CostNano: 700}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.AddSpent(bg, "k", nov26, 1); !errors.Is(err, file.ErrClosed) {
		t.Errorf("a write after Close: %v", err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data directory: %v %v, want mode 0700", fi.Mode(), err)
	}

	g := openFile(t, dir)
	if spent, err := g.Spent(bg, "k", nov26); err != nil || spent != (store.Amounts{Day: 700, Month: 700}) {
		t.Errorf("spent after reopening: %+v %v", spent, err)
	}
	if _, ok, _ := g.Reserve(bg, "k", nov26, 301, store.Amounts{Day: 1000, Month: -1}); ok {
		t.Error("after reopening, a reservation past the day's limit was admitted")
	}
	day, _, err := g.Use(bg, "k", nov26)
	if err != nil || day["m"] != (store.Counts{Requests: 1, InputTokens: 7, CostNano: 700}) {
		t.Errorf("use after reopening: %+v %v", day, err)
	}
}

// A second File on a directory in use is refused, saying why, within the
// lock wait; once the first is closed it opens.
func TestFileIsLockedWhileOpen(t *testing.T) {
	dir := t.TempDir()
	f := openFile(t, dir)
	start := time.Now()
	_, err := file.Open(dir)
	if err == nil || !strings.Contains(err.Error(), "locked") || !strings.Contains(err.Error(), file.Name) {
		t.Fatalf("a second open: %v, want an error saying the file is locked", err)
	}
	if waited := time.Since(start); waited > 30*time.Second {
		t.Errorf("refused after %v", waited)
	}
	f.Close()
	openFile(t, dir)
}

// Memory and File keep only the newest day and month: a new period drops
// the one before, a late write for it is dropped too, and the file holds
// one period of each kind.
func TestOnlyTheNewestPeriodsAreKept(t *testing.T) {
	for name, s := range map[string]store.Store{"memory": memory.New(), "file": openFile(t, t.TempDir())} {
		t.Run(name, func(t *testing.T) {
			for _, at := range []store.Periods{nov26, nov27, dec01} {
				if err := s.AddSpent(bg, "k", at, 5); err != nil {
					t.Fatal(err)
				}
				if err := s.AddUse(bg, "k", at, "m", store.Counts{Requests: 1}); err != nil {
					t.Fatal(err)
				}
			}
			// Settled after midnight: its day is over and gone.
			if err := s.AddSpent(bg, "k", nov27, -5); err != nil {
				t.Fatal(err)
			}
			if spent, _ := s.Spent(bg, "k", nov27); spent != (store.Amounts{}) {
				t.Errorf("a period before the newest still reads %+v", spent)
			}
			if spent, _ := s.Spent(bg, "k", dec01); spent != (store.Amounts{Day: 5, Month: 5}) {
				t.Errorf("the newest periods read %+v", spent)
			}
			if day, month, _ := s.Use(bg, "k", nov26); len(day) != 0 || len(month) != 0 {
				t.Errorf("November's use is still kept: %v %v", day, month)
			}
		})
	}
}

// The file holds one period of each kind once newer ones were written.
func TestFileDropsOldPeriods(t *testing.T) {
	dir := t.TempDir()
	f := openFile(t, dir)
	for _, at := range []store.Periods{nov26, nov27, dec01} {
		if err := f.AddUse(bg, "k", at, "m", store.Counts{Requests: 1}); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	db, err := bolt.Open(filepath.Join(dir, file.Name), 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	kept := map[string][]string{}
	_ = db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(kind []byte, b *bolt.Bucket) error {
			return b.ForEach(func(name, _ []byte) error {
				kept[string(kind)] = append(kept[string(kind)], string(name))
				return nil
			})
		})
	})
	if len(kept) != 2 || len(kept["day"]) != 1 || kept["day"][0] != dec01.Day || len(kept["month"]) != 1 || kept["month"][0] != dec01.Month {
		t.Errorf("the file keeps %v, want only %s and %s", kept, dec01.Day, dec01.Month)
	}
}

// onDisk is what the file under dir holds now for key in nov26's day, read
// from a copy of its bytes: the open File keeps its lock, and the copy is
// what a judge killed at this moment would find.
func onDisk(t *testing.T, dir, key string) (spent int64, use store.Counts) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, file.Name))
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), file.Name)
	if err := os.WriteFile(cp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := file.Open(filepath.Dir(cp))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	amounts, _ := g.Spent(bg, key, nov26)
	day, _, _ := g.Use(bg, key, nov26)
	return amounts.Day, day["m"]
}

// A reservation against a cap is on disk when Reserve returns; every other
// change reaches the disk within FlushEvery, without Close.
func TestFileWritesBehindButNeverLateOnACap(t *testing.T) {
	dir := t.TempDir()
	f := openFile(t, dir)
	if _, ok, err := f.Reserve(bg, "capped", nov26, 700, store.Amounts{Day: 1000, Month: -1}); !ok || err != nil {
		t.Fatalf("reserve: %v %v", ok, err)
	}
	if spent, _ := onDisk(t, dir, "capped"); spent != 700 {
		t.Errorf("a reservation against a cap is not on disk when Reserve returns: the file holds %d", spent)
	}
	if _, ok, err := f.Reserve(bg, "open", nov26, 500, store.Amounts{Day: -1, Month: -1}); !ok || err != nil {
		t.Fatalf("reserve: %v %v", ok, err)
	}
	if err := f.AddUse(bg, "open", nov26, "m", store.Counts{Requests: 1, InputTokens: 9}); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, 100*file.FlushEvery, "the uncapped changes on disk", func() bool {
		spent, use := onDisk(t, dir, "open")
		return spent == 500 && use == store.Counts{Requests: 1, InputTokens: 9}
	})
}

// BenchmarkFileReserve is one reservation at a time against a cap: each
// waits for its transaction's sync.
func BenchmarkFileReserve(b *testing.B) {
	f, err := file.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for b.Loop() {
		if _, _, err := f.Reserve(bg, "k", nov26, 1, store.Amounts{Day: 1 << 60, Month: -1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFileReserveParallel is capped reservations from 64 goroutines
// at once, which share transactions and their syncs.
func BenchmarkFileReserveParallel(b *testing.B) {
	f, err := file.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.SetParallelism(64)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := f.Reserve(bg, "k", nov26, 1, store.Amounts{Day: 1 << 60, Month: -1}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkFileUncapped is what a request of a key without a budget asks
// of the file: reserve, settle, count its use; none waits for the disk.
func BenchmarkFileUncapped(b *testing.B) {
	f, err := file.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for b.Loop() {
		if _, _, err := f.Reserve(bg, "k", nov26, 3, store.Amounts{Day: -1, Month: -1}); err != nil {
			b.Fatal(err)
		}
		_ = f.AddSpent(bg, "k", nov26, -1)
		_ = f.AddUse(bg, "k", nov26, "m", store.Counts{Requests: 1, InputTokens: 5})
	}
}
