// Package idempotency remembers the answers of requests sent with an
// Idempotency-Key, so that a client retrying after a timeout gets the first
// answer instead of paying for a second one. A key is claimed while its
// request runs (a retry meanwhile learns it is in use), and the answer is
// kept for TTL once it is stored, bounded per API key (judge/internal/perkey).
// Claims and answers live in a store (judge/internal/store): in the
// process, or in Redis shared by every replica, with the process's own
// standing in while Redis cannot be reached (store.Fallback).
package idempotency

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/judgeworks/judge/internal/perkey"
	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/memory"
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
	// Store holds them; nil keeps them in this process.
	Store store.Answers
	// TTL is how long an answer is kept; zero means TTL.
	TTL time.Duration
	// RunTTL is how long a claim lives at most; zero means DefaultRunTTL.
	RunTTL time.Duration
	// PerKey bounds the answers of one API key; Total bounds all of them
	// where one process keeps them (judge/internal/perkey). Zero fields
	// mean perkey's defaults.
	PerKey, Total perkey.Limits
}

// space is where the answers live in a store: in Redis, under the prefix
// and "idem:".
const space = "idem:"

// Store holds claims and answers. It is safe for concurrent use.
type Store struct {
	st          store.Answers
	sp          store.Space
	ttl, runTTL time.Duration
}

// New returns a store for s.
func New(_ context.Context, s Settings) *Store {
	if s.TTL <= 0 {
		s.TTL = TTL
	}
	if s.RunTTL <= 0 {
		s.RunTTL = DefaultRunTTL
	}
	if s.Store == nil {
		s.Store = memory.New()
	}
	return &Store{st: s.Store, sp: store.Space{Name: space, PerOwner: s.PerKey, Total: s.Total}, ttl: s.TTL, runTTL: s.RunTTL}
}

// Claim is a key held by a running request. Exactly one of Finish and
// Release should be called; both are no-ops on a nil Claim.
type Claim struct {
	s     *Store
	owner string
	key   string
	fp    string
	// held is what the claim puts in the key's slot: its fingerprint and a
	// token of its own, so that only this request ends it.
	held []byte
}

// Begin claims key, one of owner's (the API key's id), for the request
// with fingerprint fp, or says why not: the answer to replay (Replay), the
// same request running (InUse), or the key taken by another request
// (Reused). Only with Started is the Claim non-nil.
func (s *Store) Begin(ctx context.Context, owner, key, fp string) (Outcome, Answer, *Claim) {
	c := &Claim{s: s, owner: owner, key: key, fp: fp, held: encodeClaim(fp, newToken())}
	held, claimed, err := s.st.Claim(ctx, s.sp, key, c.held, s.runTTL)
	switch {
	case err != nil:
		// A store that cannot say: as a request running, to be retried.
		return InUse, Answer{}, nil
	case claimed:
		return Started, Answer{}, c
	}
	heldFP, a, isAnswer, err := decode(held)
	switch {
	case err != nil || heldFP != fp:
		// Another request's key, or a record no request can replay.
		return Reused, Answer{}, nil
	case isAnswer:
		return Replay, a, nil
	}
	return InUse, Answer{}, nil
}

// Finish stores a for the claim's key for the store's TTL and ends the
// claim. An answer too large to keep only ends the claim, so a retry runs
// again. A store that cannot be written leaves the claim to expire after
// RunTTL: until then a retry is told the key is in use, after it the
// request runs again.
func (c *Claim) Finish(ctx context.Context, a Answer) {
	if c == nil {
		return
	}
	stored, err := c.s.st.Put(ctx, c.s.sp, c.owner, c.key, encodeAnswer(c.fp, a), c.s.ttl, c.held)
	if err == nil && !stored {
		c.Release(ctx)
	}
}

// Release ends the claim without an answer, so a retry runs the request.
func (c *Claim) Release(ctx context.Context) {
	if c == nil {
		return
	}
	_ = c.s.st.Release(ctx, c.s.sp, c.key, c.held)
}

// Usage reports what owner's answers take where they are kept now:
// entries and the bytes counted against its bound.
func (s *Store) Usage(ctx context.Context, owner string) (entries int, bytes int64, err error) {
	return s.st.Held(ctx, s.sp, owner)
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
