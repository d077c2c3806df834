package decisions

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/judgeworks/shared/systemone"
)

// Encode is the Decisions request asking model qs about state, for an
// upstream Decisions service. The input is the state as a model reads it
// (systemone.ContentText): text as it is, JSON as compact JSON. A choice's
// options go out in the order qs lists them, by name, each with its
// description when it says something. Question names are not sent.
func Encode(model string, state json.RawMessage, qs []systemone.Question) Request {
	req := Request{
		Model:     model,
		Input:     systemone.ContentText(state),
		Questions: make([]Question, len(qs)),
	}
	for i, q := range qs {
		instructions := strings.TrimSpace(systemone.ContentText(q.Instructions))
		if instructions == "" || string(q.Instructions) == "null" {
			instructions = "(no instructions)"
		}
		out := &req.Questions[i]
		switch q.Type {
		case systemone.TypeNoul:
			// A predicate is a statement to estimate; the caller's
			// meanings of yes and no go with it, as the chat prompt
			// shows them.
			if q.Noul != nil {
				t, f := systemone.ContentText(q.Noul.True), systemone.ContentText(q.Noul.False)
				if t != "" || f != "" {
					instructions += "\n\ntrue means: " + t + "\nfalse means: " + f
				}
			}
			out.Type = "predicate"
		case systemone.TypeChoice:
			out.Type = "choice"
			out.Choices = make([]Choice, len(q.Options))
			for j, o := range q.Options {
				out.Choices[j].Value = o.Name
				if len(o.Description) == 0 || string(o.Description) == "null" {
					continue
				}
				out.Choices[j].Description = strings.TrimSpace(systemone.ContentText(o.Description))
			}
		case systemone.TypeScore:
			out.Type = "score"
			out.Levels = make([]Level, len(q.Levels))
			for j, l := range q.Levels {
				// A level given as null is read by its position alone.
				out.Levels[j].Label = strings.TrimSpace(systemone.ContentText(l))
				if out.Levels[j].Label == "" {
					out.Levels[j].Label = strconv.Itoa(j)
				}
			}
		}
		out.Instructions = instructions
	}
	return req
}

// ErrRefused is a question the upstream model declined to answer.
var ErrRefused = errors.New("refused")

// Weights reads the upstream's answer a to q (q as Encode sent it) into
// one weight per outcome, in systemone.BuildAnswer's order: yes then no;
// each option of q; each level of q. The answer's own choice and
// confidence are not read. A refusal is ErrRefused; an answer of the wrong
// type, a value that was not sent, a repeated or missing outcome, or a
// probability that is not a finite number ≥ 0 is an error.
func Weights(q systemone.Question, a Answer) ([]float64, error) {
	if a.Type == "refusal" {
		return nil, ErrRefused
	}
	want := map[systemone.QuestionType]string{systemone.TypeNoul: "predicate", systemone.TypeChoice: "choice", systemone.TypeScore: "score"}[q.Type]
	if a.Type != want {
		return nil, fmt.Errorf("a %q answer to a %s question", a.Type, want)
	}
	var w []float64
	switch q.Type {
	case systemone.TypeNoul:
		yes := 0.0
		if a.Probability != nil {
			yes = *a.Probability
		}
		if !(yes >= 0 && yes <= 1) {
			return nil, fmt.Errorf("probability %v outside [0, 1]", yes)
		}
		w = []float64{yes, 1 - yes}
	case systemone.TypeChoice:
		index := make(map[string]int, len(q.Options))
		for i, o := range q.Options {
			index[o.Name] = i
		}
		w = make([]float64, len(q.Options))
		seen := make([]bool, len(q.Options))
		for _, cp := range a.Probabilities {
			value, ok := cp.Value.(string)
			if !ok {
				raw, _ := json.Marshal(cp.Value)
				return nil, fmt.Errorf("choice value %s is not one of the options sent", raw)
			}
			i, ok := index[value]
			if !ok || seen[i] {
				return nil, fmt.Errorf("choice value %q is unknown or repeated", value)
			}
			seen[i], w[i] = true, cp.Probability
		}
		for i, s := range seen {
			if !s {
				return nil, fmt.Errorf("no probability for option %q", q.Options[i].Name)
			}
		}
	case systemone.TypeScore:
		w = make([]float64, len(q.Levels))
		seen := make([]bool, len(q.Levels))
		for _, sp := range a.Probabilities {
			v, ok := sp.Value.(float64)
			i := int(v)
			if !ok || float64(i) != v || i < 0 || i >= len(q.Levels) || seen[i] {
				raw, _ := json.Marshal(sp.Value)
				return nil, fmt.Errorf("score value %s is outside 0..%d or repeated", raw, len(q.Levels)-1)
			}
			seen[i], w[i] = true, sp.Probability
		}
		for i, s := range seen {
			if !s {
				return nil, fmt.Errorf("no probability for level %d", i)
			}
		}
	}
	for _, x := range w {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return nil, fmt.Errorf("probability %v is not a finite number ≥ 0", x)
		}
	}
	return w, nil
}
