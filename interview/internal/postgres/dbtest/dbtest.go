// Package dbtest gives a test a database of its own with the service's
// migrations applied. The test binary's TestMain must run pgtest.Main,
// which starts the Postgres server (or uses TEST_DATABASE_URL).
package dbtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview/internal/postgres"
	"github.com/judgeworks/shared/pgtest"
)

// New returns a pool of at most conns connections on a new migrated
// database, and the database's URL for a second pool standing in for a
// second replica.
func New(t testing.TB, conns int32) (*pgxpool.Pool, string) {
	t.Helper()
	url := pgtest.NewDatabase(t)
	return Open(t, url, conns), url
}

// Open opens a pool of at most conns connections on the database at url,
// migrating it first, and closes the pool when the test ends.
func Open(t testing.TB, url string, conns int32) *pgxpool.Pool {
	t.Helper()
	pool, err := postgres.OpenMigrated(context.Background(), url, conns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// Age makes every token bucket and known browser older by d, as the
// database's clock would after d.
func Age(t testing.TB, pool *pgxpool.Pool, d time.Duration) {
	t.Helper()
	for _, q := range []string{
		`UPDATE quota_buckets SET updated_at = updated_at - $1::float8 * interval '1 second'`,
		`UPDATE throttle_known SET at = at - $1::float8 * interval '1 second'`,
	} {
		if _, err := pool.Exec(context.Background(), q, d.Seconds()); err != nil {
			t.Fatal(err)
		}
	}
}

// Count returns how many rows table holds.
func Count(t testing.TB, pool *pgxpool.Pool, table string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
