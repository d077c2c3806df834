package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestNewDatabaseIsFreshAndIsolated(t *testing.T) {
	ctx := context.Background()
	a, b := NewDatabase(t), NewDatabase(t)
	if a == b {
		t.Fatalf("two tests got the same database %s", a)
	}
	ca, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(ctx)
	if _, err := ca.Exec(ctx, "CREATE TABLE t (x int); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(ctx)
	var n int
	err = cb.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_name = 't'").Scan(&n)
	if err != nil || n != 0 {
		t.Fatalf("table leaked across databases: n=%d err=%v", n, err)
	}
	if os.Getenv(EnvURL) == "" {
		t.Fatalf("%s not exported for child processes", EnvURL)
	}
}
