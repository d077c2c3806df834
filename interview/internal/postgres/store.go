package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview/internal/account"
	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/interviews"
	"github.com/judgeworks/interview/internal/problem"
	"github.com/judgeworks/interview/internal/report"
)

// Store implements account.Store and interviews.Store (interviews and the
// limits on their model work).
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

var errNoAccount = problem.New(problem.NotFound, "no such account")

func (s *Store) CreateUser(ctx context.Context, fullName, email, passwordHash string) (account.User, error) {
	u := account.User{FullName: fullName, Email: email, HasPassword: true}
	err := s.pool.QueryRow(ctx,
		`INSERT INTO users (full_name, email, password_hash) VALUES ($1, $2, $3) RETURNING id::text, session_version`,
		fullName, email, passwordHash).Scan(&u.ID, &u.SessionVersion)
	if isUnique(err) {
		return account.User{}, problem.New(problem.Conflict, "an account with this email already exists")
	}
	return u, err
}

const userColumns = `id::text, full_name, email, password_hash IS NOT NULL, session_version`

func scanUser(row pgx.Row, extra ...any) (account.User, error) {
	var u account.User
	err := row.Scan(append([]any{&u.ID, &u.FullName, &u.Email, &u.HasPassword, &u.SessionVersion}, extra...)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return account.User{}, errNoAccount
	}
	return u, err
}

func (s *Store) UserByEmail(ctx context.Context, email string) (account.User, string, error) {
	var hash *string
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+`, password_hash FROM users WHERE email = $1`, email), &hash)
	if err != nil || hash == nil {
		return u, "", err
	}
	return u, *hash, nil
}

func (s *Store) UserByID(ctx context.Context, id string) (account.User, error) {
	if !isUUID(id) {
		return account.User{}, errNoAccount
	}
	return scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
}

func (s *Store) SignInGoogle(ctx context.Context, g account.GoogleIdentity) (account.User, error) {
	var u account.User
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE google_id = $1`, g.Subject))
		if err == nil || !problem.Is(err, problem.NotFound) {
			return err
		}
		var linked *string
		u, err = scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+`, google_id FROM users WHERE email = $1 FOR UPDATE`, g.Email), &linked)
		switch {
		case problem.Is(err, problem.NotFound):
			u, err = scanUser(tx.QueryRow(ctx,
				`INSERT INTO users (full_name, email, google_id) VALUES ($1, $2, $3) RETURNING `+userColumns,
				g.Name, g.Email, g.Subject))
			return err
		case err != nil:
			return err
		case linked != nil:
			return problem.New(problem.Conflict, "this email is already linked to another Google account")
		}
		// Google has verified the email; nothing proved that whoever
		// registered it first with a password owns it. The owner starts
		// clean: that account goes with everything in it (name, password,
		// interviews, share links, usage, sessions), and a new one is made
		// for the Google identity (docs/api.md, "Google sign-in").
		if _, err := tx.Exec(ctx, `DELETE FROM users WHERE id = $1`, u.ID); err != nil {
			return err
		}
		u, err = scanUser(tx.QueryRow(ctx,
			`INSERT INTO users (full_name, email, google_id) VALUES ($1, $2, $3) RETURNING `+userColumns,
			g.Name, g.Email, g.Subject))
		return err
	})
	if isUnique(err) {
		return account.User{}, problem.New(problem.Conflict, "this account was linked concurrently; try again")
	}
	return u, err
}

func (s *Store) SessionState(ctx context.Context, id string, tokenHash []byte) (int64, bool, error) {
	if !isUUID(id) {
		return 0, false, errNoAccount
	}
	var (
		v       int64
		revoked bool
	)
	err := s.pool.QueryRow(ctx, `
		SELECT session_version, EXISTS (SELECT 1 FROM revoked_sessions WHERE token_hash = $2)
		FROM users WHERE id = $1`, id, tokenHash).Scan(&v, &revoked)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, errNoAccount
	}
	return v, revoked, err
}

// RevokeSession keeps tokenHash until expires, and drops the rows of
// tokens that have expired anyway.
func (s *Store) RevokeSession(ctx context.Context, id string, tokenHash []byte, expires time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			INSERT INTO revoked_sessions (token_hash, user_id, expires_at) VALUES ($1, $2, $3)
			ON CONFLICT (token_hash) DO NOTHING`, tokenHash, id, expires); err != nil {
			if isCode(err, foreignKeyViolation) {
				return nil // the account is gone, and its sessions with it
			}
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM revoked_sessions WHERE expires_at < now()`)
		return err
	})
}

func (s *Store) PasswordHash(ctx context.Context, id string) (string, error) {
	if !isUUID(id) {
		return "", errNoAccount
	}
	var hash *string
	err := s.pool.QueryRow(ctx, `SELECT password_hash FROM users WHERE id = $1`, id).Scan(&hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", errNoAccount
	}
	if err != nil || hash == nil {
		return "", err
	}
	return *hash, nil
}

func (s *Store) SetPassword(ctx context.Context, id, oldHash, newHash string) (int64, error) {
	var v int64
	err := s.pool.QueryRow(ctx, `
		UPDATE users SET password_hash = $3, session_version = session_version + 1, updated_at = now()
		WHERE id = $1 AND password_hash = $2 RETURNING session_version`, id, oldHash, newHash).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, problem.New(problem.Conflict, "the password was changed meanwhile; sign in again")
	}
	return v, err
}

func (s *Store) RevokeSessions(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE users SET session_version = session_version + 1, updated_at = now() WHERE id = $1`, id)
	if err == nil && tag.RowsAffected() == 0 {
		return errNoAccount
	}
	return err
}

