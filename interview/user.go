package interview

import (
	"context"
	"time"
)

// User is an account as the API shows it.
type User struct {
	ID       string `json:"_id"`
	FullName string `json:"fullName"`
	Email    string `json:"email"`
	// HasPassword is false for an account that signs in with Google only;
	// the page offers password changes only when it is true.
	HasPassword bool `json:"hasPassword"`
	// SessionVersion is the account's current session version: tokens
	// carrying another one are refused (see account.Service.Check).
	SessionVersion int64 `json:"-"`
}

// GoogleIdentity is what a verified Google ID token says about its holder.
type GoogleIdentity struct {
	Subject string
	Email   string
	Name    string
}

// UserStore keeps accounts. Missing accounts are NotFound; a taken email
// or Google id is Conflict.
type UserStore interface {
	CreateUser(ctx context.Context, fullName, email, passwordHash string) (User, error)
	// UserByEmail returns the account and its password hash ("" if none).
	UserByEmail(ctx context.Context, email string) (User, string, error)
	UserByID(ctx context.Context, id string) (User, error)
	// SignInGoogle returns the account of id: the one already linked to
	// id.Subject, else a new one. An account registered with a password
	// for id.Email (never verified) is deleted with all it holds first,
	// so whoever registered the email is signed out and leaves nothing
	// behind. An email linked to another Google account is
	// Conflict.
	SignInGoogle(ctx context.Context, id GoogleIdentity) (User, error)
	// SessionState returns the account's current session version and
	// whether the token with SHA-256 tokenHash was signed out.
	SessionState(ctx context.Context, id string, tokenHash []byte) (version int64, revoked bool, err error)
	// RevokeSession signs out the one token with SHA-256 tokenHash, which
	// expires at expires at the latest.
	RevokeSession(ctx context.Context, id string, tokenHash []byte, expires time.Time) error
	// PasswordHash returns the account's password hash, "" for none.
	PasswordHash(ctx context.Context, id string) (string, error)
	// SetPassword replaces the hash only while it is still oldHash, bumps
	// the session version and returns the new one; a hash changed
	// meanwhile is Conflict.
	SetPassword(ctx context.Context, id, oldHash, newHash string) (int64, error)
	// RevokeSessions bumps the session version.
	RevokeSessions(ctx context.Context, id string) error
	// DeleteUser deletes the account and everything it owns.
	DeleteUser(ctx context.Context, id string) error
}

// GoogleVerifier checks a Google ID token.
type GoogleVerifier interface {
	Verify(ctx context.Context, credential string) (GoogleIdentity, error)
}
