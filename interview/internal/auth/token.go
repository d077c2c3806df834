package auth

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// MinSecretBytes is the shortest HS256 secret accepted in production.
const MinSecretBytes = 32

// DefaultTokenTTL is how long a session token stays valid.
const DefaultTokenTTL = 7 * 24 * time.Hour

// ErrInvalidToken is returned for any token that must not be trusted:
// malformed, tampered with, expired, or signed with another algorithm.
var ErrInvalidToken = errors.New("invalid session token")

// Tokens issues and verifies HS256 session tokens whose subject is a user id.
type Tokens struct {
	secret []byte
	issuer string
	ttl    time.Duration
	now    func() time.Time
}

// NewTokens returns Tokens signing with secret. issuer is written into and
// required of every token, so tokens of another service with the same secret
// do not pass. A zero ttl means DefaultTokenTTL; a nil now means time.Now.
func NewTokens(secret []byte, issuer string, ttl time.Duration, now func() time.Time) (*Tokens, error) {
	if len(secret) == 0 {
		return nil, errors.New("empty token secret")
	}
	if ttl <= 0 {
		ttl = DefaultTokenTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Tokens{secret: secret, issuer: issuer, ttl: ttl, now: now}, nil
}

// TTL is the lifetime of issued tokens.
func (t *Tokens) TTL() time.Duration { return t.ttl }

// Session is what a session token carries.
type Session struct {
	Subject string
	// Version is the account's session version when the token was issued.
	// A service that keeps the current version per account and refuses any
	// other revokes every older token by bumping it.
	Version int64
	// AuthTime is when the holder last proved who they are (a password or a
	// Google sign-in). A token reissued without a new proof keeps it, so a
	// service can ask for a recent sign-in before a destructive action.
	AuthTime time.Time
}

// sessionClaims are the registered claims plus sv (the session version)
// and auth_time (as OpenID Connect names it, seconds since the epoch).
type sessionClaims struct {
	jwt.RegisteredClaims
	Version  int64            `json:"sv,omitempty"`
	AuthTime *jwt.NumericDate `json:"auth_time,omitempty"`
}

// Issue returns a token for subject, signed in now, at session version 0.
func (t *Tokens) Issue(subject string) (string, error) {
	return t.IssueSession(Session{Subject: subject})
}

// IssueSession returns a token for s; a zero AuthTime means now.
func (t *Tokens) IssueSession(s Session) (string, error) {
	now := t.now()
	if s.AuthTime.IsZero() {
		s.AuthTime = now
	}
	claims := sessionClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   s.Subject,
			Issuer:    t.issuer,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(t.ttl)),
		},
		Version:  s.Version,
		AuthTime: jwt.NewNumericDate(s.AuthTime),
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(t.secret)
}

// Verify returns the subject of a valid token. Only HS256 is accepted: the
// algorithm named in the token header is not trusted.
func (t *Tokens) Verify(token string) (string, error) {
	s, err := t.VerifySession(token)
	return s.Subject, err
}

// VerifySession returns what a valid token carries. A token without
// auth_time (issued before the claim existed) counts as signed in at its
// issue time, and one without sv as version 0.
func (t *Tokens) VerifySession(token string) (Session, error) {
	var claims sessionClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return t.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(t.issuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(t.now),
	)
	if err != nil {
		return Session{}, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if claims.Subject == "" {
		return Session{}, fmt.Errorf("%w: no subject", ErrInvalidToken)
	}
	s := Session{Subject: claims.Subject, Version: claims.Version}
	switch {
	case claims.AuthTime != nil:
		s.AuthTime = claims.AuthTime.Time
	case claims.IssuedAt != nil:
		s.AuthTime = claims.IssuedAt.Time
	}
	return s, nil
}