// DeleteUser deletes the account; its interviews, voice usage and limits
// go with it (ON DELETE CASCADE).
func (s *Store) DeleteUser(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM users WHERE id = $1`, id)
	if err == nil && tag.RowsAffected() == 0 {
		return errNoAccount
	}
	return err
}

// ---- interviews ----

const foreignKeyViolation = "23503"

var errAccountGone = problem.New(problem.Unauthenticated, "the account no longer exists")

// claimLive is true while an answer's claim is younger than ClaimTTL by the
// database's clock; the claim statements below use the same bound, so one
// clock decides for every replica.
var claimLive = fmt.Sprintf(`(claim_token IS NOT NULL AND answer_claimed_at > now() - interval '%d seconds')`,
	int(interviews.ClaimTTL/time.Second))

func (s *Store) Create(ctx context.Context, userID string, st interviewer.Setup, requirements []string, first interviewer.Question, maxInProgress int) (string, error) {
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
				return interviews.AtCap(maxInProgress)
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

var interviewColumns = `id::text, status, candidate_name, role, experience, difficulty, total_questions,
	current_question, question_results, created_at, completed_at, ` + claimLive + `,
	follow_ups, coalesce(job_description, ''), requirements,
	EXISTS (SELECT 1 FROM interview_shares sh WHERE sh.interview_id = interviews.id), report, answered_questions`

func scanInterview(row pgx.Row) (interviews.Interview, error) {
	var iv interviews.Interview
	err := row.Scan(&iv.ID, &iv.Status, &iv.Setup.CandidateName, &iv.Setup.Role, &iv.Setup.Experience,
		&iv.Setup.Difficulty, &iv.Setup.TotalQuestions, &iv.Current, &iv.Results, &iv.CreatedAt, &iv.CompletedAt, &iv.ClaimLive,
		&iv.Setup.FollowUps, &iv.Setup.JobDescription, &iv.Requirements, &iv.Shared, &iv.Report, &iv.Answered)
	if err != nil {
		return iv, err
	}
	if iv.Results == nil {
		iv.Results = []interviewer.Result{}
	}
	if iv.Requirements == nil {
		iv.Requirements = []string{}
	}
	if iv.Status != interviews.Completed {
		iv.Report = nil
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

func (s *Store) Claim(ctx context.Context, userID, id, questionID string) (interviews.Claim, error) {
	return s.claim(ctx, userID, id, questionID, `current_question->>'id' = $3`,
		func(cur interviews.Interview) string {
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
func (s *Store) claim(ctx context.Context, userID, id, questionID, cond string, why func(cur interviews.Interview) string) (interviews.Claim, error) {
	if !isUUID(id) {
		return interviews.Claim{}, errNoInterview
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
		return interviews.Claim{Token: token, Interview: iv}, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return interviews.Claim{}, err
	}
	cur, err := s.Get(ctx, userID, id)
	switch {
	case err != nil:
		return interviews.Claim{}, err
	case cur.Status == interviews.Completed:
		return interviews.Claim{}, problem.New(problem.Conflict, "this interview is already finished")
	default:
		return interviews.Claim{}, problem.New(problem.Conflict, "%s", why(cur))
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

func (s *Store) Complete(ctx context.Context, userID, id, token string, r interviewer.Result, answered int, next *interviewer.Question) error {
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
		return problem.New(problem.Conflict, "the answer took too long and was abandoned, or the interview was finished or discarded meanwhile; reload the interview")
	}
	return nil
}

func (s *Store) ClaimRetry(ctx context.Context, userID, id, questionID string) (interviews.Claim, error) {
	return s.claim(ctx, userID, id, questionID,
		`question_results->-1->'question'->>'id' = $3 AND NOT (question_results->-1 ? 'retry')`,
		func(cur interviews.Interview) string {
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

func (s *Store) CompleteRetry(ctx context.Context, userID, id, token string, index int, a interviewer.Attempt, current *interviewer.Question) error {
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
		return problem.New(problem.Conflict, "the second try took too long and was abandoned, or the interview changed meanwhile; reload the interview")
	}
	return nil
}

func (s *Store) Release(ctx context.Context, userID, id, token string) error {
	_, err := s.pool.Exec(ctx, `
		UPDATE interviews SET claim_token = NULL, answer_claimed_at = NULL
		WHERE id = $1 AND user_id = $2 AND claim_token = $3`, id, userID, token)
	return err
}

func (s *Store) SaveReport(ctx context.Context, userID, id string, answers int, r report.Report) (bool, error) {
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

func (s *Store) History(ctx context.Context, userID string, before time.Time, limit int) ([]interviews.Summary, error) {
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

func (s *Store) InProgress(ctx context.Context, userID string, limit int) ([]interviews.Active, error) {
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
	out := []interviews.Active{}
	for rows.Next() {
		var a interviews.Active
		err := rows.Scan(&a.ID, &a.Setup.CandidateName, &a.Setup.Role, &a.Setup.Experience, &a.Setup.Difficulty,
			&a.Setup.TotalQuestions, &a.Answered, &a.Asking, &a.FollowUp, &a.CreatedAt)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
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
	return problem.New(problem.Conflict, "a completed interview stays in your history; only interviews in progress can be discarded")
}

// ---- share links ----

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
	return problem.New(problem.Conflict, "only a finished interview's report can be shared; finish it first")
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

func (s *Store) SharedInterview(ctx context.Context, tokenHash []byte) (interviews.Interview, error) {
	iv, err := scanInterview(s.pool.QueryRow(ctx, `SELECT `+interviewColumns+` FROM interviews
		WHERE id = (SELECT interview_id FROM interview_shares WHERE token_hash = $1) AND status = 'completed'`, tokenHash))
	if errors.Is(err, pgx.ErrNoRows) {
		return iv, errNoInterview
	}
	return iv, err
}

// ---- limits on model work ----

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

func isCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}

func isUnique(err error) bool { return isCode(err, uniqueViolation) }
