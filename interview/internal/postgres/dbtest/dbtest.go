// Package dbtest gives a test a database of its own with the service's
// migrations applied. The test binary's TestMain must run pgtest.Main,
// which starts the Postgres server (or uses TEST_DATABASE_URL).
package dbtest

import (
	"context"
	"testing"

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
