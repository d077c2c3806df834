package throttle

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/judgeworks/interview/internal/problem"
	"github.com/judgeworks/shared/server"
)

// Rules are the limits of sign-in and registration. Failures cost a token;
// a successful sign-in gives its tokens back, so the rules only bite on
// guessing.
type Rules struct {
	// LoginPerAddress limits failed sign-ins from one address (or IPv6
	// /64), whatever the accounts.
	LoginPerAddress Rule
	// LoginPerAccount limits failed sign-ins to one account, whatever the
	// addresses, so guessing one password from many addresses is slow too.
	LoginPerAccount Rule
	// LoginGlobal is the breaker: failed sign-ins on the whole service.
	// Once it is empty, only known addresses may try to sign in, so a
	// guesser with many addresses and many accounts to try cannot keep up
	// a rate beyond it.
	LoginGlobal Rule
	// RegisterPerAddress and RegisterGlobal limit registrations (and
	// attempts) from one address and on the whole service.
	RegisterPerAddress, RegisterGlobal Rule
	// KnownAddressTTL is how long an address where an account signed in
	// stays known for that account: exempt from the account's limit and
	// from the breaker, so someone guessing the password elsewhere does not
	// lock the owner out of their usual place.
	KnownAddressTTL time.Duration
}

// DefaultRules are the service's limits.
var DefaultRules = Rules{
	// 20 failed sign-ins from one address, then one per 6 s (10 a minute).
	LoginPerAddress: Rule{Burst: 20, Every: 6 * time.Second},
	// 5 failed sign-ins to one account, then one per 30 s.
	LoginPerAccount: Rule{Burst: 5, Every: 30 * time.Second},
	// 300 failed sign-ins on the service, then 5 a second (300 a minute):
	// far above people mistyping, far below what a list of stolen
	// passwords needs.
	LoginGlobal: Rule{Burst: 300, Every: 200 * time.Millisecond},
	// 20 registrations from one address, then one per 6 s.
	RegisterPerAddress: Rule{Burst: 20, Every: 6 * time.Second},
	// 100 registrations on the service, then one per 3 s (1,200 an hour).
	RegisterGlobal:  Rule{Burst: 100, Every: 3 * time.Second},
	KnownAddressTTL: 30 * 24 * time.Hour,
}

// pruneEvery spaces the deletion of refilled buckets and expired known
// addresses, per process.
const pruneEvery = 10 * time.Minute

// Auth throttles sign-in and registration. Safe for concurrent use, and
// any number of Auths on one database share their state.
type Auth struct {
	loginAddr, loginAccount, loginGlobal *Limiter
	register, registerGlobal             *Limiter
	known                                *Seen
	now                                  func() time.Time

	mu        sync.Mutex
	lastPrune time.Time
}

// NewAuth returns the throttle keeping its state in db; now is the clock
// (nil: time.Now).
func NewAuth(db DB, rules Rules, now func() time.Time) *Auth {
	if now == nil {
		now = time.Now
	}
	return &Auth{
		loginAddr:      NewLimiter(db, "login_address", rules.LoginPerAddress, now),
		loginAccount:   NewLimiter(db, "login_account", rules.LoginPerAccount, now),
		loginGlobal:    NewLimiter(db, "login_global", rules.LoginGlobal, now),
		register:       NewLimiter(db, "register_address", rules.RegisterPerAddress, now),
		registerGlobal: NewLimiter(db, "register_global", rules.RegisterGlobal, now),
		known:          NewSeen(db, rules.KnownAddressTTL, now),
		now:            now,
	}
}

// taken is a token to give back if the attempt turns out not to count.
type taken struct {
	l   *Limiter
	key string
}

