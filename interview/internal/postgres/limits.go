package postgres

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/judgeworks/interview/internal/interviews"
)

// Limits on model work: a token bucket per user and operation and a daily
// count of calls, both on the database's clock.

// takeTokenSQL takes one token from the bucket in one statement: the
// bucket refills at $4 tokens a second up to $3, measured with the
// database's clock, and the conflict arm updates only when a whole token is
// there. The row lock it takes serialises concurrent requests of the user
// on every replica, so no two can spend the same token. No row back means
// refused, with nothing taken.
const takeTokenSQL = `
INSERT INTO model_buckets AS b (user_id, operation, tokens, updated_at)
VALUES ($1, $2, $3::float8 - 1, now())
ON CONFLICT (user_id, operation) DO UPDATE
   SET tokens = LEAST($3::float8, b.tokens + $4::float8 * GREATEST(0, extract(epoch FROM now() - b.updated_at)::float8)) - 1,
       updated_at = now()
 WHERE LEAST($3::float8, b.tokens + $4::float8 * GREATEST(0, extract(epoch FROM now() - b.updated_at)::float8)) >= 1
RETURNING tokens`

// tokenWaitSQL is how many seconds until the bucket holds a whole token.
const tokenWaitSQL = `
SELECT (1 - LEAST($3::float8, tokens + $4::float8 * GREATEST(0, extract(epoch FROM now() - updated_at)::float8))) / $4::float8
  FROM model_buckets WHERE user_id = $1 AND operation = $2`

// spendCallsSQL adds $2 calls to the user's count for today (UTC, by the
// database's clock) while the total stays within $3; a row of an earlier
// day starts again from zero.
const spendCallsSQL = `
INSERT INTO model_calls AS m (user_id, day, used)
VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2)
ON CONFLICT (user_id) DO UPDATE
   SET used = CASE WHEN m.day = EXCLUDED.day THEN m.used ELSE 0 END + EXCLUDED.used,
       day = EXCLUDED.day
 WHERE CASE WHEN m.day = EXCLUDED.day THEN m.used ELSE 0 END + EXCLUDED.used <= $3
RETURNING used`

// untilTomorrowSQL is how many seconds until midnight UTC.
const untilTomorrowSQL = `
SELECT extract(epoch FROM date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day' - (now() AT TIME ZONE 'UTC'))::float8`

// errRefused rolls back a Spend whose second limit refused after the first
// had passed, so a refusal takes nothing from either.
var errRefused = errors.New("refused")

func (s *Store) Spend(ctx context.Context, userID string, op interviews.Op, rate interviews.Rate, calls, daily int) (interviews.Spending, error) {
	if daily > 0 && calls > daily {
		// The first insert of the day has no conflict arm to check.
		return interviews.Spending{Daily: true, Wait: 24 * time.Hour}, nil
	}
	var out interviews.Spending
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if rate.Burst > 0 && rate.PerHour > 0 {
			burst, perSecond := float64(rate.Burst), float64(rate.PerHour)/3600
			var left float64
			err := tx.QueryRow(ctx, takeTokenSQL, userID, string(op), burst, perSecond).Scan(&left)
			if errors.Is(err, pgx.ErrNoRows) {
				var secs float64
				if err := tx.QueryRow(ctx, tokenWaitSQL, userID, string(op), burst, perSecond).Scan(&secs); err != nil {
					return err
				}
				out = interviews.Spending{Wait: seconds(secs)}
				return errRefused
			}
			if err != nil {
				return err
			}
		}
		if daily > 0 {
			var used int
			err := tx.QueryRow(ctx, spendCallsSQL, userID, calls, daily).Scan(&used)
			if errors.Is(err, pgx.ErrNoRows) {
				var secs float64
				if err := tx.QueryRow(ctx, untilTomorrowSQL).Scan(&secs); err != nil {
					return err
				}
				out = interviews.Spending{Daily: true, Wait: seconds(secs)}
				return errRefused
			}
			if err != nil {
				return err
			}
		}
		out.OK = true
		return nil
	})
	switch {
	case errors.Is(err, errRefused):
		return out, nil
	case isCode(err, foreignKeyViolation):
		return interviews.Spending{}, errAccountGone
	case err != nil:
		return interviews.Spending{}, err
	}
	return out, nil
}

func (s *Store) Refund(ctx context.Context, userID string, op interviews.Op, rate interviews.Rate, calls int) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if rate.Burst > 0 && rate.PerHour > 0 {
			if _, err := tx.Exec(ctx, `
				UPDATE model_buckets SET tokens = LEAST($3::float8, tokens + 1)
				WHERE user_id = $1 AND operation = $2`, userID, string(op), float64(rate.Burst)); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `
			UPDATE model_calls SET used = GREATEST(0, used - $2)
			WHERE user_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date`, userID, calls)
		return err
	})
}

func seconds(s float64) time.Duration {
	return time.Duration(math.Ceil(s * float64(time.Second)))
}
