package voice

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Resource is what the daily allowance counts.
type Resource string

// The counted resources.
const (
	SpeechChars     Resource = "speech_chars"
	TranscribeBytes Resource = "transcribe_bytes"
)

// Allowance is the per-user daily budget. Spend reserves amount for the
// user's day and reports false, reserving nothing, when that would go over
// limit; Refund gives back a reservation whose work the provider did not do.
type Allowance interface {
	Spend(ctx context.Context, userID string, day time.Time, r Resource, amount, limit int64) (bool, error)
	Refund(ctx context.Context, userID string, day time.Time, r Resource, amount int64) error
}

// DB is what Usage needs of a pool or connection.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Usage keeps the allowance in the voice_usage table, one row per user, UTC
// day and resource.
type Usage struct {
	db DB
}

// NewUsage returns the Postgres allowance.
func NewUsage(db DB) *Usage { return &Usage{db: db} }

// The increment and the limit check are one statement: the conflict arm
// updates only while the new total stays within the limit, and the row lock
// it takes serialises concurrent requests, so two requests can never both
// pass on the same remaining budget. No row back means over the limit.
const spendSQL = `
INSERT INTO voice_usage (user_id, day, resource, used)
VALUES ($1, $2, $3, $4)
ON CONFLICT (user_id, day, resource) DO UPDATE
   SET used = voice_usage.used + EXCLUDED.used
 WHERE voice_usage.used + EXCLUDED.used <= $5
RETURNING used`

const refundSQL = `
UPDATE voice_usage SET used = GREATEST(used - $4, 0)
 WHERE user_id = $1 AND day = $2 AND resource = $3`

// Spend implements Allowance.
func (u *Usage) Spend(ctx context.Context, userID string, day time.Time, r Resource, amount, limit int64) (bool, error) {
	if amount > limit {
		// The first insert of the day has no conflict arm to check.
		return false, nil
	}
	var used int64
	err := u.db.QueryRow(ctx, spendSQL, userID, utcDay(day), string(r), amount, limit).Scan(&used)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// Refund implements Allowance.
func (u *Usage) Refund(ctx context.Context, userID string, day time.Time, r Resource, amount int64) error {
	_, err := u.db.Exec(ctx, refundSQL, userID, utcDay(day), string(r), amount)
	return err
}

// utcDay is the calendar day the allowance counts against: days change at
// midnight UTC for everyone, whatever the server's zone.
func utcDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// untilTomorrow is how long until the allowance resets.
func untilTomorrow(now time.Time) time.Duration {
	return utcDay(now).AddDate(0, 0, 1).Sub(now)
}
