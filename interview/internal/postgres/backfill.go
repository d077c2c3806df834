package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/report"
)

// backfillReports stores whole the reports of interviews completed before
// reports were (migration 0009), so that a report is only ever read back,
// never rebuilt on a read. Such a report is built once, here, from its
// columns: the stored numbers, prose and coverage are the report's, Build
// adds the per-question results and which answer of each counted. It runs
// with the migrations, under their lock; once every row has its report it
// finds nothing to do.
func backfillReports(ctx context.Context, conn *pgx.Conn) error {
	type legacy struct {
		id                    string
		results               []interview.Result
		overall, tech, comm   *int
		strengths, weak, topi []string
		feedback              *string
		coverage              []interview.Requirement
	}
	rows, err := conn.Query(ctx, `
		SELECT id::text, question_results, overall_score, technical_accuracy, communication_score,
			strengths, weaknesses, suggested_topics, feedback, requirement_coverage
		FROM interviews WHERE status = 'completed' AND report IS NULL`)
	if err != nil {
		return err
	}
	var todo []legacy
	for rows.Next() {
		var l legacy
		if err := rows.Scan(&l.id, &l.results, &l.overall, &l.tech, &l.comm, &l.strengths, &l.weak, &l.topi, &l.feedback, &l.coverage); err != nil {
			rows.Close()
			return err
		}
		todo = append(todo, l)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, l := range todo {
		r := report.Build(l.results, interview.Summary{Strengths: l.strengths, Weaknesses: l.weak, SuggestedTopics: l.topi}, nil)
		r.OverallScore, r.TechnicalAccuracy, r.CommunicationScore = l.overall, l.tech, l.comm
		if l.feedback != nil {
			r.Feedback = *l.feedback
		}
		if l.coverage != nil {
			r.Requirements = l.coverage
		}
		if _, err := conn.Exec(ctx, `UPDATE interviews SET report = $2 WHERE id = $1 AND report IS NULL`, l.id, r); err != nil {
			return fmt.Errorf("report of interview %s: %w", l.id, err)
		}
	}
	return nil
}
