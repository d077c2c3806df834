// Package account holds the rules for creating users (interview.User) and
// signing them in: with a password or with a Google ID token; session
// versions, password changes and deletion.
package account

import (
	"context"
	"crypto/sha256"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/auth"
)

// Limits on registration input. A password needs 8 characters at least and
// may not exceed bcrypt's 72-byte input, which would otherwise be truncated.
const (
	MaxNameChars      = 100
	MaxEmailChars     = 254
	MinPasswordChars  = 8
	MaxPasswordBytes  = auth.MaxPasswordBytes
	loginFailedReason = "Email or password is incorrect."
)

// RecentSignIn is how recent a Google-only account's sign-in must be to
// delete the account: with no password to ask for, a fresh sign-in is the
// proof that the owner, not someone at an unlocked screen, is asking.
const RecentSignIn = 10 * time.Minute

// Service signs users up and in.
type Service struct {
	store  interview.UserStore
	google interview.GoogleVerifier
}

// NewService returns a Service; a nil google disables Google sign-in.
func NewService(store interview.UserStore, google interview.GoogleVerifier) *Service {
	return &Service{store: store, google: google}
}

// GoogleEnabled reports whether Google sign-in is configured.
func (s *Service) GoogleEnabled() bool { return s.google != nil }

// Register creates a password account.
func (s *Service) Register(ctx context.Context, fullName, email, password string) (interview.User, error) {
	fullName = strings.TrimSpace(fullName)
	// Postgres text cannot hold NUL; refuse it here rather than fail there.
	if fullName == "" || utf8.RuneCountInString(fullName) > MaxNameChars || strings.ContainsRune(fullName, 0) {
		return interview.User{}, interview.Errorf(interview.Invalid, "Enter your name, 1 to %d characters.", MaxNameChars)
	}
	email, err := NormalizeEmail(email)
	if err != nil {
		return interview.User{}, err
	}
	if err := checkNewPassword(password); err != nil {
		return interview.User{}, err
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return interview.User{}, err
	}
	return s.store.CreateUser(ctx, fullName, email, hash)
}

func checkNewPassword(password string) error {
	if utf8.RuneCountInString(password) < MinPasswordChars || len(password) > MaxPasswordBytes {
		return interview.Errorf(interview.Invalid, "Choose a password of at least %d characters (and at most %d bytes).", MinPasswordChars, MaxPasswordBytes)
	}
	if isCommon(password) {
		return interview.Errorf(interview.Invalid, "That password is one of the most common ones, which are guessed first. Choose another.")
	}
	return nil
}

// Login returns the account matching email and password. Every failure is
// the same error after the same bcrypt work, so it does not reveal whether
// the email has an account.
func (s *Service) Login(ctx context.Context, email, password string) (interview.User, error) {
	fail := interview.Errorf(interview.Unauthenticated, loginFailedReason)
	email, err := NormalizeEmail(email)
	if err != nil {
		auth.CheckPassword("", password)
		return interview.User{}, fail
	}
	u, hash, err := s.store.UserByEmail(ctx, email)
	if err != nil && !interview.Is(err, interview.NotFound) {
		return interview.User{}, err
	}
	if !auth.CheckPassword(hash, password) {
		return interview.User{}, fail
	}
	return u, nil
}

// Google signs in with a Google ID token.
func (s *Service) Google(ctx context.Context, credential string) (interview.User, error) {
	if s.google == nil {
		return interview.User{}, interview.Errorf(interview.NotImplemented, "Google sign-in is not configured")
	}
	if credential == "" {
		return interview.User{}, interview.Errorf(interview.Invalid, "credential is required")
	}
	id, err := s.google.Verify(ctx, credential)
	if err != nil {
		return interview.User{}, err
	}
	id.Email, err = NormalizeEmail(id.Email)
	if err != nil {
		return interview.User{}, interview.Errorf(interview.Unauthenticated, "the Google account has no usable email")
	}
	id.Name = strings.TrimSpace(strings.ReplaceAll(id.Name, "\x00", ""))
	if id.Name == "" {
		id.Name, _, _ = strings.Cut(id.Email, "@")
	}
	if utf8.RuneCountInString(id.Name) > MaxNameChars {
		id.Name = string([]rune(id.Name)[:MaxNameChars])
	}
	return s.store.SignInGoogle(ctx, id)
}

