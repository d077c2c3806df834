package voice

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview/internal/postgres/dbtest"
	"github.com/judgeworks/shared/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// migratedDB returns a pool on a fresh database with the service's
// migrations applied, and two users.
func migratedDB(t *testing.T) (*pgxpool.Pool, string, string) {
	t.Helper()
	ctx := context.Background()
	pool, _ := dbtest.New(t, 20)
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
func usedOf(t *testing.T, pool *pgxpool.Pool, user string, r Resource) int64 {
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

// The counting itself is package quota's, tested there; this is what the
// voice service makes of it.
func TestUsageSpendAndRefund(t *testing.T) {
	pool, alice, bob := migratedDB(t)
	u := NewUsage(pool)
	ctx := context.Background()
	steps := []struct {
		name   string
		user   string
		r      Resource
		amount int64
		ok     bool
	}{
		{"first spend", alice, SpeechChars, 600, true},
		{"up to the limit exactly", alice, SpeechChars, 400, true},
		{"one more is over", alice, SpeechChars, 1, false},
		{"another resource has its own budget", alice, TranscribeBytes, 1000, true},
		{"another user has their own budget", bob, SpeechChars, 1000, true},
		{"more than the limit at once", bob, TranscribeBytes, 1001, false},
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
	if got := usedOf(t, pool, alice, SpeechChars); got != 1000 {
		t.Fatalf("alice used %d, want 1000 (a refused spend must not count)", got)
	}
	if got := usedOf(t, pool, bob, TranscribeBytes); got != 0 {
		t.Fatalf("bob's refused first spend of the day counted %d", got)
	}
	if err := u.Refund(ctx, alice, SpeechChars, 300); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := u.Spend(ctx, alice, SpeechChars, 300, 1000); err != nil || !ok {
		t.Fatalf("spend after refund: %v %v", ok, err)
	}
	// The next UTC day, by the database's clock, starts afresh.
	if _, err := pool.Exec(ctx, `UPDATE quota_days SET day = day - 1`); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := u.Spend(ctx, alice, SpeechChars, 1000, 1000); err != nil || !ok {
		t.Fatalf("spend on the next day: %v %v", ok, err)
	}
}

func TestAllowanceOverLimitIs429(t *testing.T) {
	pool, alice, _ := migratedDB(t)
	streamed := mustEspeak(t, "Next question.")
	f := newFakeProvider(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "audio/wav")
		_, _ = w.Write(streamed)
	})
	cfg := remoteConfig(f)
	cfg.DailySpeechChars = 30
	env := newEnvWith(t, cfg, NewUsage(pool), alice)

	if rec := env.speak("Tell me about yourself."); rec.Code != 200 { // 23 characters
		t.Fatalf("first: status %d body %s", rec.Code, rec.Body)
	}
	rec := env.speak("What is a deadlock?") // 19 more: over 30
	if rec.Code != 429 || errorCode(t, rec) != "rate_limited" {
		t.Fatalf("second: status %d body %s", rec.Code, rec.Body)
	}
	ra, err := strconv.Atoi(rec.Header().Get("Retry-After"))
	if err != nil || ra < 1 || ra > 86400 {
		t.Fatalf("Retry-After %q: want seconds until midnight UTC", rec.Header().Get("Retry-After"))
	}
	if len(f.received()) != 1 {
		t.Fatalf("provider called %d times; the refused request must not reach it", len(f.received()))
	}
	if rec := env.speak("Why?"); rec.Code != 200 { // 23 + 4 fits
		t.Fatalf("small request within what is left: status %d body %s", rec.Code, rec.Body)
	}
	if got := usedOf(t, pool, alice, SpeechChars); got != 27 {
		t.Fatalf("used %d characters, want 27", got)
	}
}
