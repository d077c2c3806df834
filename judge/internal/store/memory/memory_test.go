package memory

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/perkey"
	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/storetest"
)

var bg = context.Background()

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return New() })
}

func put(t *testing.T, m *Store, sp store.Space, owner, slot string, val []byte) bool {
	t.Helper()
	stored, err := m.Put(bg, sp, owner, slot, val, time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	return stored
}

func found(m *Store, sp store.Space, slot string) bool {
	_, ok, _ := m.Get(bg, sp, slot)
	return ok
}

// In process an answer read counts as a use: an owner past its bound loses
// its least recently used answer, not merely its oldest stored.
func TestLeastRecentlyUsedGoFirst(t *testing.T) {
	m := New()
	sp := store.Space{Name: "t:", PerOwner: perkey.Limits{Entries: 3, Bytes: 1 << 20}}
	for i := range 3 {
		put(t, m, sp, "a", fmt.Sprint(i), []byte("x"))
	}
	found(m, sp, "0")
	put(t, m, sp, "a", "3", []byte("x"))
	if !found(m, sp, "0") || found(m, sp, "1") {
		t.Error("the entry just read was evicted, or the least recently used one kept")
	}
}

// However much one owner stores, another's answers stay; past the total,
// the largest holder yields, never one within its fair share.
func TestOwnersApartWithinTheTotal(t *testing.T) {
	m := New()
	sp := store.Space{Name: "t:", PerOwner: perkey.Limits{Entries: 10, Bytes: 1 << 20}, Total: perkey.Limits{Entries: 25, Bytes: 1 << 20}}
	for i := range 5 {
		put(t, m, sp, "small", fmt.Sprint("s", i), []byte("x"))
	}
	for i := range 1000 {
		put(t, m, sp, "flood", fmt.Sprint("f", i), []byte("x"))
	}
	held := func(owner string) int { n, _, _ := m.Held(bg, sp, owner); return n }
	if held("small") != 5 || held("flood") != 10 {
		t.Errorf("small keeps %d of 5, flood %d of its bound 10", held("small"), held("flood"))
	}
	// Three owners at their bound of 10 overflow the total of 25: the
	// largest holders yield, the small one keeps everything.
	for i := range 10 {
		put(t, m, sp, "third", fmt.Sprint("t", i), []byte("x"))
	}
	all, _ := m.Totals(sp)
	if all > 25 || held("small") != 5 || held("flood")+held("third")+5 != all {
		t.Errorf("%d in all (total 25); small %d, flood %d, third %d", all, held("small"), held("flood"), held("third"))
	}
}

// Buckets full again hold nothing: the buckets of keys no longer used
// (removed, or idle) are dropped as others are taken from.
func TestFullBucketsAreDropped(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	m := NewAt(func() time.Time { return now })
	r := store.Rate{PerMinute: 60, Burst: 10}
	for i := range 2000 {
		m.Take(bg, fmt.Sprint("old", i), r, 1)
	}
	now = now.Add(time.Minute) // every old bucket full again
	for i := range 2000 {
		m.Take(bg, fmt.Sprint("new", i), r, 1)
	}
	old := 0
	for name := range m.buckets.full {
		if strings.HasPrefix(name, "old") {
			old++
		}
	}
	if old != 0 || len(m.buckets.full) > 2000 {
		t.Errorf("%d buckets held, %d of them full again", len(m.buckets.full), old)
	}
	if got, _ := m.Take(bg, "old1", r, 0); got.Remaining != 10 {
		t.Errorf("a dropped bucket reads %+v, want full", got)
	}
}