// User returns the account with id.
func (s *Service) User(ctx context.Context, id string) (interview.User, error) {
	return s.store.UserByID(ctx, id)
}

// Check accepts a session token (sess is what it carries) only while it
// carries the account's current session version and was not signed out: a
// password change, "sign out everywhere" and Google linking bump the
// version, revoking every older token; a plain sign-out revokes its own.
func (s *Service) Check(ctx context.Context, sess auth.Session, token string) error {
	v, revoked, err := s.store.SessionState(ctx, sess.Subject, tokenHash(token))
	if interview.Is(err, interview.NotFound) {
		return interview.Errorf(interview.Unauthenticated, "This account no longer exists.")
	}
	if err != nil {
		return err
	}
	if v != sess.Version || revoked {
		return interview.Errorf(interview.Unauthenticated, "You were signed out. Sign in again.")
	}
	return nil
}

// SignOut revokes one session token of the account (sess is what it
// carries), which would have expired by expires anyway.
func (s *Service) SignOut(ctx context.Context, sess auth.Session, token string, expires time.Time) error {
	return s.store.RevokeSession(ctx, sess.Subject, tokenHash(token), expires)
}

// tokenHash is what is kept of a revoked session token.
func tokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// ChangePassword checks current, stores newPassword and returns the new
// session version: every other session of the account is revoked. A wrong
// current password is interview.Unauthenticated, as a failed sign-in.
func (s *Service) ChangePassword(ctx context.Context, id, current, newPassword string) (int64, error) {
	if err := checkNewPassword(newPassword); err != nil {
		return 0, err
	}
	hash, err := s.store.PasswordHash(ctx, id)
	if err != nil {
		return 0, err
	}
	if hash == "" {
		return 0, interview.Errorf(interview.Invalid, "This account signs in with Google: it has no password to change.")
	}
	if !auth.CheckPassword(hash, current) {
		return 0, interview.Errorf(interview.Unauthenticated, "The current password is incorrect.")
	}
	newHash, err := auth.HashPassword(newPassword)
	if err != nil {
		return 0, err
	}
	return s.store.SetPassword(ctx, id, hash, newHash)
}

// SignOutEverywhere revokes every session of the account.
func (s *Service) SignOutEverywhere(ctx context.Context, id string) error {
	return s.store.RevokeSessions(ctx, id)
}

// Delete deletes the account and its interviews. An account with a
// password needs it (a wrong one is interview.Unauthenticated); a Google-only
// account needs a sign-in no older than RecentSignIn (interview.Forbidden).
func (s *Service) Delete(ctx context.Context, id, password string, signedIn, now time.Time) error {
	hash, err := s.store.PasswordHash(ctx, id)
	if err != nil {
		return err
	}
	switch {
	case hash != "" && !auth.CheckPassword(hash, password):
		return interview.Errorf(interview.Unauthenticated, "The password is incorrect.")
	case hash == "" && now.Sub(signedIn) > RecentSignIn:
		return interview.Errorf(interview.Forbidden, "To delete an account that signs in with Google, sign in with Google again, then delete it within %d minutes.", int(RecentSignIn.Minutes()))
	}
	return s.store.DeleteUser(ctx, id)
}

// NormalizeEmail trims and lowercases email and checks it is a bare address.
func NormalizeEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	bad := interview.Errorf(interview.Invalid, "Enter a valid email address (at most %d characters).", MaxEmailChars)
	if e == "" || utf8.RuneCountInString(e) > MaxEmailChars || strings.ContainsRune(e, 0) {
		return "", bad
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || a.Name != "" {
		return "", bad
	}
	return e, nil
}
