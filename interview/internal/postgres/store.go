package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview"
)

// Store implements interview.UserStore and interview.InterviewStore. Its
// SQL is split by what it keeps: accounts (accounts.go), interviews read
// (interviews_read.go) and written (interviews_write.go), share links
// (shares.go) and the limits on model work (limits.go).
type Store struct {
	pool *pgxpool.Pool
}

var (
	_ interview.UserStore      = (*Store)(nil)
	_ interview.InterviewStore = (*Store)(nil)
)

// NewStore returns a Store on pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

const uniqueViolation = "23505"

var errNoInterview = interview.Errorf(interview.NotFound, "interview not found")

// isUUID reports whether s can be a uuid column value; anything else can
// name no row, and asking Postgres would only produce a cast error.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return false
			}
		case (r >= '0' && r <= '9') || (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F'):
		default:
			return false
		}
	}
	return true
}

const foreignKeyViolation = "23503"

var errAccountGone = interview.Errorf(interview.Unauthenticated, "the account no longer exists")

func isCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}

func isUnique(err error) bool { return isCode(err, uniqueViolation) }
