package throttle

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/shared/server"
)

// Rules are the limits of sign-in and registration. Failures cost a token;
// a successful sign-in gives its tokens back, so the rules only bite on
// guessing.
//
// A sign-in from a browser where the account signed in before (a known
// device: the sign-in cookie docs/api.md describes) is held only to that
// device's own limit. Nobody else holds that cookie, so failures by other
// people, from the same address or against the same account, never
// refuse the owner's correct password there.
type Rules struct {
	// LoginPerAddress limits failed sign-ins from one address (or IPv6
	// /64) on devices unknown to the account, whatever the accounts.
	LoginPerAddress Rule
	// LoginPerAccount limits failed sign-ins to one account from devices
	// unknown to it, whatever the addresses, so guessing one password from
	// many addresses is slow too.
	LoginPerAccount Rule
	// LoginGlobal is the breaker: failed sign-ins on the whole service.
	// Once it is empty, only known devices may try to sign in, so a
	// guesser with many addresses and many accounts to try cannot keep up
	// a rate beyond it.
	LoginGlobal Rule
	// LoginPerDevice limits failed sign-ins to one account from one of its
	// known devices (a stolen sign-in cookie guesses no faster than the
	// account limit allows).
	LoginPerDevice Rule
	// RegisterPerAddress and RegisterGlobal limit registrations (and
	// attempts) from one address and on the whole service. The address's
	// burst is a small share of the service's, so a handful of addresses
	// cannot use the service's up.
	RegisterPerAddress, RegisterGlobal Rule
	// KnownDeviceTTL is how long a device where an account signed in stays
	// known for that account after its last sign-in there.
	KnownDeviceTTL time.Duration
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
	// 5 failed sign-ins from a known device, then one per 30 s.
	LoginPerDevice: Rule{Burst: 5, Every: 30 * time.Second},
	// 5 registrations from one address, then one per 2 minutes (30 an
	// hour): it takes 20 addresses to use up the service's burst, and 40
	// to keep up with its rate.
	RegisterPerAddress: Rule{Burst: 5, Every: 2 * time.Minute},
	// 100 registrations on the service, then one per 3 s (1,200 an hour).
	RegisterGlobal: Rule{Burst: 100, Every: 3 * time.Second},
	KnownDeviceTTL: 30 * 24 * time.Hour,
}

// pruneEvery spaces the deletion of refilled buckets and expired known
// addresses, per process.
const pruneEvery = 10 * time.Minute

// pruneSchedule says when a prune is due: at most once per pruneEvery in
// this process. The zero value is due at once. Safe for concurrent use.
type pruneSchedule struct {
	mu   sync.Mutex
	last time.Time
}

// due reports whether a prune is due now and, if so, counts it as done.
func (p *pruneSchedule) due() bool {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.Sub(p.last) < pruneEvery {
		return false
	}
	p.last = now
	return true
}

// Auth throttles sign-in and registration. Safe for concurrent use, and
// any number of Auths on one database share their state.
type Auth struct {
	loginAddr, loginAccount, loginGlobal *limiter
	loginDevice                          *limiter
	register, registerGlobal             *limiter
	known                                *Seen

	pruned pruneSchedule
}

// NewAuth returns the throttle keeping its state in buckets and known.
func NewAuth(buckets interview.Buckets, known interview.KnownDevices, rules Rules) *Auth {
	return &Auth{
		loginAddr:      newLimiter(buckets, "login_address", rules.LoginPerAddress),
		loginAccount:   newLimiter(buckets, "login_account", rules.LoginPerAccount),
		loginGlobal:    newLimiter(buckets, "login_global", rules.LoginGlobal),
		loginDevice:    newLimiter(buckets, "login_device", rules.LoginPerDevice),
		register:       newLimiter(buckets, "register_address", rules.RegisterPerAddress),
		registerGlobal: newLimiter(buckets, "register_global", rules.RegisterGlobal),
		known:          NewSeen(known, rules.KnownDeviceTTL),
	}
}

// taken is a token to give back if the attempt turns out not to count.
type taken struct {
	l   *limiter
	key string
}

