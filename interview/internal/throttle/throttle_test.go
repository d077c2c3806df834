package throttle

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/postgres"
	"github.com/judgeworks/interview/internal/postgres/dbtest"
	"github.com/judgeworks/shared/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// newDB returns a migrated database of its own and its URL, for a second
// pool standing in for a second replica.
func newDB(t *testing.T) (*pgxpool.Pool, string) { return dbtest.New(t, 20) }

func openDB(t *testing.T, url string) *pgxpool.Pool { return dbtest.Open(t, url, 20) }

var ctx = context.Background()

var wrongPassword = interview.Errorf(interview.Unauthenticated, "email or password is incorrect")

// age makes every bucket and known device older by d, as the database's
// clock would after d.
func age(t *testing.T, db *pgxpool.Pool, d time.Duration) { dbtest.Age(t, db, d) }

// authOn is the throttle keeping its state in the database of db.
func authOn(db *pgxpool.Pool, rules Rules) *Auth {
	return NewAuth(postgres.NewBuckets(db), postgres.NewKnownDevices(db), rules)
}

// near fails unless a refusal's wait is want or, as time passed between
// the attempts, a little less.
func near(t *testing.T, err error, want time.Duration) {
	t.Helper()
	if d := retryAfter(t, err); d > want || d <= want-5*time.Second {
		t.Fatalf("Retry-After %v, want %v or a little less", d, want)
	}
}

// browser is the sign-in cookie of the one browser a test runs at addr.
func browser(addr string) string { return "browser at " + addr }

// fail runs one failed sign-in from the browser at addr and reports the
// throttle's error.
func fail(a *Auth, email, addr string) error { return signIn(a, email, addr, wrongPassword) }

// succeed runs one sign-in with the right password.
func succeed(a *Auth, email, addr string) error { return signIn(a, email, addr, nil) }

// signIn runs one sign-in from the browser at addr whose password check
// ends in outcome (nil: the right password) and reports the throttle's
// error.
func signIn(a *Auth, email, addr string, outcome error) error {
	done, err := a.Login(ctx, email, addr, browser(addr))
	if err != nil {
		return err
	}
	done(outcome)
	return nil
}

func retryAfter(t *testing.T, err error) time.Duration {
	t.Helper()
	var p *interview.Error
	if !errors.As(err, &p) || p.Code != interview.RateLimited {
		t.Fatalf("error %v is not rate_limited", err)
	}
	return p.RetryAfter
}

func newAuth(t *testing.T, rules Rules) (*Auth, *pgxpool.Pool) {
	t.Helper()
	db, _ := newDB(t)
	return authOn(db, rules), db
}

func TestAccountLimit(t *testing.T) {
	a, db := newAuth(t, DefaultRules)
	for i := range 5 {
		if err := fail(a, "ada@example.com", "198.51.100.1"); err != nil {
			t.Fatalf("failure %d refused: %v", i+1, err)
		}
	}
	// The sixth guess is refused whatever the address and the letter case:
	// guessing from many addresses is as slow as from one.
	near(t, fail(a, " ADA@example.com", "203.0.113.9"), 30*time.Second)
	age(t, db, 10*time.Second)
	near(t, fail(a, "ada@example.com", "198.51.100.1"), 20*time.Second)
	age(t, db, 20*time.Second)
	if err := fail(a, "ada@example.com", "198.51.100.1"); err != nil {
		t.Fatalf("one attempt per 30 s refused: %v", err)
	}
	retryAfter(t, fail(a, "ada@example.com", "198.51.100.1"))
	// Other accounts are not affected.
	if err := succeed(a, "grace@example.com", "198.51.100.1"); err != nil {
		t.Fatal(err)
	}
}

// The owner keeps signing in from the browser where they signed in before,
// while someone guesses the password from elsewhere.
func TestKnownDeviceIsNotLockedOut(t *testing.T) {
	a, db := newAuth(t, DefaultRules)
	home, attacker := "192.0.2.10", "203.0.113.66"
	if err := succeed(a, "ada@example.com", home); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		_ = fail(a, "ada@example.com", attacker)
	}
	retryAfter(t, fail(a, "ada@example.com", attacker))
	retryAfter(t, fail(a, "ada@example.com", "198.51.100.200")) // a new address is held to the account limit
	for i := range 3 {
		if err := succeed(a, "ada@example.com", home); err != nil {
			t.Fatalf("owner's sign-in %d from home refused: %v", i+1, err)
		}
	}
	// Known for KnownDeviceTTL only.
	age(t, db, DefaultRules.KnownDeviceTTL+time.Second)
	for range 5 {
		_ = fail(a, "ada@example.com", attacker)
	}
	retryAfter(t, succeed(a, "ada@example.com", home))
}

