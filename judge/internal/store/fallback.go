package store

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"
)

// ProbeInterval is how often, at most, a process that lost the shared
// store tries it again. One call per interval pays for the attempt (at
// most the driver's deadline); the others are answered in the process
// meanwhile.
const ProbeInterval = time.Second

// Shared is a store every replica shares, in another process: the redis
// driver.
type Shared interface {
	Store
	// Ping asks whether the store answers.
	Ping(ctx context.Context) error
}

// Fallback is a store shared by every replica together with the process's
// own, for the state a replica may keep alone for a while. While the
// shared store answers, everything is decided there. When it does not
// (refused, timed out, any error):
//
//   - buckets and answers are decided in the process's own store, which
//     starts empty and is not fed while the shared one answers: during an
//     outage each replica admits a key's whole rate, and a retry sent to
//     another replica runs again. That is the price of answering rather
//     than failing;
//   - spending and usage never are: a budget is about money, and N
//     replicas each deciding alone could spend it N times. Their errors
//     reach the caller (judge/internal/budget refuses a key with a cap).
//
// Buckets and answers each follow the shared store on their own, since
// their calls have deadlines of their own (a bucket's is short): a bucket
// decision that misses its deadline sends the buckets, not the answers,
// to the process for a while. Losing the shared store is logged once and
// getting it back once, for each, not once a request. While it is lost,
// one call per ProbeInterval tries it again, and the first answer brings
// the calls back to it. What the process kept meanwhile still counts: an
// answer or a claim it holds is found there first, and finishing or
// releasing a claim goes to the store that holds it.
type Fallback struct {
	shared           Shared
	local            Store
	buckets, answers health
	fallbacks        atomic.Uint64
}

// health is whether calls of one kind reach the shared store.
type health struct {
	what      string
	log       *slog.Logger
	up        atomic.Bool
	nextProbe atomic.Int64 // unix nanoseconds; while down, the next attempt
}

// NewFallback returns the two stores as one, and pings the shared one
// (within a second) so that the first decisions already go where they
// should; one that does not answer is not an error.
func NewFallback(ctx context.Context, shared Shared, local Store, log *slog.Logger) *Fallback {
	if log == nil {
		log = slog.Default()
	}
	f := &Fallback{shared: shared, local: local,
		buckets: health{what: "rate limits", log: log}, answers: health{what: "Idempotency-Key answers and cached answers", log: log}}
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	err := shared.Ping(pctx)
	cancel()
	if err != nil {
		next := time.Now().Add(ProbeInterval).UnixNano()
		f.buckets.nextProbe.Store(next)
		f.answers.nextProbe.Store(next)
		log.Warn("Redis unreachable at start-up: "+f.buckets.what+", "+f.answers.what+" are per replica until it answers", "err", err)
	} else {
		for _, h := range []*health{&f.buckets, &f.answers} {
			h.up.Store(true)
			log.Info(h.what + " shared through Redis")
		}
	}
	return f
}

// Up reports whether the last bucket decision was made in the shared
// store.
func (f *Fallback) Up() bool { return f.buckets.up.Load() }

// Fallbacks counts the bucket decisions made in the process because the
// shared store could not be used.
func (f *Fallback) Fallbacks() uint64 { return f.fallbacks.Load() }

// usable says whether to ask the shared store now: while it is up, and
// while it is down once per ProbeInterval (one caller wins the
// compare-and-swap).
func (h *health) usable() bool {
	if h.up.Load() {
		return true
	}
	now := time.Now().UnixNano()
	next := h.nextProbe.Load()
	return now >= next && h.nextProbe.CompareAndSwap(next, now+int64(ProbeInterval))
}

// noted records whether a call to the shared store succeeded, logging
// only the changes, and reports whether it did.
func (h *health) noted(err error) bool {
	if err != nil {
		h.nextProbe.Store(time.Now().Add(ProbeInterval).UnixNano())
		if h.up.CompareAndSwap(true, false) {
			h.log.Warn("Redis unreachable: "+h.what+" are per replica until it is back", "err", err)
		}
		return false
	}
	if h.up.CompareAndSwap(false, true) {
		h.log.Info("Redis reachable again: " + h.what + " are shared")
	}
	return true
}

