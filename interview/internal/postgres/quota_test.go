package postgres

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/shared/pgtest"
)

var ctx = context.Background()

// newDB returns a pool on a new migrated database, and the database's URL
// for a second pool standing in for a second replica. (Package dbtest does
// the same for other packages; it imports this one.)
func newDB(t *testing.T) (*pgxpool.Pool, string) {
	url := pgtest.NewDatabase(t)
	return openDB(t, url), url
}

func openDB(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := OpenMigrated(ctx, url, 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func newUser(t *testing.T, db *pgxpool.Pool, email string) string {
	t.Helper()
	var id string
	if err := db.QueryRow(ctx, `INSERT INTO users (full_name, email, password_hash) VALUES ('U', $1, 'x') RETURNING id::text`, email).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// age moves every row of the table back by d, as if d had passed.
func age(t *testing.T, db *pgxpool.Pool, table, column string, d time.Duration) {
	t.Helper()
	if _, err := db.Exec(ctx, "UPDATE "+table+" SET "+column+" = "+column+" - $1::float8 * interval '1 second'", d.Seconds()); err != nil {
		t.Fatal(err)
	}
}

func take(t *testing.T, db querier, b interview.Bucket, k key) (bool, time.Duration) {
	t.Helper()
	ok, wait, err := takeToken(ctx, db, b, k)
	if err != nil {
		t.Fatal(err)
	}
	return ok, wait
}

// within fails unless wait is in (want-slack, want]: time passes between
// statements, so a wait can only be shorter than the figure, by a little.
func within(t *testing.T, what string, wait, want time.Duration) {
	t.Helper()
	if wait > want || wait <= want-2*time.Second {
		t.Fatalf("%s: wait %v, want just under %v", what, wait, want)
	}
}

func TestBucketBurstRefillWaitAndGiveBack(t *testing.T) {
	db, _ := newDB(t)
	b := interview.Bucket{Name: "test", Burst: 3, Every: 10 * time.Second}
	k := digestKey("k")
	for i := range 3 {
		if ok, _ := take(t, db, b, k); !ok {
			t.Fatalf("take %d refused within the burst", i+1)
		}
	}
	ok, wait := take(t, db, b, k)
	if ok {
		t.Fatal("a fourth take passed a burst of 3")
	}
	within(t, "after the burst", wait, 10*time.Second)
	age(t, db, "quota_buckets", "updated_at", 4*time.Second)
	ok, wait = take(t, db, b, k)
	if ok {
		t.Fatal("passed 4 s after the burst")
	}
	within(t, "4 s later", wait, 6*time.Second)
	age(t, db, "quota_buckets", "updated_at", 6*time.Second)
	if ok, _ := take(t, db, b, k); !ok {
		t.Fatal("refused after a full interval")
	}
	if ok, _ := take(t, db, b, digestKey("other")); !ok {
		t.Fatal("keys share a bucket")
	}
	if ok, _ := take(t, db, interview.Bucket{Name: "another rule", Burst: 1, Every: time.Hour}, k); !ok {
		t.Fatal("rules share a bucket")
	}
	// Giving back never goes beyond the burst.
	age(t, db, "quota_buckets", "updated_at", time.Hour)
	for range 10 {
		if err := giveBackToken(ctx, db, b, k); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		if ok, _ := take(t, db, b, k); ok != (i < 3) {
			t.Fatalf("take %d after giving back: %v", i+1, ok)
		}
	}
	// A given-back token is there at once.
	if err := giveBackToken(ctx, db, b, k); err != nil {
		t.Fatal(err)
	}
	if ok, _ := take(t, db, b, k); !ok {
		t.Fatal("the token given back was not there")
	}
}

// Concurrent takes through two pools, as from two replicas, never get more
// than the burst between them.
func TestBucketConcurrentTakesNeverExceedBurst(t *testing.T) {
	db, url := newDB(t)
	pools := []*pgxpool.Pool{db, openDB(t, url)}
	b := interview.Bucket{Name: "test", Burst: 5, Every: time.Hour}
	var allowed atomic.Int32
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			ok, _, err := takeToken(ctx, pools[i%2], b, digestKey("k"))
			if err != nil {
				t.Error(err)
			}
			if ok {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	if n := allowed.Load(); n != 5 {
		t.Fatalf("%d of 100 concurrent takes allowed, want 5", n)
	}
}

func TestBucketPruneForgetsOnlyFullBuckets(t *testing.T) {
	db, _ := newDB(t)
	b := interview.Bucket{Name: "test", Burst: 2, Every: time.Minute}
	take(t, db, b, digestKey("old"))
	age(t, db, "quota_buckets", "updated_at", 2*time.Minute+time.Second)
	take(t, db, b, digestKey("new"))
	take(t, db, interview.Bucket{Name: "other", Burst: 1, Every: time.Second}, digestKey("old"))
	age(t, db, "quota_buckets", "updated_at", 0)
	if err := pruneBuckets(ctx, db, b); err != nil {
		t.Fatal(err)
	}
	var names []string
	rows, err := db.Query(ctx, `SELECT name FROM quota_buckets ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if len(names) != 2 || names[0] != "other" || names[1] != "test" {
		t.Fatalf("left after pruning: %v, want the other rule's and the fresh one", names)
	}
}

func TestDailySpendRefundAndNextDay(t *testing.T) {
	db, _ := newDB(t)
	alice, bob := userKey(newUser(t, db, "alice@example.com")), userKey(newUser(t, db, "bob@example.com"))
	d, other := daily("test"), daily("other")
	spend := func(name string, d daily, k key, amount int64, want bool) {
		t.Helper()
		ok, wait, err := d.spend(ctx, db, k, amount, 1000)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ok != want {
			t.Fatalf("%s: ok %v, want %v", name, ok, want)
		}
		if !ok && (wait <= 0 || wait > 24*time.Hour) {
			t.Fatalf("%s: wait %v, want the time until midnight UTC", name, wait)
		}
	}
	spend("first spend", d, alice, 600, true)
	spend("up to the limit exactly", d, alice, 400, true)
	spend("one more is over", d, alice, 1, false)
	spend("another rule has its own allowance", other, alice, 1000, true)
	spend("another user has their own allowance", d, bob, 1000, true)
	spend("more than the limit at once", d, digestKey("x"), 1001, false)
	if err := d.refund(ctx, db, alice, 300); err != nil {
		t.Fatal(err)
	}
	spend("after a refund", d, alice, 300, true)
	spend("and no more", d, alice, 1, false)
	if err := d.refund(ctx, db, alice, 5000); err != nil {
		t.Fatal(err)
	}
	spend("an over-refund stops at zero", d, alice, 1000, true)
	// The next UTC day starts afresh.
	if _, err := db.Exec(ctx, `UPDATE quota_days SET day = day - 1`); err != nil {
		t.Fatal(err)
	}
	spend("the next day", d, alice, 1000, true)
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM quota_days`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d rows (%v), want one per rule and key (3)", n, err)
	}
	// A refund after midnight does not touch the new day.
	if _, err := db.Exec(ctx, `UPDATE quota_days SET day = day - 1`); err != nil {
		t.Fatal(err)
	}
	if err := d.refund(ctx, db, bob, 1000); err != nil {
		t.Fatal(err)
	}
	spend("bob's next day", d, bob, 1000, true)
	spend("bob's next day, over", d, bob, 1, false)
	// A user's rows go with the account.
	if _, err := db.Exec(ctx, `DELETE FROM users WHERE email = 'alice@example.com'`); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(ctx, `SELECT count(*) FROM quota_days`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d rows (%v) after alice's account went, want bob's 1", n, err)
	}
}

func TestDailyConcurrentSpendsNeverOvershoot(t *testing.T) {
	db, _ := newDB(t)
	k := userKey(newUser(t, db, "alice@example.com"))
	const workers, amount, limit = 24, 100, 1000
	var granted atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			ok, _, err := daily("test").spend(ctx, db, k, amount, limit)
			if err != nil {
				t.Error(err)
			}
			if ok {
				granted.Add(1)
			}
		})
	}
	wg.Wait()
	if granted.Load() != limit/amount {
		t.Fatalf("%d spends granted, want exactly %d", granted.Load(), limit/amount)
	}
}
