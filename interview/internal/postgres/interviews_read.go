package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/judgeworks/interview"
)

// Reads of interviews: one interview (with its results and its stored
// report, read back as stored) and the lists, which read the stored count
// of answered main questions.

var interviewColumns = `id::text, status, candidate_name, role, experience, difficulty, total_questions,
	current_question, question_results, created_at, completed_at, ` + claimLive + `,
	follow_ups, coalesce(job_description, ''), requirements,
	EXISTS (SELECT 1 FROM interview_shares sh WHERE sh.interview_id = interviews.id), report, answered_questions`

func scanInterview(row pgx.Row) (interview.Interview, error) {
	var iv interview.Interview
	err := row.Scan(&iv.ID, &iv.Status, &iv.Setup.CandidateName, &iv.Setup.Role, &iv.Setup.Experience,
		&iv.Setup.Difficulty, &iv.Setup.TotalQuestions, &iv.Current, &iv.Results, &iv.CreatedAt, &iv.CompletedAt, &iv.ClaimLive,
		&iv.Setup.FollowUps, &iv.Setup.JobDescription, &iv.Requirements, &iv.Shared, &iv.Report, &iv.Answered)
	if err != nil {
		return iv, err
	}
	if iv.Results == nil {
		iv.Results = []interview.Result{}
	}
	if iv.Requirements == nil {
		iv.Requirements = []string{}
	}
	if iv.Status != interview.Completed {
		iv.Report = nil
	}
	return iv, nil
}

func (s *Store) Get(ctx context.Context, userID, id string) (interview.Interview, error) {
	if !isUUID(id) {
		return interview.Interview{}, errNoInterview
	}
	iv, err := scanInterview(s.pool.QueryRow(ctx,
		`SELECT `+interviewColumns+` FROM interviews WHERE id = $1 AND user_id = $2`, id, userID))
	if errors.Is(err, pgx.ErrNoRows) {
		return iv, errNoInterview
	}
	return iv, err
}

func (s *Store) History(ctx context.Context, userID string, before time.Time, limit int) ([]interview.HistoryEntry, error) {
	// A bound of infinity keeps one query shape, a range on the history
	// index, whether or not the client gave one.
	bound := pgtype.Timestamptz{Time: before, Valid: true}
	if before.IsZero() {
		bound = pgtype.Timestamptz{InfinityModifier: pgtype.Infinity, Valid: true}
	}
	rows, err := s.pool.Query(ctx, `
		SELECT id::text, candidate_name, role, experience, difficulty, total_questions,
			answered_questions, overall_score, technical_accuracy, communication_score, completed_at
		FROM interviews
		WHERE user_id = $1 AND status = 'completed' AND completed_at < $2
		ORDER BY completed_at DESC, id
		LIMIT $3`, userID, bound, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []interview.HistoryEntry{}
	for rows.Next() {
		var h interview.HistoryEntry
		err := rows.Scan(&h.ID, &h.Setup.CandidateName, &h.Setup.Role, &h.Setup.Experience, &h.Setup.Difficulty,
			&h.Setup.TotalQuestions, &h.Answered, &h.OverallScore, &h.TechnicalAccuracy, &h.CommunicationScore, &h.CompletedAt)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

func (s *Store) InProgress(ctx context.Context, userID string, limit int) ([]interview.Active, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id::text, candidate_name, role, experience, difficulty, total_questions,
			answered_questions, current_question IS NOT NULL, coalesce(current_question->>'kind' = 'followUp', false), created_at
		FROM interviews
		WHERE user_id = $1 AND status = 'in_progress'
		ORDER BY created_at DESC, id
		LIMIT $2`, userID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []interview.Active{}
	for rows.Next() {
		var a interview.Active
		err := rows.Scan(&a.ID, &a.Setup.CandidateName, &a.Setup.Role, &a.Setup.Experience, &a.Setup.Difficulty,
			&a.Setup.TotalQuestions, &a.Answered, &a.Asking, &a.FollowUp, &a.CreatedAt)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