func (f *Fallback) Take(ctx context.Context, name string, r Rate, n int) (Taken, error) {
	if f.buckets.usable() {
		t, err := f.shared.Take(ctx, name, r, n)
		if f.buckets.noted(err) {
			return t, nil
		}
	}
	f.fallbacks.Add(1)
	return f.local.Take(ctx, name, r, n)
}

func (f *Fallback) Get(ctx context.Context, sp Space, slot string) ([]byte, bool, error) {
	if f.answers.usable() {
		if val, found, _ := f.local.Get(ctx, sp, slot); found {
			return val, true, nil
		}
		val, found, err := f.shared.Get(ctx, sp, slot)
		if f.answers.noted(err) {
			return val, found, nil
		}
	}
	return f.local.Get(ctx, sp, slot)
}

func (f *Fallback) Claim(ctx context.Context, sp Space, slot string, claim []byte, ttl time.Duration) ([]byte, bool, error) {
	if f.answers.usable() {
		if held, found, _ := f.local.Get(ctx, sp, slot); found {
			return held, false, nil
		}
		held, claimed, err := f.shared.Claim(ctx, sp, slot, claim, ttl)
		if f.answers.noted(err) {
			return held, claimed, nil
		}
	}
	return f.local.Claim(ctx, sp, slot, claim, ttl)
}

// holds reports whether the process's own store holds claim in slot.
func (f *Fallback) holds(ctx context.Context, sp Space, slot string, claim []byte) bool {
	held, found, _ := f.local.Get(ctx, sp, slot)
	return found && bytes.Equal(held, claim)
}

// Put of an answer for a claim goes where the claim is; an error of the
// shared store then reaches the caller, whose claim expires there.
func (f *Fallback) Put(ctx context.Context, sp Space, owner, slot string, val []byte, ttl time.Duration, ifHolds []byte) (bool, error) {
	if ifHolds != nil {
		if f.holds(ctx, sp, slot, ifHolds) {
			return f.local.Put(ctx, sp, owner, slot, val, ttl, ifHolds)
		}
		stored, err := f.shared.Put(ctx, sp, owner, slot, val, ttl, ifHolds)
		f.answers.noted(err)
		return stored, err
	}
	if f.answers.usable() {
		stored, err := f.shared.Put(ctx, sp, owner, slot, val, ttl, nil)
		if f.answers.noted(err) {
			return stored, nil
		}
	}
	return f.local.Put(ctx, sp, owner, slot, val, ttl, nil)
}

func (f *Fallback) Release(ctx context.Context, sp Space, slot string, claim []byte) error {
	if f.holds(ctx, sp, slot, claim) {
		return f.local.Release(ctx, sp, slot, claim)
	}
	err := f.shared.Release(ctx, sp, slot, claim)
	f.answers.noted(err)
	return err
}

// Held is what the store in use now counts.
func (f *Fallback) Held(ctx context.Context, sp Space, owner string) (int, int64, error) {
	if f.answers.up.Load() {
		return f.shared.Held(ctx, sp, owner)
	}
	return f.local.Held(ctx, sp, owner)
}

func (f *Fallback) Reserve(ctx context.Context, key string, at Periods, amount int64, limits Amounts) (Amounts, bool, error) {
	return f.shared.Reserve(ctx, key, at, amount, limits)
}

func (f *Fallback) AddSpent(ctx context.Context, key string, at Periods, delta int64) error {
	return f.shared.AddSpent(ctx, key, at, delta)
}

func (f *Fallback) Spent(ctx context.Context, key string, at Periods) (Amounts, error) {
	return f.shared.Spent(ctx, key, at)
}

func (f *Fallback) AddUse(ctx context.Context, key string, at Periods, model string, c Counts) error {
	return f.shared.AddUse(ctx, key, at, model, c)
}

func (f *Fallback) Use(ctx context.Context, key string, at Periods) (day, month map[string]Counts, err error) {
	return f.shared.Use(ctx, key, at)
}

// Close closes both stores.
func (f *Fallback) Close() error {
	return errors.Join(f.shared.Close(), f.local.Close())
}