func TestAddressLimit(t *testing.T) {
	a, db := newAuth(t, DefaultRules)
	addr := "203.0.113.7"
	for i := range 20 {
		if err := fail(a, fmt.Sprintf("user%d@example.com", i), addr); err != nil {
			t.Fatalf("failure %d refused: %v", i+1, err)
		}
	}
	near(t, fail(a, "fresh@example.com", addr), 6*time.Second)
	// Another address is unaffected; the refused attempt spent nothing of
	// fresh@'s account budget.
	for i := range 5 {
		if err := fail(a, "fresh@example.com", "198.51.100.3"); err != nil {
			t.Fatalf("failure %d from another address refused: %v", i+1, err)
		}
	}
	age(t, db, 6*time.Second)
	if err := fail(a, "other@example.com", addr); err != nil {
		t.Fatalf("one attempt per 6 s refused: %v", err)
	}
}

func TestNetwork(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7":               "203.0.113.7",
		"::ffff:203.0.113.7":        "203.0.113.7",
		"2001:db8:1:2:3:4:5:6":      "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1":      "2001:db8:1:2::/64",
		"2001:db8:1:3::1":           "2001:db8:1:3::/64",
		"fe80::1%eth0":              "fe80::/64",
		"::1":                       "::/64",
		"not an address":            "not an address",
		"2001:0DB8:0001:0002::0001": "2001:db8:1:2::/64",
	} {
		if got := Network(in); got != want {
			t.Errorf("Network(%q) = %q, want %q", in, got, want)
		}
	}
}

// A host picks any address of its /64 at will: a thousand of them are one
// client to the throttle.
func TestIPv6NetworkSharesABucket(t *testing.T) {
	a, _ := newAuth(t, DefaultRules)
	prefix := netip.MustParsePrefix("2001:db8:7:9::/64")
	burst := DefaultRules.LoginPerAddress.Burst
	rng := rand.New(rand.NewPCG(1, 2))
	refused := 0
	for i := range 1000 {
		b := prefix.Addr().As16()
		for j := 8; j < 16; j++ {
			b[j] = byte(rng.Uint32())
		}
		addr := netip.AddrFrom16(b).String()
		err := fail(a, fmt.Sprintf("user%d@example.com", i), addr)
		if err == nil && i >= burst {
			t.Fatalf("attempt %d from %s allowed: the /64 has had its %d", i+1, addr, burst)
		}
		if err != nil {
			if i < burst {
				t.Fatalf("attempt %d refused within the burst: %v", i+1, err)
			}
			retryAfter(t, err)
			refused++
		}
	}
	if refused != 1000-burst {
		t.Fatalf("%d refused, want %d", refused, 1000-burst)
	}
	if err := fail(a, "user1@example.com", "2001:db8:7:a::1"); err != nil {
		t.Fatalf("the next /64 is refused too: %v", err)
	}
}

// smallBreaker keeps the default per-address and per-account rules and
// trips the breaker after 12 failures, so a test reaches it quickly.
var smallBreaker = func() Rules {
	r := DefaultRules
	r.LoginGlobal = Rule{Burst: 12, Every: 10 * time.Second}
	r.RegisterGlobal = Rule{Burst: 6, Every: 10 * time.Second}
	return r
}()

