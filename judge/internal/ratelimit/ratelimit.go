// Package ratelimit holds the judge's per-key limits: a bucket of requests
// and a bucket of input tokens for every configured key, each of the
// key's own shape, named by a hash of the key's identity. The buckets
// live in a store (judge/internal/store): in the process, or in Redis
// shared by every replica, with the process's own buckets standing in
// while Redis cannot be reached (store.Fallback).
package ratelimit

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync/atomic"
	"time"

	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/memory"
)

// Settings say what to limit and where the buckets live.
type Settings struct {
	// RPM is each key's requests per minute.
	RPM int
	// Burst is how many requests a key may send at once, the request
	// bucket's size, at most RPM; zero means RPM: a key may spend its
	// minute as it likes, as the token bucket allows (docs/api.md, "Judge:
	// limits and headers"). A small burst refuses a plain sequential loop
	// of fast requests after that many.
	Burst int
	// TPM is each key's input tokens per minute; the burst is a whole
	// minute's budget, as OpenAI's token limits allow.
	TPM int
	// IDs are the configured keys' ids, each limited by RPM and TPM; other
	// ids are always refused.
	IDs []string
	// Keys are configured keys with limits of their own; an RPM or TPM of
	// zero is the default above.
	Keys []Key
	// Store holds the buckets; nil keeps them in this process.
	Store store.Buckets
}

// Result is one bucket's answer.
type Result struct {
	Allowed bool
	// Limit is the bucket's rate per minute.
	Limit int
	// Remaining is what the bucket holds after this decision, whole units.
	Remaining int
	// RetryAfter, when refused, is how long until the amount asked fits.
	// It is zero for an amount that never fits (more than the burst).
	RetryAfter time.Duration
	// ResetAfter is how long until the bucket is full again.
	ResetAfter time.Duration
}

// Key is one key's limits.
type Key struct {
	ID       string
	RPM, TPM int
}

// bucket names one key's bucket of one kind in the store, and its shape.
type bucket struct {
	name string
	rate store.Rate
}

// buckets are one key's two buckets.
type buckets struct {
	requests, tokens *bucket
}

// Limiter decides for every key. It is safe for concurrent use.
type Limiter struct {
	// keys maps each id to its buckets; SetKeys swaps the whole map.
	keys             atomic.Pointer[map[string]buckets]
	rpm, tpm, burstN int
	st               store.Buckets
}

// New returns a limiter for s.
func New(_ context.Context, s Settings) *Limiter {
	l := &Limiter{rpm: s.RPM, tpm: s.TPM, burstN: s.Burst, st: s.Store}
	if l.st == nil {
		l.st = memory.New()
	}
	keys := append([]Key(nil), s.Keys...)
	for _, id := range s.IDs {
		keys = append(keys, Key{ID: id})
	}
	l.keys.Store(&map[string]buckets{})
	l.SetKeys(keys)
	return l
}

// shapes are the shapes of k's two buckets.
func (l *Limiter) shapes(k Key) (req, tok store.Rate) {
	rpm, tpm := cmp.Or(k.RPM, l.rpm), cmp.Or(k.TPM, l.tpm)
	burst := l.burstN
	if burst <= 0 || k.RPM > 0 {
		// A key's own rate is its own burst too: the default burst was
		// chosen for the default rate.
		burst = rpm
	}
	return store.Rate{PerMinute: max(rpm, 1), Burst: max(min(burst, rpm), 1)},
		store.Rate{PerMinute: max(tpm, 1), Burst: max(tpm, 1)}
}

// SetKeys makes keys the configured ones, with their limits. A key kept
// keeps its buckets, reshaped to its limits if they changed: a bucket
// keeps how long it needs to be full again, and so the share of its
// burst it has used (store.Buckets). Buckets are taken from for
// configured keys only; a key removed is refused from then on, and its
// buckets are reachable by no other id.
func (l *Limiter) SetKeys(keys []Key) {
	next := make(map[string]buckets, len(keys))
	for _, k := range keys {
		req, tok := l.shapes(k)
		name := keyName(k.ID)
		next[k.ID] = buckets{
			requests: &bucket{name: "requests:" + name, rate: req},
			tokens:   &bucket{name: "tokens:" + name, rate: tok},
		}
	}
	l.keys.Store(&next)
}

// keyName stands for a key in the store: a hash of its identity (itself a
// keyed digest of the key, auth.KeyID), so the key is not stored and every
// replica names a key alike whatever its position in the configuration.
func keyName(id string) string {
	sum := sha256.Sum256([]byte("key:" + id))
	return hex.EncodeToString(sum[:8])
}

// TokensPerMinute is id's token budget per minute, which is also the most
// one request may need; zero for an id not configured.
func (l *Limiter) TokensPerMinute(id string) int {
	if b := l.buckets(id).tokens; b != nil {
		return b.rate.PerMinute
	}
	return 0
}

func (l *Limiter) buckets(id string) buckets { return (*l.keys.Load())[id] }

// TakeRequest takes one request from id's request bucket.
func (l *Limiter) TakeRequest(ctx context.Context, id string) Result {
	return l.take(ctx, l.buckets(id).requests, 1)
}

// TakeTokens takes n input tokens from id's token bucket, all or nothing.
func (l *Limiter) TakeTokens(ctx context.Context, id string, n int) Result {
	// A negative amount would fill the bucket.
	return l.take(ctx, l.buckets(id).tokens, max(n, 0))
}

// PeekRequests reports id's request bucket without taking from it.
func (l *Limiter) PeekRequests(ctx context.Context, id string) Result {
	return l.take(ctx, l.buckets(id).requests, 0)
}

// PeekTokens reports id's token bucket without taking from it.
func (l *Limiter) PeekTokens(ctx context.Context, id string) Result {
	return l.take(ctx, l.buckets(id).tokens, 0)
}

// storeDown is the wait a refusal asks for when the store cannot decide.
const storeDown = time.Second

func (l *Limiter) take(ctx context.Context, b *bucket, n int) Result {
	if b == nil {
		// Only configured keys reach here; refusing is the safe answer.
		return Result{Limit: 0, RetryAfter: time.Minute}
	}
	if n > b.rate.Burst {
		return Result{Limit: b.rate.PerMinute}
	}
	t, err := l.st.Take(ctx, b.name, b.rate, n)
	if err != nil {
		// Only a shared store without a stand-in fails (the judge gives
		// Redis one, store.Fallback): a limit that cannot be checked
		// refuses rather than admit without bound.
		return Result{Limit: b.rate.PerMinute, RetryAfter: storeDown}
	}
	return Result{Allowed: t.Allowed, Limit: b.rate.PerMinute, Remaining: t.Remaining,
		RetryAfter: t.RetryAfter, ResetAfter: t.ResetAfter}
}

// Shared reports whether the buckets are shared by replicas, with the
// process's own standing in (store.Fallback).
func (l *Limiter) Shared() bool {
	_, ok := l.st.(*store.Fallback)
	return ok
}

// RedisUp reports whether the last call to the shared store succeeded.
func (l *Limiter) RedisUp() bool {
	f, ok := l.st.(*store.Fallback)
	return ok && f.Up()
}

// Fallbacks counts the decisions made in the process because the shared
// store could not be used.
func (l *Limiter) Fallbacks() uint64 {
	if f, ok := l.st.(*store.Fallback); ok {
		return f.Fallbacks()
	}
	return 0
}
