package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/judgeworks/interview"
)

// Writes of interviews, each one conditional statement on the database's
// clock: create under the cap, claim, complete, release, save the report,
// discard.

// claimLive is true while an answer's claim is younger than ClaimTTL by the
// database's clock; the claim statements below use the same bound, so one
// clock decides for every replica.
var claimLive = fmt.Sprintf(`(claim_token IS NOT NULL AND answer_claimed_at > now() - interval '%d seconds')`,
	int(interview.ClaimTTL/time.Second))

func (s *Store) Create(ctx context.Context, userID string, st interview.Setup, requirements []string, first interview.Question, maxInProgress int) (string, error) {
	var id string
	if requirements == nil {
		requirements = []string{}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if maxInProgress > 0 {
			// The user's row lock serialises their starts, so two starts
			// cannot both count maxInProgress-1 and both insert.
			var one int
			err := tx.QueryRow(ctx, `SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID).Scan(&one)
			if errors.Is(err, pgx.ErrNoRows) {
				return errAccountGone
			}
			if err != nil {
				return err
			}
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM interviews WHERE user_id = $1 AND status = 'in_progress'`, userID).Scan(&n); err != nil {
				return err
			}
			if n >= maxInProgress {
				return interview.AtCap(maxInProgress)
			}
		}
		return tx.QueryRow(ctx, `
			INSERT INTO interviews (user_id, candidate_name, role, experience, difficulty, total_questions, current_question,
				follow_ups, job_description, requirements)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULLIF($9, ''), $10) RETURNING id::text`,
			userID, st.CandidateName, st.Role, st.Experience, st.Difficulty, st.TotalQuestions, first,
			st.FollowUps, st.JobDescription, requirements).Scan(&id)
	})
	if isCode(err, foreignKeyViolation) {
		return "", errAccountGone
	}
	return id, err
}

func (s *Store) Claim(ctx context.Context, userID, id, questionID string) (interview.Claim, error) {
	return s.claim(ctx, userID, id, questionID, `current_question->>'id' = $3`,
		func(cur interview.Interview) string {
			if cur.Current == nil || cur.Current.ID != questionID {
				return "that is not the current question; reload the interview"
			}
			return "this answer is already being evaluated"
		})
}

// claim takes the answer slot of the user's interview id, in progress, when
// no live claim holds it and the row matches cond, SQL over $3 (questionID).
// When nothing is claimed, why picks the conflict's message from the
// interview as it is now. That read races with other requests, but it only
// picks the message: the claim itself was decided by the update.
func (s *Store) claim(ctx context.Context, userID, id, questionID, cond string, why func(cur interview.Interview) string) (interview.Claim, error) {
	if !isUUID(id) {
		return interview.Claim{}, errNoInterview
	}
	var token string
	row := s.pool.QueryRow(ctx, `
		UPDATE interviews SET claim_token = gen_random_uuid(), answer_claimed_at = now()
		WHERE id = $1 AND user_id = $2 AND status = 'in_progress'
		  AND `+cond+`
		  AND NOT `+claimLive+`
		RETURNING claim_token::text, `+interviewColumns,
		id, userID, questionID)
	iv, err := scanInterview(scanFirst{row: row, first: &token})
	if err == nil {
		return interview.Claim{Token: token, Interview: iv}, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return interview.Claim{}, err
	}
	cur, err := s.Get(ctx, userID, id)
	switch {
	case err != nil:
		return interview.Claim{}, err
	case cur.Status == interview.Completed:
		return interview.Claim{}, interview.Errorf(interview.Conflict, "this interview is already finished")
	default:
		return interview.Claim{}, interview.Errorf(interview.Conflict, "%s", why(cur))
	}
}

// scanFirst scans a leading column into first and the rest as an interview.
type scanFirst struct {
	row   pgx.Row
	first *string
}

func (s scanFirst) Scan(dest ...any) error {
	return s.row.Scan(append([]any{s.first}, dest...)...)
}

