package decisions

import (
	"errors"
	"strconv"

	"github.com/judgeworks/shared/systemone"
)

// Translation is a Decisions request translated: the System One request
// the engine answers and what it takes to translate the answer back.
type Translation struct {
	// Request holds the questions the engines can answer, keyed by the
	// caller's names (or positional ones); it has none when every
	// question is refused without asking.
	Request   systemone.Request
	questions []question // in the caller's order
}

// question is one question of a Translation as the caller asked it.
type question struct {
	// key names the question in req.Questions; empty for a question
	// refused without asking.
	key string
	// name is the caller's name, nil for an unnamed question.
	name *string
	kind string // predicate, choice or score
	// values are a choice's typed values (string or bool), in the caller's
	// order; options are the option names the engine answers by.
	values  []any
	options []string
	// labels are a score's level labels, lowest first.
	labels []string
}

// Answer translates the engine's answers back, one per question in the
// caller's order; a refused question gets {"type": "refusal", "name"}.
func (d *Translation) Answer(resp *systemone.Response) Decision {
	out := Decision{Model: resp.Model, Answers: make([]Answer, len(d.questions))}
	for i, q := range d.questions {
		a, asked := resp.Answers[q.key]
		if q.key == "" || !asked {
			out.Answers[i] = Answer{Type: "refusal", Name: q.name}
			continue
		}
		da := Answer{Type: q.kind, Name: q.name, Confidence: a.Confidence}
		switch q.kind {
		case "predicate":
			p := 0.0
			if a.Noul != nil {
				p = *a.Noul
			}
			da.Probability = &p
		case "choice":
			probs := make([]Probability, len(q.options))
			for j, o := range q.options {
				probs[j] = Probability{Value: q.values[j], Probability: a.Probabilities[o]}
				if o == a.Choice {
					da.Choice = q.values[j]
				}
			}
			da.Probabilities = probs
		case "score":
			probs := make([]Probability, len(q.labels))
			for j, l := range q.labels {
				probs[j] = Probability{Value: j, Label: l, Probability: a.Probabilities[strconv.Itoa(j)]}
			}
			da.Score, da.Probabilities = a.Score, probs
		}
		out.Answers[i] = da
	}
	u := resp.Usage
	out.Usage.InputTokens, out.Usage.OutputTokens = u.InputTokens, u.OutputTokens
	out.Usage.TotalTokens = u.InputTokens + u.OutputTokens
	return out
}

// Relocate rewrites the field paths of a validation error found on the
// translated request (token bounds, the model) into the caller's: the
// question's position for its key, input for state. Any other error is
// returned as it is.
func (d *Translation) Relocate(err error) error {
	var ve *systemone.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	pos := make(map[string]int, len(d.questions))
	for i, q := range d.questions {
		if q.key != "" {
			pos[q.key] = i
		}
	}
	items := make([]systemone.ValidationItem, len(ve.Items))
	for i, it := range ve.Items {
		loc := append([]string(nil), it.Loc...)
		// The System One path names a question's type after its key
		// (questions, key, score, criteria); the Decisions path does not.
		if len(loc) >= 4 && loc[1] == "questions" && systemone.QuestionType(loc[3]).Known() {
			loc = append(loc[:3], loc[4:]...)
		}
		switch {
		case len(loc) >= 2 && loc[1] == "state":
			loc[1] = "input"
		case len(loc) >= 3 && loc[1] == "questions":
			if p, ok := pos[loc[2]]; ok {
				q := d.questions[p]
				loc[2] = strconv.Itoa(p)
				if len(loc) >= 4 && loc[3] == "criteria" {
					loc[3] = map[string]string{"choice": "choices", "score": "levels"}[q.kind]
					if len(loc) >= 5 && q.kind == "choice" {
						for j, o := range q.options {
							if o == loc[4] {
								loc[4] = strconv.Itoa(j)
							}
						}
					}
				}
			}
		}
		items[i] = systemone.ValidationItem{Loc: loc, Msg: it.Msg, Type: it.Type, Input: it.Input}
	}
	return &systemone.ValidationError{Items: items}
}
