package store_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/memory"
	"github.com/judgeworks/judge/internal/store/redis"
	"github.com/judgeworks/judge/internal/store/storetest"
	"github.com/judgeworks/shared/proctest"
	"github.com/judgeworks/shared/redistest"
)

var bg = context.Background()

// fallback is the judge's store on srv: Redis under prefix, with the
// process's own standing in, logging to logs.
func fallback(t *testing.T, srv *redistest.Server, prefix string, logs *proctest.Buffer) *store.Fallback {
	t.Helper()
	shared, err := redis.Open(srv.URL(), redis.Options{Prefix: prefix, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if logs == nil {
		logs = &proctest.Buffer{}
	}
	f := store.NewFallback(bg, shared, memory.New(), slog.New(slog.NewTextHandler(logs, nil)))
	t.Cleanup(func() { f.Close() })
	return f
}

// While Redis answers, the two stores together are one store, as either
// driver alone.
func TestFallback(t *testing.T) {
	srv := redistest.New(t)
	n := 0
	storetest.Run(t, func(t *testing.T) store.Store {
		n++
		return fallback(t, srv, fmt.Sprintf("law%d:", n), nil)
	})
}

var (
	sp    = store.Space{Name: "t:"}
	nov26 = store.Periods{Day: "2026-11-26", Month: "2026-11"}
	rate  = store.Rate{PerMinute: 1, Burst: 3}
)

// With Redis stopped, buckets and answers go on in the process, each
// replica alone, and spending is refused; losing Redis is said once for
// each and getting it back once; back, every replica shares again, and
// what one kept meanwhile still counts for it.
func TestFallbackStandsInWhileRedisIsAway(t *testing.T) {
	srv := redistest.New(t)
	var logs proctest.Buffer
	a := fallback(t, srv, "", &logs)
	b := fallback(t, srv, "", nil)
	if !a.Up() || !strings.Contains(logs.String(), "rate limits shared through Redis") {
		t.Fatalf("at start-up: up %v, logs %s", a.Up(), logs.String())
	}
	// Shared: what a takes, b does not find.
	a.Take(bg, "k", rate, 3)
	if got, _ := b.Take(bg, "k", rate, 1); got.Allowed {
		t.Fatal("b took from a bucket a emptied: not shared")
	}

	srv.Stop()
	for name, f := range map[string]*store.Fallback{"a": a, "b": b} {
		for i := range 5 {
			got, err := f.Take(bg, "k", rate, 1)
			if err != nil || got.Allowed != (i < 3) {
				t.Errorf("%s, take %d with Redis down: %+v %v, want its own full bucket of 3", name, i+1, got, err)
			}
		}
		if f.Up() || f.Fallbacks() < 5 {
			t.Errorf("%s with Redis down: up %v, %d fallbacks", name, f.Up(), f.Fallbacks())
		}
	}
	if _, claimed, err := a.Claim(bg, sp, "during", []byte("c"), time.Minute); !claimed || err != nil {
		t.Fatalf("a claim with Redis down: %v %v", claimed, err)
	}
	if _, _, err := a.Reserve(bg, "k", nov26, 1, store.Amounts{Day: 10, Month: -1}); err == nil {
		t.Error("a reservation with Redis down did not fail: spending is never decided per replica")
	}
	for _, what := range []string{"Redis unreachable: rate limits", "Redis unreachable: Idempotency-Key answers"} {
		if n := strings.Count(logs.String(), what); n != 1 {
			t.Errorf("%d log lines %q, want 1:\n%s", n, what, logs.String())
		}
	}

	if err := srv.Start(bg); err != nil {
		t.Fatal(err)
	}
	// Back within a probe interval or two: a claim made by a is seen by b.
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; ; i++ {
		slot := fmt.Sprint("probe", i)
		a.Take(bg, "probe", rate, 0)
		b.Take(bg, "probe", rate, 0)
		a.Claim(bg, sp, slot, []byte("a"), time.Minute)
		if held, _, _ := b.Claim(bg, sp, slot, []byte("b"), time.Minute); string(held) == "a" && a.Up() && b.Up() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Redis restarted but the stores did not return to it")
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, what := range []string{"Redis reachable again: rate limits", "Redis reachable again: Idempotency-Key answers"} {
		if n := strings.Count(logs.String(), what); n != 1 {
			t.Errorf("%d log lines %q, want 1", n, what)
		}
	}
	// The claim made meanwhile is a's: found first, and its answer stored
	// where it is.
	if held, claimed, _ := a.Claim(bg, sp, "during", []byte("other"), time.Minute); claimed || string(held) != "c" {
		t.Errorf("a's claim made during the outage: %q %v, want it held", held, claimed)
	}
	if ok, err := a.Put(bg, sp, "o", "during", []byte("answer"), time.Hour, []byte("c")); !ok || err != nil {
		t.Errorf("the answer to a's claim: %v %v", ok, err)
	}
	if v, _, _ := a.Get(bg, sp, "during"); string(v) != "answer" {
		t.Errorf("a finds %q in the slot it claimed during the outage, want its answer", v)
	}
}

// slowBuckets is a Redis whose bucket decisions all miss their deadline,
// as a busy machine's can while the longer deadline of other calls holds.
type slowBuckets struct{ *redis.Store }

func (slowBuckets) Take(context.Context, string, store.Rate, int) (store.Taken, error) {
	return store.Taken{}, context.DeadlineExceeded
}

// A bucket decision that misses its deadline sends the buckets, not the
// answers, to the process: a claim made then is still made in Redis, where
// another replica sees it.
func TestSlowBucketsLeaveAnswersShared(t *testing.T) {
	srv := redistest.New(t)
	shared, err := redis.Open(srv.URL(), redis.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a := store.NewFallback(bg, slowBuckets{shared}, memory.New(), slog.New(slog.DiscardHandler))
	t.Cleanup(func() { a.Close() })
	b := fallback(t, srv, "", nil)
	if got, err := a.Take(bg, "k", rate, 1); err != nil || !got.Allowed || a.Up() || a.Fallbacks() != 1 {
		t.Fatalf("a bucket decision past its deadline: %+v %v, up %v, %d fallbacks; want decided in the process", got, err, a.Up(), a.Fallbacks())
	}
	if _, claimed, _ := a.Claim(bg, sp, "s", []byte("a"), time.Minute); !claimed {
		t.Fatal("a's claim was refused")
	}
	if held, claimed, _ := b.Claim(bg, sp, "s", []byte("b"), time.Minute); claimed || string(held) != "a" {
		t.Errorf("b, for a's claim made while a's buckets were in the process: %q %v, want a's claim held in Redis", held, claimed)
	}
}
