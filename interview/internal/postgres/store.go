package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview/internal/account"
	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/interviews"
	"github.com/judgeworks/interview/internal/problem"
	"github.com/judgeworks/interview/internal/report"
)

// Store implements account.Store and interviews.Store.
type Store struct {
	pool *pgxpool.Pool
}

var (
	_ account.Store    = (*Store)(nil)
	_ interviews.Store = (*Store)(nil)
)

// NewStore returns a Store on pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

const uniqueViolation = "23505"

var errNoInterview = problem.New(problem.NotFound, "interview not found")

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

// ---- accounts ----

func (s *Store) CreateUser(ctx context.Context, fullName, email, passwordHash string) (account.User, error) {
	u := account.User{FullName: fullName, Email: email}
	err := s.pool.QueryRow(ctx,
		`INSERT INTO users (full_name, email, password_hash) VALUES ($1, $2, $3) RETURNING id::text`,
		fullName, email, passwordHash).Scan(&u.ID)
	if isUnique(err) {
		return account.User{}, problem.New(problem.Conflict, "an account with this email already exists")
	}
	return u, err
}

func (s *Store) UserByEmail(ctx context.Context, email string) (account.User, string, error) {
	var u account.User
	var hash *string
	err := s.pool.QueryRow(ctx,
		`SELECT id::text, full_name, email, password_hash FROM users WHERE email = $1`, email).
		Scan(&u.ID, &u.FullName, &u.Email, &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return account.User{}, "", problem.New(problem.NotFound, "no such account")
	}
	if err != nil {
		return account.User{}, "", err
	}
	if hash == nil {
		return u, "", nil
	}
	return u, *hash, nil
}

func (s *Store) UserByID(ctx context.Context, id string) (account.User, error) {
	if !isUUID(id) {
		return account.User{}, problem.New(problem.NotFound, "no such account")
	}
	var u account.User
	err := s.pool.QueryRow(ctx, `SELECT id::text, full_name, email FROM users WHERE id = $1`, id).
		Scan(&u.ID, &u.FullName, &u.Email)
	if errors.Is(err, pgx.ErrNoRows) {
		return account.User{}, problem.New(problem.NotFound, "no such account")
	}
	return u, err
}

func (s *Store) SignInGoogle(ctx context.Context, g account.GoogleIdentity) (account.User, error) {
	var u account.User
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `SELECT id::text, full_name, email FROM users WHERE google_id = $1`, g.Subject).
			Scan(&u.ID, &u.FullName, &u.Email)
		if err == nil || !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var linked *string
		err = tx.QueryRow(ctx, `SELECT id::text, full_name, email, google_id FROM users WHERE email = $1 FOR UPDATE`, g.Email).
			Scan(&u.ID, &u.FullName, &u.Email, &linked)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return tx.QueryRow(ctx,
				`INSERT INTO users (full_name, email, google_id) VALUES ($1, $2, $3) RETURNING id::text, full_name, email`,
				g.Name, g.Email, g.Subject).Scan(&u.ID, &u.FullName, &u.Email)
		case err != nil:
			return err
		case linked != nil:
			return problem.New(problem.Conflict, "this email is already linked to another Google account")
		}
		// Google has verified the email; a password set by whoever
		// registered it first was never verified, so it goes.
		_, err = tx.Exec(ctx, `UPDATE users SET google_id = $1, password_hash = NULL, updated_at = now() WHERE id = $2`, g.Subject, u.ID)
		return err
	})
	if isUnique(err) {
		return account.User{}, problem.New(problem.Conflict, "this account was linked concurrently; try again")
	}
	return u, err
}

// ---- interviews ----

func (s *Store) Create(ctx context.Context, userID string, st interviewer.Setup, first interviewer.Question) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `
		INSERT INTO interviews (user_id, candidate_name, role, experience, difficulty, total_questions, current_question)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id::text`,
		userID, st.CandidateName, st.Role, st.Experience, st.Difficulty, st.TotalQuestions, first).Scan(&id)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23503" {
		return "", problem.New(problem.Unauthenticated, "the account no longer exists")
	}
	return id, err
}

const interviewColumns = `id::text, status, candidate_name, role, experience, difficulty, total_questions,
	current_question, question_results, overall_score, technical_accuracy, communication_score,
	strengths, weaknesses, suggested_topics, feedback, created_at, completed_at`

func scanInterview(row pgx.Row) (interviews.Interview, error) {
	var (
		iv                    interviews.Interview
		current               *interviewer.Question
		results               []interviewer.Result
		overall, tech, comm   *int
		strengths, weak, topi []string
		feedback              *string
	)
	err := row.Scan(&iv.ID, &iv.Status, &iv.Setup.CandidateName, &iv.Setup.Role, &iv.Setup.Experience,
		&iv.Setup.Difficulty, &iv.Setup.TotalQuestions, &current, &results, &overall, &tech, &comm,
		&strengths, &weak, &topi, &feedback, &iv.CreatedAt, &iv.CompletedAt)
	if err != nil {
		return iv, err
	}
	iv.Current = current
	if results == nil {
		results = []interviewer.Result{}
	}
	iv.Results = results
	if iv.Status == interviews.Completed && overall != nil && tech != nil && comm != nil {
		r := report.Build(results, interviewer.Summary{Strengths: strengths, Weaknesses: weak, SuggestedTopics: topi})
		r.OverallScore, r.TechnicalAccuracy, r.CommunicationScore = *overall, *tech, *comm
		if feedback != nil {
			r.Feedback = *feedback
		}
		iv.Report = &r
	}
	return iv, nil
}

