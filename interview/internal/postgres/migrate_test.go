package postgres

import (
	"context"
	"crypto/sha256"
	"os"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/shared/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestMigrateIsIdempotentAndSerialized(t *testing.T) {
	ctx := context.Background()
	pool, err := Open(ctx, pgtest.NewDatabase(t), 10)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// Instances starting together: the advisory lock applies each file once.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() { errs <- Migrate(ctx, pool) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := Migrate(ctx, pool); err != nil {
		t.Fatalf("second run: %v", err)
	}
	var applied, files int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM schema_migrations").Scan(&applied); err != nil {
		t.Fatal(err)
	}
	entries, _ := migrations.ReadDir("migrations")
	files = len(entries)
	if applied != files || files == 0 {
		t.Fatalf("%d migrations recorded, %d files", applied, files)
	}
}

func TestSchemaRejectsBadRows(t *testing.T) {
	ctx := context.Background()
	pool, err := Open(ctx, pgtest.NewDatabase(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	var uid string
	if err := pool.QueryRow(ctx, `INSERT INTO users (full_name, email, password_hash) VALUES ('A', 'a@b.co', 'h') RETURNING id`).Scan(&uid); err != nil {
		t.Fatal(err)
	}
	// One valid interview, so the share row below fails on its own check.
	if _, err := pool.Exec(ctx, `INSERT INTO interviews (user_id, candidate_name, role, experience, difficulty, total_questions) VALUES ($1, 'a', 'r', 'e', 'easy', 3)`, uid); err != nil {
		t.Fatal(err)
	}
	bad := map[string]string{
		"no credential":      `INSERT INTO users (full_name, email) VALUES ('B', 'b@b.co')`,
		"uppercase email":    `INSERT INTO users (full_name, email, password_hash) VALUES ('C', 'C@b.co', 'h')`,
		"bad difficulty":     `INSERT INTO interviews (user_id, candidate_name, role, experience, difficulty, total_questions) VALUES ('` + uid + `', 'a', 'r', 'e', 'insane', 3)`,
		"too many questions": `INSERT INTO interviews (user_id, candidate_name, role, experience, difficulty, total_questions) VALUES ('` + uid + `', 'a', 'r', 'e', 'easy', 21)`,
		"claim without time": `INSERT INTO interviews (user_id, candidate_name, role, experience, difficulty, total_questions, claim_token) VALUES ('` + uid + `', 'a', 'r', 'e', 'easy', 3, gen_random_uuid())`,
		"completed unscored": `INSERT INTO interviews (user_id, candidate_name, role, experience, difficulty, total_questions, status, completed_at) VALUES ('` + uid + `', 'a', 'r', 'e', 'easy', 3, 'completed', now())`,
		"three follow-ups":   `INSERT INTO interviews (user_id, candidate_name, role, experience, difficulty, total_questions, follow_ups) VALUES ('` + uid + `', 'a', 'r', 'e', 'easy', 3, 3)`,
		"long description":   `INSERT INTO interviews (user_id, candidate_name, role, experience, difficulty, total_questions, job_description) VALUES ('` + uid + `', 'a', 'r', 'e', 'easy', 3, repeat('x', 10001))`,
		"short share token":  `INSERT INTO interview_shares (interview_id, token_hash) SELECT id, '\x00' FROM interviews LIMIT 1`,
	}
	for name, sql := range bad {
		if _, err := pool.Exec(ctx, sql); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Rows written before evaluations said whether they were scored, before
// questions had kinds and before reports were stored whole are mended by
// the migrations, so the code reads every row one way.
func TestLegacyRowsAreMigrated(t *testing.T) {
	ctx := context.Background()
	pool, err := Open(ctx, pgtest.NewDatabase(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := migrate(ctx, pool, "0010_signout_sessions"); err != nil {
		t.Fatal(err)
	}
	var uid string
	if err := pool.QueryRow(ctx, `INSERT INTO users (full_name, email, password_hash) VALUES ('A', 'a@b.co', 'h') RETURNING id`).Scan(&uid); err != nil {
		t.Fatal(err)
	}
	old := `[{"question":{"id":"q1","text":"Why?"},"answer":"Because.","evaluation":{"score":60,"technicalAccuracy":50,"communication":80,"feedback":"ok","strengths":["a"],"improvements":[]}},
		{"question":{"id":"q1-f1","text":"And?","kind":"followUp","parentId":"q1"},"answer":"And so.","evaluation":{"scorable":false,"score":0,"technicalAccuracy":0,"communication":0,"feedback":"no","strengths":[],"improvements":[]},
		 "retry":{"answer":"Again.","evaluation":{"score":70,"technicalAccuracy":70,"communication":70,"feedback":"ok","strengths":[],"improvements":[]}}}]`
	var done, open string
	if err := pool.QueryRow(ctx, `
		INSERT INTO interviews (user_id, candidate_name, role, experience, difficulty, total_questions, status, completed_at,
			question_results, overall_score, technical_accuracy, communication_score, strengths, weaknesses, suggested_topics, feedback)
		VALUES ($1, 'a', 'r', 'e', 'easy', 1, 'completed', now(), $2, 60, 50, 80, '{s}', '{w}', '{t}', 'prose') RETURNING id`, uid, old).Scan(&done); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `
		INSERT INTO interviews (user_id, candidate_name, role, experience, difficulty, total_questions, current_question, question_results)
		VALUES ($1, 'a', 'r', 'e', 'easy', 3, '{"id":"q2","text":"Next?"}', $2) RETURNING id`, uid, old).Scan(&open); err != nil {
		t.Fatal(err)
	}
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	s := NewStore(pool)
	iv, err := s.Get(ctx, uid, open)
	if err != nil {
		t.Fatal(err)
	}
	r := iv.Results
	if len(r) != 2 || !r[0].Evaluation.Scorable || r[1].Evaluation.Scorable || r[1].Retry == nil || !r[1].Retry.Evaluation.Scorable ||
		r[0].Question.Kind != "main" || r[1].Question.Kind != "followUp" || iv.Current == nil || iv.Current.Kind != "main" || iv.Answered != 1 {
		t.Fatalf("in progress, read back: %+v current %+v answered %d", r, iv.Current, iv.Answered)
	}
	iv, err = s.Get(ctx, uid, done)
	if err != nil {
		t.Fatal(err)
	}
	rep := iv.Report
	if rep == nil || rep.OverallScore == nil || *rep.OverallScore != 60 || rep.Feedback != "prose" || rep.Questions != 1 ||
		len(rep.QuestionResults) != 2 || (rep.QuestionResults[0].Counted == "" && rep.QuestionResults[1].Counted == "") {
		t.Fatalf("completed, report %+v", rep)
	}
	var stored bool
	if err := pool.QueryRow(ctx, `SELECT report IS NOT NULL FROM interviews WHERE id = $1`, done).Scan(&stored); err != nil || !stored {
		t.Fatalf("the report was not stored whole: %v %v", stored, err)
	}
	// Every stored evaluation says whether it was off-topic (none was).
	var evaluations, saying int
	if err := pool.QueryRow(ctx, `
		SELECT count(*), count(*) FILTER (WHERE e ? 'offTopic' AND e->'offTopic' = 'false')
		FROM interviews,
		     LATERAL (SELECT r FROM jsonb_array_elements(question_results) r
		              UNION ALL SELECT r FROM jsonb_array_elements(coalesce(report->'questionResults', '[]')) r) rs(r),
		     LATERAL (SELECT r->'evaluation' UNION ALL SELECT r->'retry'->'evaluation' WHERE r ? 'retry') es(e)`).Scan(&evaluations, &saying); err != nil {
		t.Fatal(err)
	}
	if evaluations != 9 || saying != evaluations {
		t.Fatalf("%d of %d stored evaluations say offTopic false", saying, evaluations)
	}
}

// Migration 0013 moves the limits' rows into the tables of quota.go: what
// was spent before it stays spent after it.
func TestLimitRowsMoveToQuota(t *testing.T) {
	ctx := context.Background()
	pool, err := Open(ctx, pgtest.NewDatabase(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := migrate(ctx, pool, "0012_legacy_rows"); err != nil {
		t.Fatal(err)
	}
	var uid string
	if err := pool.QueryRow(ctx, `INSERT INTO users (full_name, email, password_hash) VALUES ('A', 'a@b.co', 'h') RETURNING id`).Scan(&uid); err != nil {
		t.Fatal(err)
	}
	address := sha256.Sum256([]byte("203.0.113.7"))
	if _, err := pool.Exec(ctx, `INSERT INTO throttle_buckets (rule, key, tokens, at) VALUES ('login_address', $1, 0, now())`, address[:]); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO model_buckets (user_id, operation, tokens, updated_at) VALUES ($1, 'start', 0, now())`,
		`INSERT INTO model_calls (user_id, day, used) VALUES ($1, (now() AT TIME ZONE 'UTC')::date, 200)`,
		`INSERT INTO voice_usage (user_id, day, resource, used) VALUES ($1, (now() AT TIME ZONE 'UTC')::date, 'speech_chars', 6000)`,
		`INSERT INTO voice_usage (user_id, day, resource, used) VALUES ($1, (now() AT TIME ZONE 'UTC')::date - 1, 'transcribe_bytes', 5)`,
	} {
		if _, err := pool.Exec(ctx, q, uid); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	user := userKey(uid)
	for name, take := range map[string]func() (bool, time.Duration, error){
		"the address's empty bucket": func() (bool, time.Duration, error) {
			return takeToken(ctx, pool, interview.Bucket{Name: "login_address", Burst: 20, Every: 6 * time.Second}, digestKey("203.0.113.7"))
		},
		"the user's empty start bucket": func() (bool, time.Duration, error) {
			return takeToken(ctx, pool, modelBucket(interview.OpStart, interview.Rate{Burst: 6, PerHour: 10}), user)
		},
		"the day's model calls": func() (bool, time.Duration, error) { return modelCalls.spend(ctx, pool, user, 1, 200) },
		"the day's speech": func() (bool, time.Duration, error) {
			return daily("voice_speech_chars").spend(ctx, pool, user, 1, 6000)
		},
	} {
		ok, wait, err := take()
		if err != nil || ok || wait <= 0 {
			t.Errorf("%s: ok %v wait %v err %v; want refused, as before the migration", name, ok, wait, err)
		}
	}
	// An earlier day's use is not carried over.
	if ok, _, err := daily("voice_transcribe_bytes").spend(ctx, pool, user, 10, 10); err != nil || !ok {
		t.Fatalf("yesterday's transcription counted today: %v %v", ok, err)
	}
	for _, table := range []string{"throttle_buckets", "model_buckets", "model_calls", "voice_usage"} {
		var exists bool
		if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&exists); err != nil || exists {
			t.Errorf("table %s still there (%v)", table, err)
		}
	}
}

// The CHECK on interviews.difficulty guards the rows; the levels are
// interview.Difficulties. A level added there needs a migration here,
// or starting an interview at it would fail on insert.
func TestDifficultyCheckHoldsTheLevels(t *testing.T) {
	ctx := context.Background()
	pool, err := Open(ctx, pgtest.NewDatabase(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	var def string
	if err := pool.QueryRow(ctx, `
		SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
		WHERE c.conrelid = 'interviews'::regclass AND c.contype = 'c' AND a.attname = 'difficulty'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	var allowed []string
	for _, m := range regexp.MustCompile(`'([^']*)'::text`).FindAllStringSubmatch(def, -1) {
		allowed = append(allowed, m[1])
	}
	want := interview.Difficulties()
	slices.Sort(allowed)
	slices.Sort(want)
	if !slices.Equal(allowed, want) {
		t.Fatalf("the database allows difficulties %v (%s); the service offers %v", allowed, def, want)
	}
}
