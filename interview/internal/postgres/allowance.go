package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview"
)

// VoiceAllowance keeps each user's daily voice allowance: one daily
// allowance per resource ("voice_speech_chars", "voice_transcribe_bytes"),
// on the database's clock. It implements interview.VoiceAllowance.
type VoiceAllowance struct {
	pool *pgxpool.Pool
}

var _ interview.VoiceAllowance = (*VoiceAllowance)(nil)

// NewVoiceAllowance returns the allowance on pool.
func NewVoiceAllowance(pool *pgxpool.Pool) *VoiceAllowance { return &VoiceAllowance{pool: pool} }

// voiceDaily is the allowance of r.
func voiceDaily(r interview.VoiceResource) daily { return daily("voice_" + string(r)) }

func (s *VoiceAllowance) Spend(ctx context.Context, userID string, r interview.VoiceResource, amount, limit int64) (bool, time.Duration, error) {
	return voiceDaily(r).spend(ctx, s.pool, userKey(userID), amount, limit)
}

func (s *VoiceAllowance) Refund(ctx context.Context, userID string, r interview.VoiceResource, amount int64) error {
	return voiceDaily(r).refund(ctx, s.pool, userKey(userID), amount)
}