func (s *Store) Get(ctx context.Context, userID, id string) (interviews.Interview, error) {
	if !isUUID(id) {
		return interviews.Interview{}, errNoInterview
	}
	iv, err := scanInterview(s.pool.QueryRow(ctx,
		`SELECT `+interviewColumns+` FROM interviews WHERE id = $1 AND user_id = $2`, id, userID))
	if errors.Is(err, pgx.ErrNoRows) {
		return iv, errNoInterview
	}
	return iv, err
}

func (s *Store) Claim(ctx context.Context, userID, id, questionID string, now, expiredBefore time.Time) (interviews.Claim, error) {
	if !isUUID(id) {
		return interviews.Claim{}, errNoInterview
	}
	var token string
	row := s.pool.QueryRow(ctx, `
		UPDATE interviews SET claim_token = gen_random_uuid(), answer_claimed_at = $4
		WHERE id = $1 AND user_id = $2 AND status = 'in_progress'
		  AND current_question->>'id' = $3
		  AND (claim_token IS NULL OR answer_claimed_at < $5)
		RETURNING claim_token::text, `+interviewColumns,
		id, userID, questionID, now, expiredBefore)
	iv, err := scanInterview(scanFirst{row: row, first: &token})
	if err == nil {
		return interviews.Claim{Token: token, Interview: iv}, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return interviews.Claim{}, err
	}
	// Nothing claimed; say why. This read races with other requests, but it
	// only picks the message: the claim itself was decided above.
	cur, err := s.Get(ctx, userID, id)
	switch {
	case err != nil:
		return interviews.Claim{}, err
	case cur.Status == interviews.Completed:
		return interviews.Claim{}, problem.New(problem.Conflict, "this interview is already finished")
	case cur.Current == nil || cur.Current.ID != questionID:
		return interviews.Claim{}, problem.New(problem.Conflict, "that is not the current question; reload the interview")
	default:
		return interviews.Claim{}, problem.New(problem.Conflict, "this answer is already being evaluated")
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

func (s *Store) Complete(ctx context.Context, userID, id, token string, r interviewer.Result, next *interviewer.Question) error {
	res, err := json.Marshal(r)
	if err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `
		UPDATE interviews SET question_results = question_results || jsonb_build_array($4::jsonb),
			current_question = $5, claim_token = NULL, answer_claimed_at = NULL
		WHERE id = $1 AND user_id = $2 AND claim_token = $3 AND status = 'in_progress'`,
		id, userID, token, res, next)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return problem.New(problem.Conflict, "the answer took too long and was abandoned, or the interview was finished meanwhile; reload the interview")
	}
	return nil
}

func (s *Store) Release(ctx context.Context, userID, id, token string) error {
	_, err := s.pool.Exec(ctx, `
		UPDATE interviews SET claim_token = NULL, answer_claimed_at = NULL
		WHERE id = $1 AND user_id = $2 AND claim_token = $3`, id, userID, token)
	return err
}

func (s *Store) SaveReport(ctx context.Context, userID, id string, answered int, r report.Report, now time.Time) (bool, error) {
	if !isUUID(id) {
		return false, errNoInterview
	}
	tag, err := s.pool.Exec(ctx, `
		UPDATE interviews SET status = 'completed', completed_at = $4,
			overall_score = $5, technical_accuracy = $6, communication_score = $7,
			strengths = $8, weaknesses = $9, suggested_topics = $10, feedback = $11,
			current_question = NULL, claim_token = NULL, answer_claimed_at = NULL
		WHERE id = $1 AND user_id = $2 AND status = 'in_progress'
		  AND jsonb_array_length(question_results) = $3`,
		id, userID, answered, now, r.OverallScore, r.TechnicalAccuracy, r.CommunicationScore,
		r.Strengths, r.Weaknesses, r.SuggestedTopics, r.Feedback)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

func (s *Store) History(ctx context.Context, userID string) ([]interviews.Summary, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id::text, candidate_name, role, experience, difficulty, total_questions,
			jsonb_array_length(question_results), overall_score, technical_accuracy, communication_score, completed_at
		FROM interviews
		WHERE user_id = $1 AND status = 'completed'
		ORDER BY completed_at DESC, id`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []interviews.Summary{}
	for rows.Next() {
		var h interviews.Summary
		err := rows.Scan(&h.ID, &h.Setup.CandidateName, &h.Setup.Role, &h.Setup.Experience, &h.Setup.Difficulty,
			&h.Setup.TotalQuestions, &h.Answered, &h.OverallScore, &h.TechnicalAccuracy, &h.CommunicationScore, &h.CompletedAt)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

func isUnique(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == uniqueViolation
}
