package throttle

import (
	"math"
	"strings"
	"time"

	"github.com/judgeworks/interview/internal/problem"
)

// The sign-in rules. Failures cost a token; a successful sign-in gives its
// tokens back, so the rules only bite on guessing.
var (
	// LoginPerAddress: 20 failed sign-ins from one address, then one per 6 s
	// (10 a minute), whatever the accounts.
	LoginPerAddress = Rule{Burst: 20, Every: 6 * time.Second}
	// LoginPerAccount: 5 failed sign-ins to one account, then one per 30 s,
	// whatever the addresses, so guessing one password from many addresses
	// is slow too.
	LoginPerAccount = Rule{Burst: 5, Every: 30 * time.Second}
	// RegisterPerAddress: 20 registrations (or attempts) from one address,
	// then one per 6 s.
	RegisterPerAddress = Rule{Burst: 20, Every: 6 * time.Second}
	// KnownAddressTTL is how long an address where an account signed in
	// stays exempt from that account's limit: someone guessing the password
	// elsewhere must not lock the owner out of their usual place.
	KnownAddressTTL = 30 * 24 * time.Hour
	// MaxKeys bounds each table (about 100 bytes an entry).
	MaxKeys = 100_000
)

// Auth throttles sign-in and registration.
type Auth struct {
	loginAddr, loginAccount, register *Limiter
	known                             *Seen
}

// NewAuth returns the sign-in throttle with the package's rules; now is
// the clock (nil: time.Now).
func NewAuth(now func() time.Time) *Auth {
	return &Auth{
		loginAddr:    NewLimiter(LoginPerAddress, MaxKeys, now),
		loginAccount: NewLimiter(LoginPerAccount, MaxKeys, now),
		register:     NewLimiter(RegisterPerAddress, MaxKeys, now),
		known:        NewSeen(KnownAddressTTL, MaxKeys, now),
	}
}

// Login reserves a sign-in attempt for email from addr, before the password
// is checked, so concurrent guesses cannot all slip past one check. Call
// done with the sign-in's error: success returns the tokens and makes addr
// known for the account; a wrong password (unauthenticated) keeps them
// spent; any other failure (the database, say) was no guess and returns
// them. A refused attempt is a rate_limited problem carrying the wait.
//
// The account's limit does not apply from an address where the account
// signed in within KnownAddressTTL: the owner keeps signing in from home
// while someone guesses from elsewhere. The address limit still applies.
func (a *Auth) Login(email, addr string) (done func(error), err error) {
	account := strings.ToLower(strings.TrimSpace(email))
	pair := account + "\x00" + addr
	ok, wait := a.loginAddr.Allow(addr)
	if !ok {
		return nil, tooMany("too many failed sign-ins from your address", wait)
	}
	known := a.known.Has(pair)
	if !known {
		if ok, wait := a.loginAccount.Allow(account); !ok {
			a.loginAddr.Refund(addr)
			return nil, tooMany("too many failed sign-ins to this account", wait)
		}
	}
	return func(err error) {
		if problem.Is(err, problem.Unauthenticated) {
			return
		}
		a.loginAddr.Refund(addr)
		if !known {
			a.loginAccount.Refund(account)
		}
		if err == nil {
			a.known.Add(pair)
		}
	}, nil
}

// Register takes a registration attempt from addr; every attempt counts,
// successful or not, since creating accounts is what is being limited.
func (a *Auth) Register(addr string) error {
	if ok, wait := a.register.Allow(addr); !ok {
		return tooMany("too many registrations from your address", wait)
	}
	return nil
}

func tooMany(what string, wait time.Duration) error {
	secs := int(math.Ceil(wait.Seconds()))
	p := problem.New(problem.RateLimited, "%s; try again in %d s", what, secs)
	p.RetryAfter = time.Duration(secs) * time.Second
	return p
}
