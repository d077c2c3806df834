// Package throttle slows down password guessing and mass registration:
// token buckets per client address, per account and for the whole service,
// kept in Postgres so that every replica of the service counts against the
// same buckets and a restart forgets nothing.
//
// Postgres rather than Redis: the service needs Postgres anyway, a sign-in
// already costs a query there, and the throttle adds one or two indexed
// single-row statements to it; Redis would be a second store to run and
// secure for a rate of requests Postgres takes without notice.
package throttle

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DB is what the throttle needs of a pool or connection.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Rule is a token bucket: Burst attempts at once, then one per Every.
type Rule struct {
	Burst int
	Every time.Duration
}

// refill is how long an empty bucket takes to be full again; a bucket
// untouched that long is the same as none.
func (r Rule) refill() time.Duration { return time.Duration(r.Burst) * r.Every }

// Limiter holds one token bucket per key for one rule.
type Limiter struct {
	db   DB
	name string
	rule Rule
	now  func() time.Time
}

// NewLimiter returns the Limiter named name (its rows' rule column) for
// rule; now is the clock (nil: time.Now).
func NewLimiter(db DB, name string, rule Rule, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{db: db, name: name, rule: rule, now: now}
}

// The take and the check are one statement: the conflict arm updates only
// while the refilled bucket holds a token, and the row lock it takes
// serialises concurrent attempts, on one replica or several. A new bucket
// starts full, less the token taken. No row back means no token.
const allowSQL = `
INSERT INTO throttle_buckets AS b (rule, key, tokens, at)
VALUES ($1, $2, $3::float8 - 1, $4)
ON CONFLICT (rule, key) DO UPDATE
   SET tokens = LEAST($3::float8, b.tokens + GREATEST(EXTRACT(EPOCH FROM ($4 - b.at))::float8, 0) / $5::float8) - 1,
       at = GREATEST(b.at, $4)
 WHERE LEAST($3::float8, b.tokens + GREATEST(EXTRACT(EPOCH FROM ($4 - b.at))::float8, 0) / $5::float8) >= 1
RETURNING tokens`

const bucketSQL = `SELECT tokens, at FROM throttle_buckets WHERE rule = $1 AND key = $2`

const refundSQL = `
UPDATE throttle_buckets SET tokens = LEAST($3::float8, tokens + 1)
 WHERE rule = $1 AND key = $2`

const pruneBucketsSQL = `DELETE FROM throttle_buckets WHERE rule = $1 AND at < $2`

// Allow takes a token from key's bucket if it has one. Otherwise it takes
// nothing and returns how long until a token will be there.
func (l *Limiter) Allow(ctx context.Context, key string) (bool, time.Duration, error) {
	now := l.now()
	every := l.rule.Every.Seconds()
	var left float64
	err := l.db.QueryRow(ctx, allowSQL, l.name, digest(key), float64(l.rule.Burst), now, every).Scan(&left)
	if err == nil {
		return true, 0, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return false, 0, err
	}
	var (
		tokens float64
		at     time.Time
	)
	err = l.db.QueryRow(ctx, bucketSQL, l.name, digest(key)).Scan(&tokens, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, l.rule.Every, nil // pruned in between: the wait is a guess
	}
	if err != nil {
		return false, 0, err
	}
	refilled := min(float64(l.rule.Burst), tokens+max(now.Sub(at).Seconds(), 0)/every)
	return false, time.Duration((1 - refilled) * float64(l.rule.Every)), nil
}

// Refund gives back a token taken by Allow, up to the burst.
func (l *Limiter) Refund(ctx context.Context, key string) error {
	_, err := l.db.Exec(ctx, refundSQL, l.name, digest(key), float64(l.rule.Burst))
	return err
}

// prune deletes the buckets that have refilled.
func (l *Limiter) prune(ctx context.Context) error {
	_, err := l.db.Exec(ctx, pruneBucketsSQL, l.name, l.now().Add(-l.rule.refill()))
	return err
}

// Seen remembers keys for a while.
type Seen struct {
	db  DB
	ttl time.Duration
	now func() time.Time
}

// NewSeen returns a Seen keeping keys for ttl; now is the clock (nil:
// time.Now).
func NewSeen(db DB, ttl time.Duration, now func() time.Time) *Seen {
	if now == nil {
		now = time.Now
	}
	return &Seen{db: db, ttl: ttl, now: now}
}

const (
	seenAddSQL = `
INSERT INTO throttle_known (key, at) VALUES ($1, $2)
ON CONFLICT (key) DO UPDATE SET at = GREATEST(throttle_known.at, EXCLUDED.at)`
	seenHasSQL   = `SELECT EXISTS (SELECT 1 FROM throttle_known WHERE key = $1 AND at > $2)`
	seenPruneSQL = `DELETE FROM throttle_known WHERE at <= $1`
)

// Add remembers key from now on.
func (s *Seen) Add(ctx context.Context, key string) error {
	_, err := s.db.Exec(ctx, seenAddSQL, digest(key), s.now())
	return err
}

// Has reports whether key was added within the ttl.
func (s *Seen) Has(ctx context.Context, key string) (bool, error) {
	var ok bool
	err := s.db.QueryRow(ctx, seenHasSQL, digest(key), s.now().Add(-s.ttl)).Scan(&ok)
	return ok, err
}

func (s *Seen) prune(ctx context.Context) error {
	_, err := s.db.Exec(ctx, seenPruneSQL, s.now().Add(-s.ttl))
	return err
}

// digest is what the tables keep of a key: fixed in size whatever the
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