// Failures spread over many addresses and accounts trip the breaker: then
// a browser new to the account cannot sign in, while a known one still
// can, right or wrong password.
func TestGlobalBreakerSparesKnownDevices(t *testing.T) {
	a, db := newAuth(t, smallBreaker)
	if err := succeed(a, "owner@example.com", "192.0.2.10"); err != nil {
		t.Fatal(err)
	}
	for i := range smallBreaker.LoginGlobal.Burst {
		if err := fail(a, fmt.Sprintf("victim%d@example.com", i), fmt.Sprintf("198.51.100.%d", i)); err != nil {
			t.Fatalf("failure %d refused before the breaker trips: %v", i+1, err)
		}
	}
	near(t, fail(a, "victim99@example.com", "198.51.100.99"), 10*time.Second)
	if err := succeed(a, "owner@example.com", "203.0.113.50"); err == nil {
		t.Fatal("a sign-in from an unknown address passed the tripped breaker")
	}
	for i := range 3 {
		if err := fail(a, "owner@example.com", "192.0.2.10"); err != nil {
			t.Fatalf("owner's typo %d from a known address refused: %v", i+1, err)
		}
		if err := succeed(a, "owner@example.com", "192.0.2.10"); err != nil {
			t.Fatalf("owner's sign-in %d from a known address refused: %v", i+1, err)
		}
	}
	// A refused attempt spent nothing: one interval later exactly one
	// unknown attempt passes.
	age(t, db, 10*time.Second)
	if err := fail(a, "victim100@example.com", "198.51.100.100"); err != nil {
		t.Fatalf("after one interval: %v", err)
	}
	retryAfter(t, fail(a, "victim101@example.com", "198.51.100.101"))
}

func TestSuccessesAndOtherErrorsCostNothing(t *testing.T) {
	a, _ := newAuth(t, smallBreaker)
	for i := range 30 {
		if err := succeed(a, fmt.Sprintf("user%d@example.com", i%3), "192.0.2.1"); err != nil {
			t.Fatalf("success %d refused: %v", i+1, err)
		}
	}
	for i := range 30 {
		done, err := a.Login(ctx, "grace@example.com", "192.0.2.2", "")
		if err != nil {
			t.Fatalf("attempt %d refused after database errors: %v", i+1, err)
		}
		done(errors.New("database unreachable"))
	}
}

func TestRegisterLimit(t *testing.T) {
	a, db := newAuth(t, DefaultRules)
	rule := DefaultRules.RegisterPerAddress
	for i := range rule.Burst {
		if err := a.Register(ctx, "203.0.113.8"); err != nil {
			t.Fatalf("registration %d refused: %v", i+1, err)
		}
	}
	near(t, a.Register(ctx, "203.0.113.8"), rule.Every)
	if err := a.Register(ctx, "203.0.113.9"); err != nil {
		t.Fatalf("another address refused: %v", err)
	}
	age(t, db, rule.Every)
	if err := a.Register(ctx, "203.0.113.8"); err != nil {
		t.Fatalf("one per %v refused: %v", rule.Every, err)
	}
}

// Six addresses trying as hard as they can do not use up the service's
// registrations: a seventh registers.
func TestSixAddressesCannotUseUpRegistration(t *testing.T) {
	a, _ := newAuth(t, DefaultRules)
	for i := range 6 {
		for range 50 {
			_ = a.Register(ctx, fmt.Sprintf("203.0.113.%d", i))
		}
	}
	if err := a.Register(ctx, "198.51.100.77"); err != nil {
		t.Fatalf("a seventh address cannot register: %v", err)
	}
}

// Behind one shared address (a NAT, or a proxy not configured as trusted)
// someone fails sign-ins with random emails, against the owner's account
// and until the service's breaker trips. The owner's correct password from
// the browser where they signed in before still signs in, and the owner's
// own typos there are held to that browser's limit.
func TestOthersFailuresNeverRefuseAKnownDevice(t *testing.T) {
	a, _ := newAuth(t, smallBreaker)
	shared := "192.0.2.99"
	owner := "owner's browser"
	ok := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("the owner was refused: %v", err)
		}
	}
	login := func(email, device string, err error) error {
		done, lerr := a.Login(ctx, email, shared, device)
		if lerr != nil {
			return lerr
		}
		done(err)
		return nil
	}
	ok(login("owner@example.com", owner, nil))
	for i := range 40 {
		_ = login(fmt.Sprintf("random%d@example.com", i), "", wrongPassword)
		_ = login("owner@example.com", "", wrongPassword)
		_ = login("owner@example.com", "the guesser's browser", wrongPassword)
	}
	retryAfter(t, login("owner@example.com", "", nil)) // everything else is throttled
	for range 3 {
		ok(login("owner@example.com", owner, nil))
	}
	for i := range smallBreaker.LoginPerDevice.Burst {
		if err := login("owner@example.com", owner, wrongPassword); err != nil {
			t.Fatalf("the owner's typo %d refused: %v", i+1, err)
		}
	}
	retryAfter(t, login("owner@example.com", owner, nil))
	// A device is known to the account it signed in to, not to another.
	retryAfter(t, login("other@example.com", owner, nil))
}

