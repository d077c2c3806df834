package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/judgeworks/interview"
)

var errNoAccount = interview.Errorf(interview.NotFound, "no such account")

func (s *Store) CreateUser(ctx context.Context, fullName, email, passwordHash string) (interview.User, error) {
	u := interview.User{FullName: fullName, Email: email, HasPassword: true}
	err := s.pool.QueryRow(ctx,
		`INSERT INTO users (full_name, email, password_hash) VALUES ($1, $2, $3) RETURNING id::text, session_version`,
		fullName, email, passwordHash).Scan(&u.ID, &u.SessionVersion)
	if isUnique(err) {
		return interview.User{}, interview.Errorf(interview.Conflict, "an account with this email already exists")
	}
	return u, err
}

const userColumns = `id::text, full_name, email, password_hash IS NOT NULL, session_version`

func scanUser(row pgx.Row, extra ...any) (interview.User, error) {
	var u interview.User
	err := row.Scan(append([]any{&u.ID, &u.FullName, &u.Email, &u.HasPassword, &u.SessionVersion}, extra...)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return interview.User{}, errNoAccount
	}
	return u, err
}

func (s *Store) UserByEmail(ctx context.Context, email string) (interview.User, string, error) {
	var hash *string
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+`, password_hash FROM users WHERE email = $1`, email), &hash)
	if err != nil || hash == nil {
		return u, "", err
	}
	return u, *hash, nil
}

func (s *Store) UserByID(ctx context.Context, id string) (interview.User, error) {
	if !isUUID(id) {
		return interview.User{}, errNoAccount
	}
	return scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
}

func (s *Store) SignInGoogle(ctx context.Context, g interview.GoogleIdentity) (interview.User, error) {
	var u interview.User
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE google_id = $1`, g.Subject))
		if err == nil || !interview.Is(err, interview.NotFound) {
			return err
		}
		var linked *string
		u, err = scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+`, google_id FROM users WHERE email = $1 FOR UPDATE`, g.Email), &linked)
		switch {
		case interview.Is(err, interview.NotFound):
			u, err = scanUser(tx.QueryRow(ctx,
				`INSERT INTO users (full_name, email, google_id) VALUES ($1, $2, $3) RETURNING `+userColumns,
				g.Name, g.Email, g.Subject))
			return err
		case err != nil:
			return err
		case linked != nil:
			return interview.Errorf(interview.Conflict, "this email is already linked to another Google account")
		}
		// Google has verified the email; nothing proved that whoever
		// registered it first with a password owns it. The owner starts
		// clean: that account goes with everything in it (name, password,
		// interviews, share links, usage, sessions), and a new one is made
		// for the Google identity (docs/api.md, "Google sign-in").
		if _, err := tx.Exec(ctx, `DELETE FROM users WHERE id = $1`, u.ID); err != nil {
			return err
		}
		u, err = scanUser(tx.QueryRow(ctx,
			`INSERT INTO users (full_name, email, google_id) VALUES ($1, $2, $3) RETURNING `+userColumns,
			g.Name, g.Email, g.Subject))
		return err
	})
	if isUnique(err) {
		return interview.User{}, interview.Errorf(interview.Conflict, "this account was linked concurrently; try again")
	}
	return u, err
}

func (s *Store) SessionState(ctx context.Context, id string, tokenHash []byte) (int64, bool, error) {
	if !isUUID(id) {
		return 0, false, errNoAccount
	}
	var (
		v       int64
		revoked bool
	)
	err := s.pool.QueryRow(ctx, `
		SELECT session_version, EXISTS (SELECT 1 FROM revoked_sessions WHERE token_hash = $2)
		FROM users WHERE id = $1`, id, tokenHash).Scan(&v, &revoked)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, errNoAccount
	}
	return v, revoked, err
}

// RevokeSession keeps tokenHash until expires, and drops the rows of
// tokens that have expired anyway.
func (s *Store) RevokeSession(ctx context.Context, id string, tokenHash []byte, expires time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			INSERT INTO revoked_sessions (token_hash, user_id, expires_at) VALUES ($1, $2, $3)
			ON CONFLICT (token_hash) DO NOTHING`, tokenHash, id, expires); err != nil {
			if isCode(err, foreignKeyViolation) {
				return nil // the account is gone, and its sessions with it
			}
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM revoked_sessions WHERE expires_at < now()`)
		return err
	})
}

func (s *Store) PasswordHash(ctx context.Context, id string) (string, error) {
	if !isUUID(id) {
		return "", errNoAccount
	}
	var hash *string
	err := s.pool.QueryRow(ctx, `SELECT password_hash FROM users WHERE id = $1`, id).Scan(&hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", errNoAccount
	}
	if err != nil || hash == nil {
		return "", err
	}
	return *hash, nil
}

func (s *Store) SetPassword(ctx context.Context, id, oldHash, newHash string) (int64, error) {
	var v int64
	err := s.pool.QueryRow(ctx, `
		UPDATE users SET password_hash = $3, session_version = session_version + 1, updated_at = now()
		WHERE id = $1 AND password_hash = $2 RETURNING session_version`, id, oldHash, newHash).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, interview.Errorf(interview.Conflict, "the password was changed meanwhile; sign in again")
	}
	return v, err
}

func (s *Store) RevokeSessions(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE users SET session_version = session_version + 1, updated_at = now() WHERE id = $1`, id)
	if err == nil && tag.RowsAffected() == 0 {
		return errNoAccount
	}
	return err
}

// DeleteUser deletes the account; its interviews, voice usage and limits
// go with it (ON DELETE CASCADE).
func (s *Store) DeleteUser(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM users WHERE id = $1`, id)
	if err == nil && tag.RowsAffected() == 0 {
		return errNoAccount
	}
	return err
}