func (s *Store) Complete(ctx context.Context, userID, id, token string, r interview.Result, answered int, next *interview.Question) error {
	res, err := json.Marshal(r)
	if err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `
		UPDATE interviews SET question_results = question_results || jsonb_build_array($4::jsonb),
			current_question = $5, answered_questions = $6, claim_token = NULL, answer_claimed_at = NULL
		WHERE id = $1 AND user_id = $2 AND claim_token = $3 AND status = 'in_progress'`,
		id, userID, token, res, next, answered)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return interview.Errorf(interview.Conflict, "the answer took too long and was abandoned, or the interview was finished or discarded meanwhile; reload the interview")
	}
	return nil
}

func (s *Store) ClaimRetry(ctx context.Context, userID, id, questionID string) (interview.Claim, error) {
	return s.claim(ctx, userID, id, questionID,
		`question_results->-1->'question'->>'id' = $3 AND NOT (question_results->-1 ? 'retry')`,
		func(cur interview.Interview) string {
			switch {
			case len(cur.Results) == 0 || cur.Results[len(cur.Results)-1].Question.ID != questionID:
				return "only the question just evaluated can be tried again"
			case cur.Results[len(cur.Results)-1].Retry != nil:
				return "you have already had a second try at this question"
			default:
				return "an answer is being evaluated; try again once its feedback is shown"
			}
		})
}

func (s *Store) CompleteRetry(ctx context.Context, userID, id, token string, index int, a interview.Attempt, current *interview.Question) error {
	attempt, err := json.Marshal(a)
	if err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `
		UPDATE interviews SET question_results = jsonb_set(question_results, ARRAY[$4::int::text, 'retry'], $5::jsonb),
			current_question = $6, claim_token = NULL, answer_claimed_at = NULL
		WHERE id = $1 AND user_id = $2 AND claim_token = $3 AND status = 'in_progress'
		  AND jsonb_array_length(question_results) = $4::int + 1
		  AND NOT (question_results->($4::int) ? 'retry')`,
		id, userID, token, index, attempt, current)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return interview.Errorf(interview.Conflict, "the second try took too long and was abandoned, or the interview changed meanwhile; reload the interview")
	}
	return nil
}

func (s *Store) Release(ctx context.Context, userID, id, token string) error {
	_, err := s.pool.Exec(ctx, `
		UPDATE interviews SET claim_token = NULL, answer_claimed_at = NULL
		WHERE id = $1 AND user_id = $2 AND claim_token = $3`, id, userID, token)
	return err
}

func (s *Store) SaveReport(ctx context.Context, userID, id string, answers int, r interview.Report) (bool, error) {
	if !isUUID(id) {
		return false, errNoInterview
	}
	coverage, err := json.Marshal(r.Requirements)
	if err != nil {
		return false, err
	}
	whole, err := json.Marshal(r)
	if err != nil {
		return false, err
	}
	tag, err := s.pool.Exec(ctx, `
		UPDATE interviews SET status = 'completed', completed_at = now(),
			overall_score = $4, technical_accuracy = $5, communication_score = $6,
			strengths = $7, weaknesses = $8, suggested_topics = $9, feedback = $10,
			requirement_coverage = $11, report = $12,
			current_question = NULL, claim_token = NULL, answer_claimed_at = NULL
		WHERE id = $1 AND user_id = $2 AND status = 'in_progress'
		  AND jsonb_array_length(question_results)
		      + (SELECT count(*) FROM jsonb_array_elements(question_results) r WHERE r ? 'retry') = $3
		  AND NOT `+claimLive,
		id, userID, answers, r.OverallScore, r.TechnicalAccuracy, r.CommunicationScore,
		r.Strengths, r.Weaknesses, r.SuggestedTopics, r.Feedback, coverage, whole)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

func (s *Store) Discard(ctx context.Context, userID, id string) error {
	if !isUUID(id) {
		return errNoInterview
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM interviews WHERE id = $1 AND user_id = $2 AND status = 'in_progress'`, id, userID)
	if err != nil || tag.RowsAffected() == 1 {
		return err
	}
	if _, err := s.Get(ctx, userID, id); err != nil {
		return err
	}
	return interview.Errorf(interview.Conflict, "a completed interview stays in your history; only interviews in progress can be discarded")
}
