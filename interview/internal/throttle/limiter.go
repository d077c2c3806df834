// Package throttle slows down password guessing, mass registration and
// the guessing of share links: which token buckets a request takes from,
// per client address, per account, per known device and for the whole
// service, and which requests give their token back. The buckets, and the
// devices known to an account, are kept by a store (interview.Buckets,
// interview.KnownDevices; package postgres) on its clock, so every replica
// counts against the same ones.
package throttle

import (
	"context"
	"net/netip"
	"time"

	"github.com/judgeworks/interview"
)

// Rule is a token bucket: Burst attempts at once, then one per Every.
type Rule struct {
	Burst int
	Every time.Duration
}

// limiter holds one token bucket per key for one rule.
type limiter struct {
	buckets interview.Buckets
	bucket  interview.Bucket
}

// newLimiter returns the limiter named name (its rows' name) for rule.
func newLimiter(buckets interview.Buckets, name string, rule Rule) *limiter {
	return &limiter{buckets: buckets, bucket: interview.Bucket{Name: name, Burst: rule.Burst, Every: rule.Every}}
}

// allow takes a token from key's bucket if it has one. Otherwise it takes
// nothing and returns how long until a token will be there.
func (l *limiter) allow(ctx context.Context, key string) (bool, time.Duration, error) {
	return l.buckets.Take(ctx, l.bucket, key)
}

// refund gives back a token taken by allow, up to the burst.
func (l *limiter) refund(ctx context.Context, key string) error {
	return l.buckets.GiveBack(ctx, l.bucket, key)
}

// prune deletes the buckets that have refilled.
func (l *limiter) prune(ctx context.Context) error { return l.buckets.Prune(ctx, l.bucket) }

// Seen remembers keys for a while.
type Seen struct {
	known interview.KnownDevices
	ttl   time.Duration
}

// NewSeen returns a Seen keeping keys for ttl.
func NewSeen(known interview.KnownDevices, ttl time.Duration) *Seen {
	return &Seen{known: known, ttl: ttl}
}

// Add remembers key from now on.
func (s *Seen) Add(ctx context.Context, key string) error { return s.known.Add(ctx, key) }

// Has reports whether key was added within the ttl.
func (s *Seen) Has(ctx context.Context, key string) (bool, error) {
	return s.known.Has(ctx, key, s.ttl)
}

func (s *Seen) prune(ctx context.Context) error { return s.known.Prune(ctx, s.ttl) }

// Network names the bucket of a client address: an IPv4 address itself, an
// IPv6 address its /64. One subscriber's network is a /64 at least, and a
// host in it can use any of its 2^64 addresses, so counting addresses
// would give a guesser a fresh bucket per attempt. Anything that is not an
// address is its own bucket.
func Network(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, err := ip.Prefix(64)
	if err != nil {
		return ip.String()
	}
	return p.String()
}
