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

// Issue returns a token for subject.
func (t *Tokens) Issue(subject string) (string, error) {
	now := t.now()
	claims := jwt.RegisteredClaims{
		Subject:   subject,
		Issuer:    t.issuer,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(t.ttl)),
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(t.secret)
}

// Verify returns the subject of a valid token. Only HS256 is accepted: the
// algorithm named in the token header is not trusted.
func (t *Tokens) Verify(token string) (string, error) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return t.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(t.issuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(t.now),
	)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if claims.Subject == "" {
		return "", fmt.Errorf("%w: no subject", ErrInvalidToken)
	}
	return claims.Subject, nil
}
