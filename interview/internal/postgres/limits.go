package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/judgeworks/interview"
)

// Limits on model work: a token bucket per user and operation and a daily
// count of calls (quota.go), checked in one transaction.

// modelCalls is the daily allowance of model calls.
const modelCalls daily = "model_calls"

// modelBucket is the token bucket of op at rate.
func modelBucket(op interview.Op, rate interview.Rate) interview.Bucket {
	return interview.Bucket{Name: "model_" + string(op), Burst: rate.Burst, Every: time.Hour / time.Duration(rate.PerHour)}
}

// errRefused rolls back a Spend whose second limit refused after the first
// had passed, so a refusal takes nothing from either.
var errRefused = errors.New("refused")

func (s *Store) Spend(ctx context.Context, userID string, op interview.Op, rate interview.Rate, calls, daily int) (interview.Spending, error) {
	var out interview.Spending
	user := userKey(userID)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if rate.Burst > 0 && rate.PerHour > 0 {
			ok, wait, err := takeToken(ctx, tx, modelBucket(op, rate), user)
			if err != nil {
				return err
			}
			if !ok {
				out = interview.Spending{Wait: wait}
				return errRefused
			}
		}
		if daily > 0 {
			ok, wait, err := modelCalls.spend(ctx, tx, user, int64(calls), int64(daily))
			if err != nil {
				return err
			}
			if !ok {
				out = interview.Spending{Daily: true, Wait: wait}
				return errRefused
			}
		}
		out.OK = true
		return nil
	})
	switch {
	case errors.Is(err, errRefused):
		return out, nil
	case isCode(err, foreignKeyViolation):
		return interview.Spending{}, errAccountGone
	case err != nil:
		return interview.Spending{}, err
	}
	return out, nil
}

func (s *Store) Refund(ctx context.Context, userID string, op interview.Op, rate interview.Rate, calls int) error {
	user := userKey(userID)
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if rate.Burst > 0 && rate.PerHour > 0 {
			if err := giveBackToken(ctx, tx, modelBucket(op, rate), user); err != nil {
				return err
			}
		}
		return modelCalls.refund(ctx, tx, user, int64(calls))
	})
}
