// Package idempotency remembers the answers of requests sent with an
// Idempotency-Key, so that a client retrying after a timeout gets the first
// answer instead of paying for a second one. A key is claimed while its
// request runs (a retry meanwhile learns it is in use), and the answer is
// kept for TTL once it is stored. With a Redis client every replica shares
// the claims and answers; without one, or while Redis cannot be reached,
// each process keeps its own in a bounded store.
package idempotency

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/judgeworks/judge/internal/perkey"
	"github.com/redis/go-redis/v9"
)

// Defaults of Settings.
const (
	// TTL is how long a stored answer is replayed.
	TTL = 24 * time.Hour
	// DefaultRunTTL bounds a claim whose process died before it finished or
	// released it (only Redis can outlive a process). It is longer than the
	// longest a request may work, so a live claim never expires under a
	// request still running.
	DefaultRunTTL = 2 * time.Minute
)

// MaxKeyLength is the longest Idempotency-Key accepted.
const MaxKeyLength = 255

// ValidKey reports whether k is 1 to MaxKeyLength printable ASCII
// characters: what a header carries without escaping, and what may be
// quoted in an error message without forging anything.
func ValidKey(k string) bool {
	if k == "" || len(k) > MaxKeyLength {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// StoreKey names the slot of one caller's idempotency key: a hash of the
// caller's identity and the key, so callers never share a slot and neither
// the key nor the caller is stored in the clear.
func StoreKey(caller, key string) string {
	sum := sha256.Sum256([]byte(caller + "\x00" + key))
	return hex.EncodeToString(sum[:])
}

// Fingerprint identifies a request: its route and its body, so that the
// same key sent to another endpoint is another request.
func Fingerprint(route string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(route))
	h.Write([]byte{0})
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// Answer is a stored response.
type Answer struct {
	// Model is the exact model that answered, so that a replay can check
	// the caller may still use it.
	Model       string `json:"model"`
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	Body        []byte `json:"-"`
}

// Outcome says what Begin found.
type Outcome int

const (
	// Started: the key was free and is now claimed; run the request, then
	// Finish or Release the claim.
	Started Outcome = iota
	// Replay: an answer is stored for this key and request.
	Replay
	// InUse: the same request is still running under this key.
	InUse
	// Reused: the key was used for another request.
	Reused
)

// Settings say where claims and answers live and how much of them to keep.
type Settings struct {
	// Redis, when set, holds the claims and answers every replica shares.
	Redis *redis.Client
	// Prefix starts every Redis key.
	Prefix string
	// TTL is how long an answer is kept; zero means TTL.
	TTL time.Duration
	// RunTTL is how long a claim lives in Redis at most; zero means
	// DefaultRunTTL.
	RunTTL time.Duration
	// PerKey bounds the answers of one API key, in process and in Redis;
	// Total bounds the process's (judge/internal/perkey). Zero fields mean
	// perkey's defaults.
	PerKey, Total perkey.Limits
	// Timeout bounds each Redis call; zero means perkey.DefaultRedisTimeout.
	Timeout time.Duration
	// Logger hears when Redis is lost and when it is back.
	Logger *slog.Logger
}

// Store holds claims and answers. It is safe for concurrent use.
type Store struct {
	local *memory
	// remote is nil without Redis.
	remote *remote
	ttl    time.Duration
}

// New returns a store for s. With s.Redis set it pings Redis once (within
// a second); an unreachable Redis is not an error.
func New(ctx context.Context, s Settings) *Store {
	if s.TTL <= 0 {
		s.TTL = TTL
	}
	if s.RunTTL <= 0 {
		s.RunTTL = DefaultRunTTL
	}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	st := &Store{local: newMemory(perkey.NewMemory(s.PerKey, s.Total)), ttl: s.TTL}
	if s.Redis != nil {
		st.remote = &remote{runTTL: s.RunTTL, Redis: perkey.NewRedis(ctx, perkey.RedisSettings{
			Client: s.Redis, Prefix: s.Prefix + "idem:", PerKey: s.PerKey, Timeout: s.Timeout,
			What: "idempotency keys", Logger: s.Logger,
		})}
	}
	return st
}

// Claim is a key held by a running request. Exactly one of Finish and
// Release should be called; both are no-ops on a nil Claim.
type Claim struct {
	s     *Store
	owner string
	key   string
	fp    string
	token string
	// inRedis says where the claim was made, and so where it ends.
	inRedis bool
}

// Begin claims key, one of owner's (the API key's id), for the request
// with fingerprint fp, or says why not: the answer to replay (Replay), the
// same request running (InUse), or the key taken by another request
// (Reused). Only with Started is the Claim non-nil.
func (s *Store) Begin(ctx context.Context, owner, key, fp string) (Outcome, Answer, *Claim) {
	c := &Claim{s: s, owner: owner, key: key, fp: fp, token: newToken()}
	if s.remote != nil && s.remote.Use() {
		// What this process kept while Redis was away still counts.
		if out, a, found := s.local.lookup(owner, key, fp); found {
			return out, a, nil
		}
		out, a, err := s.remote.begin(ctx, c)
		if s.remote.Noted(err) {
			c.inRedis = true
			if out != Started {
				c = nil
			}
			return out, a, c
		}
	}
	out, a := s.local.begin(c)
	if out != Started {
		c = nil
	}
	return out, a, c
}

// Finish stores a for the claim's key for the store's TTL and ends the
// claim. An answer too large to keep only ends the claim, so a retry runs
// again.
func (c *Claim) Finish(ctx context.Context, a Answer) {
	if c == nil {
		return
	}
	val := encodeAnswer(c.fp, a)
	if c.inRedis {
		// A failure leaves the claim to expire after RunTTL: until then a
		// retry is told the key is in use, after it the request runs again.
		stored, err := c.s.remote.finish(ctx, c, val, c.s.ttl)
		if c.s.remote.Noted(err) && !stored {
			c.Release(ctx)
		}
		return
	}
	c.s.local.finish(c, val, c.s.ttl)
}

// Release ends the claim without an answer, so a retry runs the request.
func (c *Claim) Release(ctx context.Context) {
	if c == nil {
		return
	}
	if c.inRedis {
		c.s.remote.Noted(c.s.remote.release(ctx, c))
		return
	}
	c.s.local.release(c.key, c.token)
}

// Usage reports what owner's answers take where they are kept now:
// entries and the bytes counted against its bound.
func (s *Store) Usage(ctx context.Context, owner string) (entries int, bytes int64, err error) {
	if s.remote != nil && s.remote.Up() {
		return s.remote.Usage(ctx, owner)
	}
	entries, bytes = s.local.answers.Usage(owner)
	return entries, bytes, nil
}

// Shared reports whether the store was given a Redis.
func (s *Store) Shared() bool { return s.remote != nil }

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
