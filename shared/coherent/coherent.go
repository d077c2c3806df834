// Package coherent makes an engine's answers obey the laws of probability
// that the structure of a question decides, whatever the engine
// understands. Every engine (the offline engines and the chat adapter)
// answers through Ask, so each rule is written once, here:
//
//   - Options that say the same thing (systemone.Option.Text) are one
//     event: the engine is asked about one of them and their probability
//     is split evenly among them.
//   - A choice or score whose two outcomes are yes and no is the noul
//     question it spells: it is asked as one, and the answer mapped back.
//
// Engines that cannot read (the offline engines) also take the Reading
// rules: a question that negates another ("… not …", "Is it not the case
// that …", "neither … nor …", "none of …") is answered as the complement
// of the question it negates, and "level k or higher" / "at most level k"
// on a scale the question names is the sum over those levels of the score
// question. A language model reads these itself.
//
// Each question is rewritten on its own, so a question's answer never
// depends on the other questions of a request. See docs/api.md,
// "Coherence".
package coherent

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/judgeworks/shared/jsonscan"
	"github.com/judgeworks/shared/systemone"
)

// Rules says which rules apply beyond the structural ones.
type Rules struct {
	// Reading adds the rules of English negation and cumulative scales,
	// for engines that read words and not sentences.
	Reading bool
}

// maxSteps bounds the rewrites of one question: each step removes a
// negation, duplicates or a cumulative phrase, so a real question needs
// two or three.
const maxSteps = 6

// back maps the answer to a rewritten question to the answer to the
// question it came from.
type back func(systemone.Answer) (systemone.Answer, error)

// Rewrite returns req with every question brought to the form the rules
// fix, and the function that turns the engine's response to it into the
// response to req. Questions keep their names. req is never changed; when
// no rule fits any question it is returned as it is, its questions map
// shared, so callers must not change the returned request's map.
func Rewrite(req systemone.Request, rules Rules) (systemone.Request, func(*systemone.Response) (*systemone.Response, error)) {
	// Most questions are in their form already: then nothing is copied.
	var backs map[string][]back
	out := req
	for name, q := range req.Questions {
		var bs []back
		for range maxSteps {
			core, b, ok := step(q, rules)
			if !ok {
				break
			}
			q = core
			bs = append(bs, b)
		}
		if bs == nil {
			continue
		}
		if backs == nil {
			backs = map[string][]back{}
			out.Questions = maps.Clone(req.Questions)
		}
		backs[name] = bs
		out.Questions[name] = q
	}
	if backs == nil {
		return req, unchanged
	}
	return out, func(resp *systemone.Response) (*systemone.Response, error) {
		if resp == nil {
			return resp, nil
		}
		answers := make(map[string]systemone.Answer, len(resp.Answers))
		for name, a := range resp.Answers {
			bs := backs[name]
			for i := len(bs) - 1; i >= 0; i-- {
				var err error
				if a, err = bs[i](a); err != nil {
					return nil, fmt.Errorf("question %q: %w", name, err)
				}
			}
			answers[name] = a
		}
		r := *resp
		r.Answers = answers
		return &r, nil
	}
}

// unchanged maps back the response to a request Rewrite left as it was.
func unchanged(resp *systemone.Response) (*systemone.Response, error) { return resp, nil }

// Ask answers req with ask after Rewrite, and maps the answers back.
func Ask(ctx context.Context, req systemone.Request, rules Rules, ask func(context.Context, systemone.Request) (*systemone.Response, error)) (*systemone.Response, error) {
	core, back := Rewrite(req, rules)
	resp, err := ask(ctx, core)
	if err != nil {
		return nil, err
	}
	return back(resp)
}

// step applies the first rule that fits q.
func step(q systemone.Question, rules Rules) (systemone.Question, back, bool) {
	if core, b, ok := duplicates(q); ok {
		return core, b, true
	}
	if core, b, ok := yesNoPair(q); ok {
		return core, b, true
	}
	if rules.Reading {
		text, ok := noulText(q)
		if !ok {
			return q, nil, false
		}
		if core, b, ok := negation(q, text); ok {
			return core, b, true
		}
		if core, b, ok := cumulative(text); ok {
			return core, b, true
		}
	}
	return q, nil, false
}

