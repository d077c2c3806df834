package postgres

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview"
)

// migratedDB returns a pool on a fresh database with the service's
// migrations applied, and two users.
func migratedDB(t *testing.T) (*pgxpool.Pool, string, string) {
	t.Helper()
	ctx := context.Background()
	pool, _ := newDB(t)
	var ids [2]string
	for i := range ids {
		err := pool.QueryRow(ctx, `INSERT INTO users (full_name, email, password_hash) VALUES ($1, $2, 'x') RETURNING id::text`,
			"User "+strconv.Itoa(i), "user"+strconv.Itoa(i)+"@example.com").Scan(&ids[i])
		if err != nil {
			t.Fatal(err)
		}
	}
	return pool, ids[0], ids[1]
}

// usedOf is the user's use of r today.
func usedOf(t *testing.T, pool *pgxpool.Pool, user string, r interview.VoiceResource) int64 {
	t.Helper()
	var used int64
	err := pool.QueryRow(context.Background(),
		`SELECT COALESCE(SUM(used), 0) FROM quota_days WHERE user_id = $1 AND name = $2 AND day = (now() AT TIME ZONE 'UTC')::date`,
		user, "voice_"+string(r)).Scan(&used)
	if err != nil {
		t.Fatal(err)
	}
	return used
}

// The counting itself is quota.go's, tested in quota_test.go; this is the
// voice allowance made of it.
func TestVoiceAllowanceSpendAndRefund(t *testing.T) {
	pool, alice, bob := migratedDB(t)
	u := NewVoiceAllowance(pool)
	ctx := context.Background()
	steps := []struct {
		name   string
		user   string
		r      interview.VoiceResource
		amount int64
		ok     bool
	}{
		{"first spend", alice, interview.SpeechChars, 600, true},
		{"up to the limit exactly", alice, interview.SpeechChars, 400, true},
		{"one more is over", alice, interview.SpeechChars, 1, false},
		{"another resource has its own budget", alice, interview.TranscribeBytes, 1000, true},
		{"another user has their own budget", bob, interview.SpeechChars, 1000, true},
		{"more than the limit at once", bob, interview.TranscribeBytes, 1001, false},
	}
	for _, s := range steps {
		ok, wait, err := u.Spend(ctx, s.user, s.r, s.amount, 1000)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if ok != s.ok {
			t.Fatalf("%s: ok = %v, want %v", s.name, ok, s.ok)
		}
		if !ok && (wait <= 0 || wait > 24*time.Hour) {
			t.Fatalf("%s: wait %v, want the time until midnight UTC", s.name, wait)
		}
	}
	if got := usedOf(t, pool, alice, interview.SpeechChars); got != 1000 {
		t.Fatalf("alice used %d, want 1000 (a refused spend must not count)", got)
	}
	if got := usedOf(t, pool, bob, interview.TranscribeBytes); got != 0 {
		t.Fatalf("bob's refused first spend of the day counted %d", got)
	}
	if err := u.Refund(ctx, alice, interview.SpeechChars, 300); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := u.Spend(ctx, alice, interview.SpeechChars, 300, 1000); err != nil || !ok {
		t.Fatalf("spend after refund: %v %v", ok, err)
	}
	// The next UTC day, by the database's clock, starts afresh.
	if _, err := pool.Exec(ctx, `UPDATE quota_days SET day = day - 1`); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := u.Spend(ctx, alice, interview.SpeechChars, 1000, 1000); err != nil || !ok {
		t.Fatalf("spend on the next day: %v %v", ok, err)
	}
}
