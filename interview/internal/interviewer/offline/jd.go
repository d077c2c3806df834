package offline

import (
	"context"
	"slices"
	"strings"

	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/jobdesc"
)

// Drawing questions from a job description: every bank question, of any
// family, is ranked by how much of the description's key terms it speaks
// to (jobdesc.Match of the terms by the question's text, key point labels
// and keywords), nudged towards the chosen difficulty and the families the
// role names.
const (
	// jobTerms is how many of the description's heaviest words rank the
	// questions.
	jobTerms = 25
	// difficultyStep is subtracted per difficulty level away from the
	// chosen one: a near question one level off still beats a far one.
	difficultyStep = 0.04
	// roleFamilyBonus is added to questions of the families the role
	// names, which settles near ties ("testing" is in the QA family and in
	// the frontend one).
	roleFamilyBonus = 0.03
	// jobFirstChoices is how many of the nearest questions the first is
	// drawn from.
	jobFirstChoices = 3
)

func hasJob(s interviewer.Setup) bool { return strings.TrimSpace(s.JobDescription) != "" }

// jobTexts prepares every question of the bank for matching.
func (b *bank) jobTexts() map[*question]jobdesc.Text {
	out := make(map[*question]jobdesc.Text, len(b.byID))
	for _, q := range b.byID {
		var t strings.Builder
		t.WriteString(q.Text)
		for _, p := range q.Points {
			t.WriteString(" " + p.Label + " " + strings.Join(p.Keywords, " "))
		}
		out[q] = jobdesc.Prepare(t.String())
	}
	return out
}

// jobOrder lists every question of the bank, nearest to s's job
// description first; ties go by id so the order is the same on every
// replica.
func (iv *Interviewer) jobOrder(s interviewer.Setup) []*question {
	terms := jobdesc.Terms(s.JobDescription+"\n"+s.Role, jobTerms)
	texts := iv.texts()
	fams, matched := iv.bank.resolveFamilies(s.Role)
	level := map[string]int{"easy": 0, "medium": 1, "hard": 2}
	want := level[normDifficulty(s.Difficulty)]
	type ranked struct {
		q     *question
		score float64
	}
	all := make([]ranked, 0, len(texts))
	for q, t := range texts {
		score := jobdesc.Match(terms, t) - difficultyStep*float64(abs(level[q.Difficulty]-want))
		if matched && slices.ContainsFunc(fams, func(f *family) bool { return f.ID == q.Family }) {
			score += roleFamilyBonus
		}
		all = append(all, ranked{q, score})
	}
	slices.SortFunc(all, func(a, b ranked) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return strings.Compare(a.q.ID, b.q.ID)
	})
	out := make([]*question, len(all))
	for i, r := range all {
		out[i] = r.q
	}
	return out
}

func abs(n int) int { return max(n, -n) }

// Requirements reads the description's main requirements with
// jobdesc.Requirements: its bullet lines and clauses, or its key terms.
func (*Interviewer) Requirements(ctx context.Context, s interviewer.Setup) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !hasJob(s) {
		return []string{}, nil
	}
	return jobdesc.Requirements(s.JobDescription), nil
}

// practiceWelcome says what the offline mode does with a job description
// and with follow-ups.
func practiceWelcome(s interviewer.Setup) string {
	var b strings.Builder
	if hasJob(s) {
		b.WriteString(" The questions are the ones in the bank nearest to the job description you pasted, of any role family, your difficulty first.")
	}
	switch s.FollowUps {
	case 1:
		b.WriteString(" When an answer leaves a clear gap (most key points missed, no trade-off; for a question about your experience, no result, no number, or \"we\" but never \"I\") you get a follow-up question on it, which does not count toward the total.")
	case 2:
		b.WriteString(" When an answer leaves a clear gap (most key points missed, no trade-off; for a question about your experience, no result, no number, or \"we\" but never \"I\") you get up to two follow-up questions on it, which do not count toward the total.")
	}
	return b.String()
}