func TestGlobalRegistrationLimit(t *testing.T) {
	a, db := newAuth(t, smallBreaker)
	for i := range smallBreaker.RegisterGlobal.Burst {
		if err := a.Register(ctx, fmt.Sprintf("198.51.100.%d", i)); err != nil {
			t.Fatalf("registration %d refused: %v", i+1, err)
		}
	}
	near(t, a.Register(ctx, "203.0.113.1"), 10*time.Second)
	// The refusal did not cost the new address its own budget.
	age(t, db, 10*time.Second)
	if err := a.Register(ctx, "203.0.113.1"); err != nil {
		t.Fatalf("after one interval: %v", err)
	}
	for range smallBreaker.RegisterPerAddress.Burst - 1 {
		age(t, db, 10*time.Second)
		if err := a.Register(ctx, "203.0.113.1"); err != nil {
			t.Fatalf("the address's own budget shrank: %v", err)
		}
	}
}

// Two instances on one database are one throttle: failures counted by one
// refuse on the other, and a browser known to one is known to both.
func TestReplicasShareState(t *testing.T) {
	db, url := newDB(t)
	one, two := authOn(db, DefaultRules), authOn(openDB(t, url), DefaultRules)
	for i := range DefaultRules.LoginPerAccount.Burst {
		replica := []*Auth{one, two}[i%2]
		if err := fail(replica, "ada@example.com", fmt.Sprintf("203.0.113.%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	retryAfter(t, fail(one, "ada@example.com", "203.0.113.200"))
	retryAfter(t, fail(two, "ada@example.com", "203.0.113.201"))
	for i := range DefaultRules.RegisterPerAddress.Burst {
		if err := []*Auth{one, two}[i%2].Register(ctx, "198.51.100.9"); err != nil {
			t.Fatal(err)
		}
	}
	retryAfter(t, two.Register(ctx, "198.51.100.9"))

	age(t, db, time.Hour)
	if err := succeed(one, "grace@example.com", "192.0.2.44"); err != nil {
		t.Fatal(err)
	}
	for i := range DefaultRules.LoginPerAccount.Burst {
		_ = fail(one, "grace@example.com", fmt.Sprintf("203.0.113.%d", 50+i))
	}
	if err := succeed(two, "grace@example.com", "192.0.2.44"); err != nil {
		t.Fatalf("the other replica does not know grace's address: %v", err)
	}
}

func TestPruneForgetsOnlyWhatExpired(t *testing.T) {
	a, db := newAuth(t, DefaultRules)
	count := func(table string) int { t.Helper(); return dbtest.Count(t, db, table) }
	for i := range 50 {
		_ = fail(a, fmt.Sprintf("user%d@example.com", i), fmt.Sprintf("198.51.100.%d", i))
	}
	if err := succeed(a, "ada@example.com", "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	buckets := count("quota_buckets")
	if buckets < 100 || count("throttle_known") != 1 {
		t.Fatalf("%d buckets and %d known addresses after 50 failures and a success", buckets, count("throttle_known"))
	}
	// Within every rule's refill time nothing goes; the address limit
	// (2 min) and the account limit (2.5 min) are full after 10 minutes.
	a.prune(ctx)
	if got := count("quota_buckets"); got != buckets {
		t.Fatalf("%d of %d buckets left after pruning within their refill time", got, buckets)
	}
	age(t, db, pruneEvery)
	_ = fail(a, "late@example.com", "203.0.113.1")
	a.prune(ctx)
	if got := count("quota_buckets"); got != 3 {
		t.Fatalf("%d buckets left, want the newest attempt's 3", got)
	}
	if got := count("throttle_known"); got != 1 {
		t.Fatalf("the known address was pruned within its 30 days: %d left", got)
	}
	age(t, db, DefaultRules.KnownDeviceTTL)
	_ = fail(a, "later@example.com", "203.0.113.2")
	a.prune(ctx)
	if got := count("throttle_known"); got != 0 {
		t.Fatalf("%d known addresses left after their time", got)
	}
	// What remains is the last attempt's buckets: its address, its account
	// and the breaker's one.
	if got := count("quota_buckets"); got != 3 {
		t.Fatalf("%d buckets left, want the last attempt's 3", got)
	}
}