// duplicates asks a choice with options that say the same thing (the same
// Text) about one of each, and splits each one's probability evenly among
// the options that say it.
func duplicates(q systemone.Question) (systemone.Question, back, bool) {
	if q.Type != systemone.TypeChoice {
		return q, nil, false
	}
	first := make(map[string]int, len(q.Options))
	kept := make([]systemone.Option, 0, len(q.Options))
	count := make([]int, 0, len(q.Options))
	of := make([]int, len(q.Options))
	for i, o := range q.Options {
		t := o.Text()
		j, seen := first[t]
		if !seen {
			j = len(kept)
			first[t] = j
			kept = append(kept, o)
			count = append(count, 0)
		} else if o.Name < kept[j].Name {
			// The one asked about is the smallest name, so the rewritten
			// question is the same whatever order the caller listed them in.
			kept[j] = o
		}
		count[j]++
		of[i] = j
	}
	if len(kept) == len(q.Options) {
		return q, nil, false
	}
	orig := q
	core := q
	core.Options = kept
	if len(kept) == 1 {
		// One event: certain. Asked as a two-option choice it would not
		// even be valid, so no engine is needed.
		return q, nil, false
	}
	return core, func(a systemone.Answer) (systemone.Answer, error) {
		w := make([]float64, len(orig.Options))
		for i := range orig.Options {
			w[i] = a.Probabilities[kept[of[i]].Name] / float64(count[of[i]])
		}
		return systemone.BuildAnswer(orig, w)
	}, true
}

// yesNoPair asks a choice or score whose two outcomes are yes and no (or
// true and false) as the noul question they spell, with the same
// instructions.
func yesNoPair(q systemone.Question) (systemone.Question, back, bool) {
	var texts []string
	switch q.Type {
	case systemone.TypeChoice:
		if len(q.Options) != 2 {
			return q, nil, false
		}
		for _, o := range q.Options {
			texts = append(texts, o.Text())
		}
	case systemone.TypeScore:
		if len(q.Levels) != 2 {
			return q, nil, false
		}
		for _, l := range q.Levels {
			texts = append(texts, systemone.ContentText(l))
		}
	default:
		return q, nil, false
	}
	yes := -1
	switch [2]string{answerWord(texts[0]), answerWord(texts[1])} {
	case [2]string{"yes", "no"}, [2]string{"true", "false"}:
		yes = 0
	case [2]string{"no", "yes"}, [2]string{"false", "true"}:
		yes = 1
	default:
		return q, nil, false
	}
	orig := q
	core := systemone.Question{Type: systemone.TypeNoul, Instructions: q.Instructions}
	return core, func(a systemone.Answer) (systemone.Answer, error) {
		if a.Noul == nil {
			return systemone.Answer{}, fmt.Errorf("a noul question answered as %s", a.Type)
		}
		w := []float64{1 - *a.Noul, 1 - *a.Noul}
		w[yes] = *a.Noul
		return systemone.BuildAnswer(orig, w)
	}, true
}

// answerWord is s in lower case without surrounding spaces and
// punctuation: "Yes." and " YES" are yes.
func answerWord(s string) string {
	return strings.ToLower(strings.Trim(s, " \t\r\n.!?\"'()"))
}

// complement is the answer to a noul question's opposite.
func complement(a systemone.Answer) (systemone.Answer, error) {
	if a.Noul == nil {
		return systemone.Answer{}, fmt.Errorf("a noul question answered as %s", a.Type)
	}
	return systemone.NoulAnswerOf(1 - *a.Noul)
}

// negation answers a noul question that negates another as the
// complement of the other. The other question's meanings of yes and no,
// when given, are this one's swapped. text is q's (noulText).
func negation(q systemone.Question, text string) (systemone.Question, back, bool) {
	base, ok := Negated(text)
	if !ok {
		return q, nil, false
	}
	core := q
	core.Instructions = stringJSON(base)
	if q.Noul != nil {
		core.Noul = &systemone.NoulCriteria{True: q.Noul.False, False: q.Noul.True}
	}
	return core, complement, true
}

// noulText is a noul question's instructions when they are one string of
// text: what the reading rules read.
func noulText(q systemone.Question) (string, bool) {
	if q.Type != systemone.TypeNoul {
		return "", false
	}
	return jsonscan.StringValue(q.Instructions)
}

func stringJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// cumulative answers "is it level k or higher" (or "at most level k") on a
// scale the instructions list as quoted levels, lowest first, by asking
// the score question on that scale and summing the levels the phrase
// covers. text is the noul question's (noulText).
func cumulative(text string) (systemone.Question, back, bool) {
	c, ok := ReadCumulative(text)
	if !ok {
		return systemone.Question{}, nil, false
	}
	core := systemone.Question{Type: systemone.TypeScore, Instructions: stringJSON(c.Question), Levels: systemone.Texts(c.Levels...)}
	return core, func(a systemone.Answer) (systemone.Answer, error) {
		if a.Type != systemone.TypeScore {
			return systemone.Answer{}, fmt.Errorf("a score question answered as %s", a.Type)
		}
		lo, hi := c.Level, len(c.Levels)-1
		if !c.Higher {
			lo, hi = 0, c.Level
		}
		p := 0.0
		for i := lo; i <= hi; i++ {
			p += a.Probabilities[strconv.Itoa(i)]
		}
		return systemone.NoulAnswerOf(p)
	}, true
}
