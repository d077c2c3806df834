// Package throttle slows down password guessing, mass registration and
// the guessing of share links: which token buckets (package quota) a
// request takes from, per client address, per account, per known device
// and for the whole service, and which requests give their token back.
// The buckets, and the devices known to an account, are kept in Postgres
// on the database's clock, so every replica counts against the same ones.
package throttle

import (
	"context"
	"crypto/sha256"
	"net/netip"
	"time"

	"github.com/judgeworks/interview/internal/quota"
)

// Rule is a token bucket: Burst attempts at once, then one per Every.
type Rule struct {
	Burst int
	Every time.Duration
}

// limiter holds one token bucket per key for one rule (a quota.Bucket),
// keyed by the digest of what it counts.
type limiter struct {
	db     quota.DB
	bucket quota.Bucket
}

// newLimiter returns the limiter named name (its rows' name) for rule.
func newLimiter(db quota.DB, name string, rule Rule) *limiter {
	return &limiter{db: db, bucket: quota.Bucket{Name: name, Burst: rule.Burst, Every: rule.Every}}
}

// allow takes a token from key's bucket if it has one. Otherwise it takes
// nothing and returns how long until a token will be there.
func (l *limiter) allow(ctx context.Context, key string) (bool, time.Duration, error) {
	return l.bucket.Take(ctx, l.db, quota.Digest(key))
}

// refund gives back a token taken by allow, up to the burst.
func (l *limiter) refund(ctx context.Context, key string) error {
	return l.bucket.GiveBack(ctx, l.db, quota.Digest(key))
}

// prune deletes the buckets that have refilled.
func (l *limiter) prune(ctx context.Context) error { return l.bucket.Prune(ctx, l.db) }

// Seen remembers keys for a while, on the database's clock.
type Seen struct {
	db  quota.DB
	ttl time.Duration
}

// NewSeen returns a Seen keeping keys for ttl.
func NewSeen(db quota.DB, ttl time.Duration) *Seen { return &Seen{db: db, ttl: ttl} }

const (
	seenAddSQL = `
INSERT INTO throttle_known (key, at) VALUES ($1, now())
ON CONFLICT (key) DO UPDATE SET at = GREATEST(throttle_known.at, EXCLUDED.at)`
	seenHasSQL   = `SELECT EXISTS (SELECT 1 FROM throttle_known WHERE key = $1 AND at > now() - $2::float8 * interval '1 second')`
	seenPruneSQL = `DELETE FROM throttle_known WHERE at <= now() - $1::float8 * interval '1 second'`
)

// Add remembers key from now on.
func (s *Seen) Add(ctx context.Context, key string) error {
	_, err := s.db.Exec(ctx, seenAddSQL, digest(key))
	return err
}

// Has reports whether key was added within the ttl.
func (s *Seen) Has(ctx context.Context, key string) (bool, error) {
	var ok bool
	err := s.db.QueryRow(ctx, seenHasSQL, digest(key), s.ttl.Seconds()).Scan(&ok)
	return ok, err
}

func (s *Seen) prune(ctx context.Context) error {
	_, err := s.db.Exec(ctx, seenPruneSQL, s.ttl.Seconds())
	return err
}

// digest is what throttle_known keeps of a key: fixed in size whatever the
// request body held, and not the address or email itself.
func digest(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

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
