package voice

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview/internal/postgres"
	"github.com/judgeworks/shared/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// migratedDB returns a pool on a fresh database with the service's
// migrations applied, and two users.
func migratedDB(t *testing.T) (*pgxpool.Pool, string, string) {
	t.Helper()
	ctx := context.Background()
	pool, err := postgres.Open(ctx, pgtest.NewDatabase(t), 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
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

func usedOf(t *testing.T, pool *pgxpool.Pool, user string, day time.Time, r Resource) int64 {
	t.Helper()
	var used int64
	err := pool.QueryRow(context.Background(),
		`SELECT COALESCE(SUM(used), 0) FROM voice_usage WHERE user_id = $1 AND day = $2 AND resource = $3`,
		user, utcDay(day), string(r)).Scan(&used)
	if err != nil {
		t.Fatal(err)
	}
	return used
}

func TestUsageSpendAndRefund(t *testing.T) {
	pool, alice, bob := migratedDB(t)
	u := NewUsage(pool)
	ctx := context.Background()
	day := time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC)
	nextDay := day.Add(time.Hour)

	steps := []struct {
		name   string
		user   string
		at     time.Time
		r      Resource
		amount int64
		ok     bool
	}{
		{"first spend", alice, day, SpeechChars, 600, true},
		{"up to the limit exactly", alice, day, SpeechChars, 400, true},
		{"one more is over", alice, day, SpeechChars, 1, false},
		{"another resource has its own budget", alice, day, TranscribeBytes, 1000, true},
		{"another user has their own budget", bob, day, SpeechChars, 1000, true},
		{"the next UTC day starts afresh", alice, nextDay, SpeechChars, 1000, true},
		{"more than the limit at once", bob, nextDay, SpeechChars, 1001, false},
	}
	for _, s := range steps {
		ok, err := u.Spend(ctx, s.user, s.at, s.r, s.amount, 1000)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if ok != s.ok {
			t.Fatalf("%s: ok = %v, want %v", s.name, ok, s.ok)
		}
	}
	if got := usedOf(t, pool, alice, day, SpeechChars); got != 1000 {
		t.Fatalf("alice used %d, want 1000 (a refused spend must not count)", got)
	}
	if got := usedOf(t, pool, bob, nextDay, SpeechChars); got != 0 {
		t.Fatalf("bob's refused first spend of the day counted %d", got)
	}
	if err := u.Refund(ctx, alice, day, SpeechChars, 300); err != nil {
		t.Fatal(err)
	}
	if ok, err := u.Spend(ctx, alice, day, SpeechChars, 300, 1000); err != nil || !ok {
		t.Fatalf("spend after refund: %v %v", ok, err)
	}
	if err := u.Refund(ctx, alice, day, SpeechChars, 5000); err != nil {
		t.Fatal(err)
	}
	if got := usedOf(t, pool, alice, day, SpeechChars); got != 0 {
		t.Fatalf("over-refund left %d, want 0", got)
	}
}

func TestUsageConcurrentSpendsNeverOvershoot(t *testing.T) {
	pool, alice, _ := migratedDB(t)
	u := NewUsage(pool)
	day := time.Now()
	const workers, amount, limit = 24, 100, 1000
	var granted atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ok, err := u.Spend(context.Background(), alice, day, SpeechChars, amount, limit)
			if err != nil {
				t.Error(err)
			}
			if ok {
				granted.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	if granted.Load() != limit/amount {
		t.Fatalf("%d spends granted, want exactly %d", granted.Load(), limit/amount)
	}
	if got := usedOf(t, pool, alice, day, SpeechChars); got != limit {
		t.Fatalf("used %d, want %d", got, limit)
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
	if got := usedOf(t, pool, alice, time.Now(), SpeechChars); got != 27 {
		t.Fatalf("used %d characters, want 27", got)
	}
}
