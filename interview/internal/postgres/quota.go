package postgres

// The service's two kinds of limit, each written once: the token bucket
// (the sign-in, registration and share-link throttles, and the per-user
// limits on model work) and the daily allowance (model calls, speech and
// transcription). Both are single statements on the database's clock
// (now(); days are UTC days, from now() AT TIME ZONE 'UTC'), so every
// replica counts against the same rows, their own clocks do not matter, and
// a restart forgets nothing.
//
// Postgres rather than Redis: the service needs Postgres anyway, and a
// limit adds one indexed single-row statement to a request that already
// queries it; Redis would be a second store to run and secure.

import (
	"context"
	"crypto/sha256"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/judgeworks/interview"
)

// querier is what the limits need of a pool, a connection or a
// transaction: a caller that checks two limits in one transaction gets
// both or neither.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// key is whose bucket or allowance a rule counts.
type key struct {
	key  []byte
	user any // the user's id, or nil
}

// userKey is the key of a signed-in user: the rows carry the user's id and
// go with the account.
func userKey(id string) key { return key{key: []byte(id), user: id} }

// digestKey is the key of anything else (an address, an email): the tables
// keep only its SHA-256, fixed in size whatever the request held, and not
// the address or email itself.
func digestKey(s string) key {
	sum := sha256.Sum256([]byte(s))
	return key{key: sum[:]}
}

// The take and the check are one statement: the conflict arm updates only
// while the refilled bucket holds a whole token, and the row lock it takes
// serialises concurrent requests, on one replica or several, so no two
// spend the same token. A new bucket starts full, less the token taken.
// The outer select reads the bucket as it was before the statement, at the
// same now(), so a refusal's wait is exact. Refused with no row to read (a
// concurrent first take) waits one interval.
const takeSQL = `
WITH took AS (
  INSERT INTO quota_buckets AS b (name, key, user_id, tokens, updated_at)
  VALUES ($1, $2, $3::uuid, $4::float8 - 1, now())
  ON CONFLICT (name, key) DO UPDATE
     SET tokens = LEAST($4::float8, b.tokens + GREATEST(0, extract(epoch FROM now() - b.updated_at)::float8) / $5::float8) - 1,
         updated_at = GREATEST(b.updated_at, now())
   WHERE LEAST($4::float8, b.tokens + GREATEST(0, extract(epoch FROM now() - b.updated_at)::float8) / $5::float8) >= 1
  RETURNING 1)
SELECT EXISTS (SELECT 1 FROM took),
       COALESCE((SELECT (1 - LEAST($4::float8, tokens + GREATEST(0, extract(epoch FROM now() - updated_at)::float8) / $5::float8)) * $5::float8
                   FROM quota_buckets WHERE name = $1 AND key = $2), $5::float8)`

const giveBackSQL = `
UPDATE quota_buckets SET tokens = LEAST($3::float8, tokens + 1)
 WHERE name = $1 AND key = $2`

// A bucket untouched for its whole refill time is full, the same as none.
const pruneSQL = `
DELETE FROM quota_buckets
 WHERE name = $1 AND updated_at < now() - $2::float8 * interval '1 second'`

// takeToken takes a token from k's bucket of rule b if it holds one.
// Otherwise it takes nothing and returns how long until a token will be
// there.
func takeToken(ctx context.Context, db querier, b interview.Bucket, k key) (bool, time.Duration, error) {
	var (
		ok   bool
		wait float64
	)
	err := db.QueryRow(ctx, takeSQL, b.Name, k.key, k.user, float64(b.Burst), b.Every.Seconds()).Scan(&ok, &wait)
	if err != nil || ok {
		return ok, 0, err
	}
	return false, seconds(wait), nil
}

// giveBackToken returns a token taken by takeToken, up to the burst: the
// request it paid for did not happen or did not count.
func giveBackToken(ctx context.Context, db querier, b interview.Bucket, k key) error {
	_, err := db.Exec(ctx, giveBackSQL, b.Name, k.key, float64(b.Burst))
	return err
}

// pruneBuckets deletes the buckets of rule b that have refilled.
func pruneBuckets(ctx context.Context, db querier, b interview.Bucket) error {
	_, err := db.Exec(ctx, pruneSQL, b.Name, (time.Duration(b.Burst) * b.Every).Seconds())
	return err
}

// daily is an allowance per UTC day; the value is the rule's name in the
// table, a constant of the service.
type daily string

// The increment and the check are one statement: the conflict arm updates
// only while the day's new total stays within the limit (a row of an
// earlier day starts again from zero), and its row lock serialises
// concurrent requests, so two can never both pass on the same remainder.
// An amount over the whole limit inserts nothing. The second column is the
// time until midnight UTC, when the allowance resets.
const spendSQL = `
WITH spent AS (
  INSERT INTO quota_days AS d (name, key, user_id, day, used)
  SELECT $1, $2, $3::uuid, (now() AT TIME ZONE 'UTC')::date, $4::bigint
   WHERE $4::bigint <= $5::bigint
  ON CONFLICT (name, key) DO UPDATE
     SET used = CASE WHEN d.day = EXCLUDED.day THEN d.used ELSE 0 END + EXCLUDED.used,
         day = EXCLUDED.day
   WHERE CASE WHEN d.day = EXCLUDED.day THEN d.used ELSE 0 END + EXCLUDED.used <= $5::bigint
  RETURNING 1)
SELECT EXISTS (SELECT 1 FROM spent),
       extract(epoch FROM date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day' - (now() AT TIME ZONE 'UTC'))::float8`

const refundSQL = `
UPDATE quota_days SET used = GREATEST(0, used - $3::bigint)
 WHERE name = $1 AND key = $2 AND day = (now() AT TIME ZONE 'UTC')::date`

// spend adds amount to k's use today if the total stays within limit.
// Otherwise it adds nothing and returns how long until the allowance
// resets at midnight UTC.
func (d daily) spend(ctx context.Context, db querier, k key, amount, limit int64) (bool, time.Duration, error) {
	var (
		ok   bool
		wait float64
	)
	err := db.QueryRow(ctx, spendSQL, string(d), k.key, k.user, amount, limit).Scan(&ok, &wait)
	if err != nil || ok {
		return ok, 0, err
	}
	return false, seconds(wait), nil
}

// refund gives back amount of today's use, down to zero: work it paid for
// was not done. A spend of a day that has ended is not refunded.
func (d daily) refund(ctx context.Context, db querier, k key, amount int64) error {
	_, err := db.Exec(ctx, refundSQL, string(d), k.key, amount)
	return err
}

func seconds(s float64) time.Duration {
	return time.Duration(math.Ceil(s * float64(time.Second)))
}
