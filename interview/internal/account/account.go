// Package account holds users and the rules for creating them and signing
// them in: with a password or with a Google ID token.
package account

import (
	"context"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/judgeworks/interview/internal/problem"
	"github.com/judgeworks/shared/auth"
)

// Limits on registration input. A password needs 8 characters at least and
// may not exceed bcrypt's 72-byte input, which would otherwise be truncated.
const (
	MaxNameChars      = 100
	MaxEmailChars     = 254
	MinPasswordChars  = 8
	MaxPasswordBytes  = auth.MaxPasswordBytes
	loginFailedReason = "email or password is incorrect"
)

// User is an account as the API shows it.
type User struct {
	ID       string `json:"_id"`
	FullName string `json:"fullName"`
	Email    string `json:"email"`
}

// GoogleIdentity is what a verified Google ID token says about its holder.
type GoogleIdentity struct {
	Subject string
	Email   string
	Name    string
}

// Store keeps accounts. Missing accounts are problem.NotFound; a taken email
// or Google id is problem.Conflict.
type Store interface {
	CreateUser(ctx context.Context, fullName, email, passwordHash string) (User, error)
	// UserByEmail returns the account and its password hash ("" if none).
	UserByEmail(ctx context.Context, email string) (User, string, error)
	UserByID(ctx context.Context, id string) (User, error)
	// SignInGoogle returns the account of id: the one already linked to
	// id.Subject, else the one with id.Email (linked now, its password
	// dropped), else a new one. An email linked to another Google account
	// is problem.Conflict.
	SignInGoogle(ctx context.Context, id GoogleIdentity) (User, error)
}

// GoogleVerifier checks a Google ID token.
type GoogleVerifier interface {
	Verify(ctx context.Context, credential string) (GoogleIdentity, error)
}

// Service signs users up and in.
type Service struct {
	store  Store
	google GoogleVerifier
}

// NewService returns a Service; a nil google disables Google sign-in.
func NewService(store Store, google GoogleVerifier) *Service {
	return &Service{store: store, google: google}
}

// GoogleEnabled reports whether Google sign-in is configured.
func (s *Service) GoogleEnabled() bool { return s.google != nil }

// Register creates a password account.
func (s *Service) Register(ctx context.Context, fullName, email, password string) (User, error) {
	fullName = strings.TrimSpace(fullName)
	// Postgres text cannot hold NUL; refuse it here rather than fail there.
	if fullName == "" || utf8.RuneCountInString(fullName) > MaxNameChars || strings.ContainsRune(fullName, 0) {
		return User{}, problem.New(problem.Invalid, "fullName must be 1 to %d characters, without NUL", MaxNameChars)
	}
	email, err := NormalizeEmail(email)
	if err != nil {
		return User{}, err
	}
	if utf8.RuneCountInString(password) < MinPasswordChars || len(password) > MaxPasswordBytes {
		return User{}, problem.New(problem.Invalid, "password must be at least %d characters and at most %d bytes", MinPasswordChars, MaxPasswordBytes)
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return User{}, err
	}
	return s.store.CreateUser(ctx, fullName, email, hash)
}

// Login returns the account matching email and password. Every failure is
// the same error after the same bcrypt work, so it does not reveal whether
// the email has an account.
func (s *Service) Login(ctx context.Context, email, password string) (User, error) {
	fail := problem.New(problem.Unauthenticated, loginFailedReason)
	email, err := NormalizeEmail(email)
	if err != nil {
		auth.CheckPassword("", password)
		return User{}, fail
	}
	u, hash, err := s.store.UserByEmail(ctx, email)
	if err != nil && !problem.Is(err, problem.NotFound) {
		return User{}, err
	}
	if !auth.CheckPassword(hash, password) {
		return User{}, fail
	}
	return u, nil
}

// Google signs in with a Google ID token.
func (s *Service) Google(ctx context.Context, credential string) (User, error) {
	if s.google == nil {
		return User{}, problem.New(problem.NotImplemented, "Google sign-in is not configured")
	}
	if credential == "" {
		return User{}, problem.New(problem.Invalid, "credential is required")
	}
	id, err := s.google.Verify(ctx, credential)
	if err != nil {
		return User{}, err
	}
	id.Email, err = NormalizeEmail(id.Email)
	if err != nil {
		return User{}, problem.New(problem.Unauthenticated, "the Google account has no usable email")
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
func (s *Service) User(ctx context.Context, id string) (User, error) {
	return s.store.UserByID(ctx, id)
}

// NormalizeEmail trims and lowercases email and checks it is a bare address.
func NormalizeEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	bad := problem.New(problem.Invalid, "email must be a valid address of at most %d characters", MaxEmailChars)
	if e == "" || utf8.RuneCountInString(e) > MaxEmailChars || strings.ContainsRune(e, 0) {
		return "", bad
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || a.Name != "" {
		return "", bad
	}
	return e, nil
}
