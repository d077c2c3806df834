package voice

import (
	"context"
	"time"

	"github.com/judgeworks/interview/internal/quota"
)

// Resource is what the daily allowance counts.
type Resource string

// The counted resources.
const (
	SpeechChars     Resource = "speech_chars"
	TranscribeBytes Resource = "transcribe_bytes"
)

// Allowance is the per-user daily budget, per UTC day. Spend reserves
// amount for the user's day and reports false, reserving nothing, when
// that would go over limit, with the time until the allowance resets;
// Refund gives back a reservation whose work the provider did not do.
type Allowance interface {
	Spend(ctx context.Context, userID string, r Resource, amount, limit int64) (bool, time.Duration, error)
	Refund(ctx context.Context, userID string, r Resource, amount int64) error
}

// Usage keeps the allowance in Postgres: one daily allowance of package
// quota per resource ("voice_speech_chars", "voice_transcribe_bytes"), on
// the database's clock.
type Usage struct {
	db quota.DB
}

// NewUsage returns the Postgres allowance.
func NewUsage(db quota.DB) *Usage { return &Usage{db: db} }

// daily is the allowance of r.
func daily(r Resource) quota.Daily { return quota.Daily("voice_" + string(r)) }

// Spend implements Allowance.
func (u *Usage) Spend(ctx context.Context, userID string, r Resource, amount, limit int64) (bool, time.Duration, error) {
	return daily(r).Spend(ctx, u.db, quota.User(userID), amount, limit)
}

// Refund implements Allowance.
func (u *Usage) Refund(ctx context.Context, userID string, r Resource, amount int64) error {
	return daily(r).Refund(ctx, u.db, quota.User(userID), amount)
}
