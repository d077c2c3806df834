package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview"
)

// Buckets keeps the throttles' token buckets in quota_buckets, each key by
// its digest. It implements interview.Buckets.
type Buckets struct {
	pool *pgxpool.Pool
}

var _ interview.Buckets = (*Buckets)(nil)

// NewBuckets returns the buckets on pool.
func NewBuckets(pool *pgxpool.Pool) *Buckets { return &Buckets{pool: pool} }

func (s *Buckets) Take(ctx context.Context, b interview.Bucket, key string) (bool, time.Duration, error) {
	return takeToken(ctx, s.pool, b, digestKey(key))
}

func (s *Buckets) GiveBack(ctx context.Context, b interview.Bucket, key string) error {
	return giveBackToken(ctx, s.pool, b, digestKey(key))
}

func (s *Buckets) Prune(ctx context.Context, b interview.Bucket) error {
	return pruneBuckets(ctx, s.pool, b)
}

// KnownDevices keeps the browsers known to an account in throttle_known,
// each key by its digest, on the database's clock. It implements
// interview.KnownDevices.
type KnownDevices struct {
	pool *pgxpool.Pool
}

var _ interview.KnownDevices = (*KnownDevices)(nil)

// NewKnownDevices returns the known devices on pool.
func NewKnownDevices(pool *pgxpool.Pool) *KnownDevices { return &KnownDevices{pool: pool} }

const (
	knownAddSQL = `
INSERT INTO throttle_known (key, at) VALUES ($1, now())
ON CONFLICT (key) DO UPDATE SET at = GREATEST(throttle_known.at, EXCLUDED.at)`
	knownHasSQL   = `SELECT EXISTS (SELECT 1 FROM throttle_known WHERE key = $1 AND at > now() - $2::float8 * interval '1 second')`
	knownPruneSQL = `DELETE FROM throttle_known WHERE at <= now() - $1::float8 * interval '1 second'`
)

func (s *KnownDevices) Add(ctx context.Context, key string) error {
	_, err := s.pool.Exec(ctx, knownAddSQL, digestKey(key).key)
	return err
}

func (s *KnownDevices) Has(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, knownHasSQL, digestKey(key).key, ttl.Seconds()).Scan(&ok)
	return ok, err
}

func (s *KnownDevices) Prune(ctx context.Context, ttl time.Duration) error {
	_, err := s.pool.Exec(ctx, knownPruneSQL, ttl.Seconds())
	return err
}
