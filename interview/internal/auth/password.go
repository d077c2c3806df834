// Package auth holds the session helpers the services share: bcrypt password
// hashes, HS256 session tokens and the cookie that carries them.
package auth

import (
	"errors"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// PasswordCost is the bcrypt work factor: about 50 ms per check on a modern
// core, slow enough for offline guessing, fast enough for a login page.
const PasswordCost = 10

// MaxPasswordBytes is bcrypt's input limit; longer passwords are refused
// rather than silently truncated.
const MaxPasswordBytes = 72

// ErrPasswordTooLong is returned for passwords bcrypt would truncate.
var ErrPasswordTooLong = errors.New("password longer than 72 bytes")

// HashPassword returns the bcrypt hash of password.
func HashPassword(password string) (string, error) {
	if len(password) > MaxPasswordBytes {
		return "", ErrPasswordTooLong
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), PasswordCost)
	return string(h), err
}

// dummyHash is compared against when there is no account, so a failed login
// costs the same bcrypt work whether or not the email exists.
var dummyHash = sync.OnceValue(func() []byte {
	h, err := bcrypt.GenerateFromPassword([]byte("no account has this password"), PasswordCost)
	if err != nil {
		panic(err)
	}
	return h
})

// CheckPassword reports whether password matches hash. An empty hash (no
// account, or an account without a password) is checked against a dummy hash
// and never matches, so callers need no separate timing-safe branch.
func CheckPassword(hash, password string) bool {
	if hash == "" {
		_ = bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}
