package offline

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer"
)

// rubricFigures are the offline rubric's figures that docs/interview.md
// quotes, over the development and held-out answers (38 correct answers
// written in other words than the bank's key points).
type rubricFigures struct {
	// OwnMean is the mean score of the answers against their own question,
	// WrongMean against every other question of their family, as stored
	// (interviewer.Checked: an answer off its question scores at most 35,
	// one not scored counts 0).
	OwnMean, WrongMean float64
	// Credited counts the key points credited on the answers' own
	// questions; Carried those whose quote carries them: the quote alone,
	// read by the rubric, covers the point, and it stands under no other
	// bullet of the evaluation.
	Credited, Carried int
}

func measureRubric(t *testing.T) rubricFigures {
	t.Helper()
	iv := New()
	ctx := context.Background()
	var f rubricFigures
	own, wrong, nWrong := 0, 0, 0
	answers := 0
	for _, set := range []map[string]string{hardDev, plainDev, synonymDev, heldoutParaphrases} {
		for id, answer := range set {
			q := iv.bank.byID[id]
			e, err := iv.Evaluate(ctx, interview.Setup{}, interview.Question{ID: id, Text: q.Text}, nil, answer)
			if err != nil {
				t.Fatal(err)
			}
			own += e.Score
			answers++
			for _, s := range e.Strengths {
				label, ok := strings.CutPrefix(s, "Covered: ")
				if !ok {
					continue
				}
				f.Credited++
				i := slices.IndexFunc(e.Evidence, func(ev interview.Evidence) bool { return ev.Point == s })
				if i < 0 {
					t.Logf("%s: %q credited without a quote", id, label)
					continue
				}
				quote := e.Evidence[i].Quote
				uses := 0
				for _, ev := range e.Evidence {
					if ev.Quote == quote {
						uses++
					}
				}
				p := q.Points[slices.IndexFunc(q.Points, func(p point) bool { return p.Label == label })]
				a := assess(iv.rd, []point{p}, quote)
				if uses == 1 && (a.Points[0].Found == foundKeyword || a.Points[0].Found == foundMeaning) {
					f.Carried++
				} else {
					t.Logf("%s: %q quoted by %q, which does not carry it alone", id, label, quote)
				}
			}
			for _, o := range iv.bank.byID {
				if o.Family != q.Family || o.ID == q.ID {
					continue
				}
				e, err := iv.Evaluate(ctx, interview.Setup{}, interview.Question{ID: o.ID, Text: o.Text}, nil, answer)
				if err != nil {
					t.Fatal(err)
				}
				wrong += interviewer.Checked(e, answer).Score
				nWrong++
			}
		}
	}
	f.OwnMean = float64(own) / float64(answers)
	f.WrongMean = float64(wrong) / float64(nWrong)
	return f
}

// TestRubricFigures prints the figures of docs/interview.md ("The offline
// rubric's figures"); run it with -v to read them.
func TestRubricFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("measures over a thousand evaluations")
	}
	f := measureRubric(t)
	t.Logf("own-question mean %.1f, wrong-question mean %.1f, quotes carrying their point %d of %d (%.0f%%)",
		f.OwnMean, f.WrongMean, f.Carried, f.Credited, 100*float64(f.Carried)/float64(f.Credited))
}
