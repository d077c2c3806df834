package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/judgeworks/interview"
)

func (s *Store) Share(ctx context.Context, userID, id string, tokenHash []byte) error {
	if !isUUID(id) {
		return errNoInterview
	}
	tag, err := s.pool.Exec(ctx, `
		INSERT INTO interview_shares (interview_id, token_hash)
		SELECT id, $3 FROM interviews WHERE id = $1 AND user_id = $2 AND status = 'completed'
		ON CONFLICT (interview_id) DO UPDATE SET token_hash = EXCLUDED.token_hash, created_at = now()`,
		id, userID, tokenHash)
	if err != nil || tag.RowsAffected() == 1 {
		return err
	}
	if _, err := s.Get(ctx, userID, id); err != nil {
		return err
	}
	return interview.Errorf(interview.Conflict, "only a finished interview's report can be shared; finish it first")
}

func (s *Store) Unshare(ctx context.Context, userID, id string) error {
	if !isUUID(id) {
		return errNoInterview
	}
	tag, err := s.pool.Exec(ctx, `
		DELETE FROM interview_shares sh USING interviews i
		WHERE sh.interview_id = i.id AND i.id = $1 AND i.user_id = $2`, id, userID)
	if err != nil || tag.RowsAffected() == 1 {
		return err
	}
	// Nothing was shared: fine, unless there is no such interview of the user's.
	_, err = s.Get(ctx, userID, id)
	return err
}

func (s *Store) SharedInterview(ctx context.Context, tokenHash []byte) (interview.Interview, error) {
	iv, err := scanInterview(s.pool.QueryRow(ctx, `SELECT `+interviewColumns+` FROM interviews
		WHERE id = (SELECT interview_id FROM interview_shares WHERE token_hash = $1) AND status = 'completed'`, tokenHash))
	if errors.Is(err, pgx.ErrNoRows) {
		return iv, errNoInterview
	}
	return iv, err
}