// Login reserves a sign-in attempt for email from addr (the client's
// address), before the password is checked, so concurrent guesses cannot
// all slip past one check. Call done with the sign-in's error: success
// returns the tokens and makes addr known for the account; a wrong
// password (unauthenticated) keeps them spent; any other failure (the
// database, say) was no guess and returns them. A refused attempt is a
// rate_limited problem carrying the wait.
//
// From a known address only the address limit applies: neither the
// account's limit nor the breaker locks the owner out of where they signed
// in before.
func (a *Auth) Login(ctx context.Context, email, addr string) (done func(error), err error) {
	account := strings.ToLower(strings.TrimSpace(email))
	network := Network(addr)
	pair := account + "\x00" + network
	var spent []taken
	giveBack := func() { a.refund(ctx, spent) }
	take := func(l *Limiter, key, refusal string) error {
		ok, wait, err := l.Allow(ctx, key)
		if err != nil {
			giveBack()
			return fmt.Errorf("sign-in throttle: %w", err)
		}
		if !ok {
			giveBack()
			return tooMany(refusal, wait)
		}
		spent = append(spent, taken{l, key})
		return nil
	}
	defer a.maybePrune(ctx)
	if err := take(a.loginAddr, network, "too many failed sign-ins from your address"); err != nil {
		return nil, err
	}
	known, err := a.known.Has(ctx, pair)
	if err != nil {
		giveBack()
		return nil, fmt.Errorf("sign-in throttle: %w", err)
	}
	if !known {
		if err := take(a.loginAccount, account, "too many failed sign-ins to this account"); err != nil {
			return nil, err
		}
		if err := take(a.loginGlobal, "", "too many failed sign-ins on this service right now (where you signed in before, you still can)"); err != nil {
			return nil, err
		}
	}
	return func(err error) {
		if problem.Is(err, problem.Unauthenticated) {
			return
		}
		giveBack()
		if err == nil {
			ctx, cancel := detached(ctx)
			defer cancel()
			if err := a.known.Add(ctx, pair); err != nil {
				server.LoggerFrom(ctx).Warn("sign-in throttle: known address not recorded", "err", err)
			}
		}
	}, nil
}

// Register takes a registration attempt from addr; every attempt counts,
// successful or not, since creating accounts is what is being limited.
func (a *Auth) Register(ctx context.Context, addr string) error {
	defer a.maybePrune(ctx)
	network := Network(addr)
	ok, wait, err := a.register.Allow(ctx, network)
	if err != nil {
		return fmt.Errorf("registration throttle: %w", err)
	}
	if !ok {
		return tooMany("too many registrations from your address", wait)
	}
	ok, wait, err = a.registerGlobal.Allow(ctx, "")
	if err == nil && !ok {
		err = tooMany("too many registrations on this service right now", wait)
	}
	if err != nil {
		a.refund(ctx, []taken{{a.register, network}})
		return err
	}
	return nil
}

// refund gives tokens back, even when the request's context has ended:
// the attempt it paid for did not happen or did not count.
func (a *Auth) refund(ctx context.Context, spent []taken) {
	ctx, cancel := detached(ctx)
	defer cancel()
	for _, t := range spent {
		if err := t.l.Refund(ctx, t.key); err != nil {
			server.LoggerFrom(ctx).Warn("throttle refund failed", "rule", t.l.name, "err", err)
		}
	}
}

// maybePrune deletes refilled buckets and expired known addresses, at most
// once per pruneEvery in this process.
func (a *Auth) maybePrune(ctx context.Context) {
	now := a.now()
	a.mu.Lock()
	due := now.Sub(a.lastPrune) >= pruneEvery
	if due {
		a.lastPrune = now
	}
	a.mu.Unlock()
	if !due {
		return
	}
	ctx, cancel := detached(ctx)
	defer cancel()
	for _, l := range []*Limiter{a.loginAddr, a.loginAccount, a.loginGlobal, a.register, a.registerGlobal} {
		if err := l.prune(ctx); err != nil {
			server.LoggerFrom(ctx).Warn("throttle prune failed", "rule", l.name, "err", err)
			return
		}
	}
	if err := a.known.prune(ctx); err != nil {
		server.LoggerFrom(ctx).Warn("throttle prune failed", "rule", "known", "err", err)
	}
}

// detached is ctx without its cancellation, with a deadline of its own.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
}

func tooMany(what string, wait time.Duration) error {
	secs := int(math.Ceil(wait.Seconds()))
	return problem.Retry(time.Duration(secs)*time.Second, "%s; try again in %d s", what, secs)
}
