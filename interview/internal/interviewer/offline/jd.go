package offline

import (
	"context"
	"slices"
	"strings"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/jobdesc"
)

// Drawing questions from a job description. Every bank question is scored
// by how much of the description's key terms it speaks to (jobdesc.Match
// of the terms by the question's text, key point labels and keywords). A
// family's nearness is the mean score of its best questions; the families
// within jobFamilyShare of the nearest are the description's. Their
// questions come first, the chosen difficulty first (then its neighbours,
// as without a description), nearest first within each; every other
// question follows, nearest first. So a frontend advertisement gets
// frontend questions at the difficulty asked for, whatever the role says.
const (
	// jobTerms is how many of the description's heaviest words score the
	// questions.
	jobTerms = 25
	// jobFamilyTop is how many of a family's best questions make its
	// nearness.
	jobFamilyTop = 5
	// jobFamilyShare is how near a family must be, as a share of the
	// nearest family's nearness, to be one of the description's.
	jobFamilyShare = 0.8
	// roleFamilyBonus is added to questions of the families the role
	// names, which settles near ties.
	roleFamilyBonus = 0.03
	// jobFirstChoices is how many of the first questions in order the
	// first is drawn from.
	jobFirstChoices = 3
)

func hasJob(s interview.Setup) bool { return strings.TrimSpace(s.JobDescription) != "" }

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

// jobOrder lists every question of the bank in the order a job
// description draws them; ties go by id, so the order is the same on
// every replica.
func (iv *Interviewer) jobOrder(s interview.Setup) []*question {
	terms := jobdesc.Terms(s.JobDescription+"\n"+s.Role, jobTerms)
	roleFams, matched := iv.bank.resolveFamilies(s.Role)
	score := map[*question]float64{}
	byFamily := map[string][]float64{}
	for q, t := range iv.texts() {
		v := jobdesc.Match(terms, t)
		if matched && slices.ContainsFunc(roleFams, func(f *family) bool { return f.ID == q.Family }) {
			v += roleFamilyBonus
		}
		score[q] = v
		byFamily[q.Family] = append(byFamily[q.Family], v)
	}
	nearness := map[string]float64{}
	best := 0.0
	for f, scores := range byFamily {
		slices.Sort(scores)
		slices.Reverse(scores)
		top := scores[:min(jobFamilyTop, len(scores))]
		sum := 0.0
		for _, v := range top {
			sum += v
		}
		nearness[f] = sum / float64(len(top))
		best = max(best, nearness[f])
	}
	nearest := func(qs []*question) []*question {
		slices.SortFunc(qs, func(a, b *question) int {
			switch {
			case score[a] > score[b]:
				return -1
			case score[a] < score[b]:
				return 1
			}
			return strings.Compare(a.ID, b.ID)
		})
		return qs
	}
	var fams []*family
	for _, f := range iv.bank.families {
		if nearness[f.ID] >= jobFamilyShare*best {
			fams = append(fams, f)
		}
	}
	var out []*question
	for _, d := range neighbours(normDifficulty(s.Difficulty)) {
		out = append(out, nearest(poolOf(fams, d))...)
	}
	var rest []*question
	for q := range score {
		if !slices.Contains(fams, iv.bank.familyOf(q)) {
			rest = append(rest, q)
		}
	}
	return append(out, nearest(rest)...)
}

// familyOf returns q's family.
func (b *bank) familyOf(q *question) *family {
	for _, f := range b.families {
		if f.ID == q.Family {
			return f
		}
	}
	return nil
}

// Requirements reads the description's main requirements with
// jobdesc.Requirements: its bullet lines and clauses, or its key terms.
func (*Interviewer) Requirements(ctx context.Context, s interview.Setup) ([]string, error) {
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
func practiceWelcome(s interview.Setup) string {
	var b strings.Builder
	if hasJob(s) {
		b.WriteString(" The questions are the practice bank's closest to the job description you pasted, whatever role they were written for, starting at the difficulty you chose.")
	}
	switch s.FollowUps {
	case 1:
		b.WriteString(" When an answer leaves a clear gap (most key points missed, no trade-off; for a question about your experience, no result, no number, or \"we\" but never \"I\") you get a follow-up question on it, which does not count toward the total.")
	case 2:
		b.WriteString(" When an answer leaves a clear gap (most key points missed, no trade-off; for a question about your experience, no result, no number, or \"we\" but never \"I\") you get up to two follow-up questions on it, which do not count toward the total.")
	}
	return b.String()
}