// Login reserves a sign-in attempt for email from addr (the client's
// address) on device (the value of the client's sign-in cookie, "" for
// none), before the password is checked, so concurrent guesses cannot all
// slip past one check. Call done with the sign-in's error: success returns
// the tokens and makes device known for the account; a wrong password
// (unauthenticated) keeps them spent; any other failure (the database, say)
// was no guess and returns them. A refused attempt is a rate_limited
// error carrying the wait.
//
// On a device known to the account only the device's own limit applies:
// what others do from the same address or against the same account does
// not lock the owner out of where they signed in before.
func (a *Auth) Login(ctx context.Context, email, addr, device string) (done func(error), err error) {
	account := accountKey(email)
	network := Network(addr)
	pair := account + "\x00" + device
	var spent []taken
	giveBack := func() { a.refund(ctx, spent) }
	take := func(l *limiter, key, refusal string) error {
		ok, wait, err := l.allow(ctx, key)
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
	known := false
	if device != "" {
		if known, err = a.known.Has(ctx, pair); err != nil {
			return nil, fmt.Errorf("sign-in throttle: %w", err)
		}
	}
	if known {
		if err := take(a.loginDevice, pair, "too many failed sign-ins from this browser"); err != nil {
			return nil, err
		}
	} else {
		if err := take(a.loginAddr, network, "too many failed sign-ins from your address"); err != nil {
			return nil, err
		}
		if err := take(a.loginAccount, account, "too many failed sign-ins to this account"); err != nil {
			return nil, err
		}
		if err := take(a.loginGlobal, "", "too many failed sign-ins on this service right now (where you signed in before, you still can)"); err != nil {
			return nil, err
		}
	}
	return func(err error) {
		if interview.Is(err, interview.Unauthenticated) {
			return
		}
		giveBack()
		if err == nil {
			a.Remember(ctx, email, device)
		}
	}, nil
}

// Remember makes device known for the account of email from now on (a
// sign-in or a registration proved its password there); "" does nothing.
// A failure is logged: the owner only loses the exemption.
func (a *Auth) Remember(ctx context.Context, email, device string) {
	if device == "" {
		return
	}
	ctx, cancel := detached(ctx)
	defer cancel()
	if err := a.known.Add(ctx, accountKey(email)+"\x00"+device); err != nil {
		server.LoggerFrom(ctx).Warn("sign-in throttle: known device not recorded", "err", err)
	}
}

// accountKey is an email as the limits count it.
func accountKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Register takes a registration attempt from addr; every attempt counts,
// successful or not, since creating accounts is what is being limited.
func (a *Auth) Register(ctx context.Context, addr string) error {
	defer a.maybePrune(ctx)
	network := Network(addr)
	ok, wait, err := a.register.allow(ctx, network)
	if err != nil {
		return fmt.Errorf("registration throttle: %w", err)
	}
	if !ok {
		return tooMany("too many registrations from your address", wait)
	}
	ok, wait, err = a.registerGlobal.allow(ctx, "")
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
		if err := t.l.refund(ctx, t.key); err != nil {
			server.LoggerFrom(ctx).Warn("throttle refund failed", "rule", t.l.bucket.Name, "err", err)
		}
	}
}

// maybePrune deletes refilled buckets and expired known devices, at most
// once per pruneEvery in this process.
func (a *Auth) maybePrune(ctx context.Context) {
	if a.pruned.due() {
		a.prune(ctx)
	}
}

// prune deletes refilled buckets and expired known devices.
func (a *Auth) prune(ctx context.Context) {
	ctx, cancel := detached(ctx)
	defer cancel()
	for _, l := range []*limiter{a.loginAddr, a.loginAccount, a.loginGlobal, a.loginDevice, a.register, a.registerGlobal} {
		if err := l.prune(ctx); err != nil {
			server.LoggerFrom(ctx).Warn("throttle prune failed", "rule", l.bucket.Name, "err", err)
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
	return interview.Limited(time.Duration(secs)*time.Second, "%s; try again in %d s", what, secs)
}
