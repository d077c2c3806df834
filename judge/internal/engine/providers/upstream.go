package providers

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/judgeworks/shared/coherent"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// What an upstream is asked is decided here, for both kinds, so the laws
// of shared/coherent hold on them by construction, as on every other
// engine (docs/api.md, "Coherence"):
//
//   - the request goes through coherent first: options that say the same
//     thing are asked about once and their probability split evenly, a
//     choice or score of yes and no is asked as the noul question it
//     spells, a negated question goes in its positive form, a question
//     asked twice (a question and its negation) goes once, and a question
//     about other questions of the request never goes at all;
//   - a choice's options go out in canonical order under neutral ids, so
//     no id the caller chose reaches the upstream (sent).

// askCoherent answers req by askCore after coherent's rewrite, and maps
// the answers back to req's questions.
func askCoherent(ctx context.Context, req systemone.Request, askCore func(context.Context, systemone.Request) (*systemone.Response, error)) (*systemone.Response, error) {
	return coherent.Ask(ctx, req, askCore)
}

// sent is q as an upstream is asked it. A choice's options are in
// canonical order (systemone.CanonicalOptions), and one with a description
// goes out under the neutral id "o" and its place in that order ("o1",
// "o2", …): what the option says is its description, and the caller's id
// would only lead the model. An option without a description goes out
// under its name, which is then what it says. The options of sent and of
// q.Canonical() correspond place by place, which is how an answer is
// mapped back (named). Other questions go out as they are: a level's
// text is its meaning and its index its id.
func sent(q systemone.Question) systemone.Question {
	q = q.Canonical()
	if q.Type != systemone.TypeChoice {
		return q
	}
	taken := make(map[string]bool, len(q.Options))
	for _, o := range q.Options {
		if !o.Described() {
			taken[o.Name] = true
		}
	}
	opts := make([]systemone.Option, len(q.Options))
	for i, o := range q.Options {
		if !o.Described() {
			opts[i] = systemone.Option{Name: o.Name}
			continue
		}
		id := "o" + strconv.Itoa(i+1)
		for taken[id] {
			// An undescribed option is called that already.
			id = "o" + id
		}
		taken[id] = true
		opts[i] = systemone.Option{Name: id, Description: o.Description}
	}
	q.Options = opts
	return q
}

// named is a, the answer to sent(q), under q's option names: each
// option's probability is its neutral id's, and so is the choice. Other
// answers are keyed as q's already.
func named(q systemone.Question, a systemone.Answer) systemone.Answer {
	if q.Type != systemone.TypeChoice {
		return a
	}
	canonical, up := q.Canonical(), sent(q)
	probs := make(map[string]float64, len(a.Probabilities))
	choice := a.Choice
	for i, o := range up.Options {
		probs[canonical.Options[i].Name] = a.Probabilities[o.Name]
		if a.Choice == o.Name {
			choice = canonical.Options[i].Name
		}
	}
	a.Probabilities, a.Choice = probs, choice
	return a
}

// charged is what one call to an upstream that decides is charged, its
// reply having reported input and output tokens (0 when no reply was
// read): the reported input when believable, else the tokens of what was
// sent, the request as it went on the wire (tokens.Reported). Such an
// upstream may read the state once for each of the call's questions, so
// a count is believed up to tokens.MaxContext a question.
func charged(input, output int64, questions int, sent any) systemone.Usage {
	return systemone.Usage{
		InputTokens: tokens.Reported(input, max(questions, 1)*tokens.MaxContext, func() int {
			b, err := json.Marshal(sent)
			if err != nil {
				return 0
			}
			return tokens.Default().Count(string(b))
		}),
		OutputTokens: tokens.ReportedOutput(output),
	}
}
