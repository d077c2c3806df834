package enginetest

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/shared/systemone"
)

// Coherence says which of the coherence laws an engine keeps beyond those
// every engine keeps by construction: Apart, choices as a normalised
// product of per-option scores (the offline engines, and the chat engine
// with JUDGE_LLM_CHOICE=apart).
type Coherence struct {
	Apart bool
}

// CoherenceLaws are the laws of docs/api.md, "Coherence", each checked to
// 10⁻¹².
var CoherenceLaws = []struct {
	Name  string
	Check func(t *testing.T, e engine.Engine, c Coherence)
}{
	{"ids never decide", lawIdsNeverDecide},
	{"duplicates split evenly", lawDuplicatesSplitEvenly},
	{"yes and no are noul", lawYesNoPairIsNoul},
	{"choice set independence", lawChoiceSetIndependence},
	{"batch independence", lawBatchIndependence},
	{"negation and ranges", lawNegationAndRanges},
	{"outcomes of other questions", lawOutcomesOfOtherQuestions},
	{"compounds of two questions", lawCompounds},
}

// RunCoherence checks e against every coherence law, each as a subtest.
func RunCoherence(t *testing.T, e engine.Engine, c Coherence) {
	t.Helper()
	for _, law := range CoherenceLaws {
		t.Run(law.Name, func(t *testing.T) { law.Check(t, e, c) })
	}
}

const coherenceState = `"I was charged twice for my March invoice and the app crashes whenever I open the billing page. Please send the money back."`

func team() systemone.Question {
	return systemone.Question{Type: systemone.TypeChoice, Instructions: text("Which team should handle this ticket?"),
		Options: []systemone.Option{
			{Name: "billing", Description: text("payments, invoices, charges and refunds")},
			{Name: "technical", Description: text("bugs, errors, crashes and slow pages")},
			{Name: "account", Description: text("signing in, passwords and profile settings")},
			{Name: "shipping", Description: text("deliveries, parcels and couriers")},
		}}
}

func refund() systemone.Question {
	return systemone.Question{Type: systemone.TypeNoul, Instructions: text("Does the customer want a refund?")}
}

func upset() systemone.Question {
	return systemone.Question{Type: systemone.TypeScore, Instructions: text("How upset is the customer?"),
		Levels: systemone.Texts("calm", "annoyed", "angry", "furious")}
}

func text(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// exact is how far two probabilities the laws say are equal may differ:
// the rounding of a sum taken in another order.
const exact = 1e-12

func askQuestions(t *testing.T, b engine.Engine, qs map[string]systemone.Question) map[string]systemone.Answer {
	t.Helper()
	req := systemone.Request{Model: "m", State: json.RawMessage(coherenceState), Questions: qs}
	resp, err := b.Ask(context.Background(), checked(t, req))
	if err != nil {
		t.Fatal(err)
	}
	return resp.Answers
}

func askOne(t *testing.T, b engine.Engine, q systemone.Question) systemone.Answer {
	t.Helper()
	return askQuestions(t, b, map[string]systemone.Question{"q": q})["q"]
}

func same(a, b float64) bool { return math.Abs(a-b) <= exact }

// An option's name decides nothing once it has a description: renamed
// options, and descriptions swapped between names, move the answer with
// the descriptions.
func lawIdsNeverDecide(t *testing.T, b engine.Engine, _ Coherence) {
	base := askOne(t, b, team())
	renamed := team()
	for i := range renamed.Options {
		renamed.Options[i].Name = "option_" + strconv.Itoa(9-i)
	}
	got := askOne(t, b, renamed)
	for i, o := range team().Options {
		if p, q := base.Probabilities[o.Name], got.Probabilities[renamed.Options[i].Name]; !same(p, q) {
			t.Errorf("renamed %s: %v, was %v", o.Name, q, p)
		}
	}
	swapped := team()
	swapped.Options[0].Description, swapped.Options[1].Description = swapped.Options[1].Description, swapped.Options[0].Description
	got = askOne(t, b, swapped)
	if !same(got.Probabilities["billing"], base.Probabilities["technical"]) || !same(got.Probabilities["technical"], base.Probabilities["billing"]) {
		t.Errorf("swapped descriptions: %v, was %v", got.Probabilities, base.Probabilities)
	}
}

// Options that say the same thing are one event, split evenly.
func lawDuplicatesSplitEvenly(t *testing.T, b engine.Engine, _ Coherence) {
	base := askOne(t, b, team())
	dup := team()
	dup.Options = append(dup.Options, systemone.Option{Name: "money", Description: dup.Options[0].Description})
	got := askOne(t, b, dup)
	if !same(got.Probabilities["billing"], got.Probabilities["money"]) ||
		!same(got.Probabilities["billing"]+got.Probabilities["money"], base.Probabilities["billing"]) {
		t.Errorf("duplicate of billing: %v, was %v", got.Probabilities, base.Probabilities)
	}
	for _, n := range []string{"technical", "account", "shipping"} {
		if !same(got.Probabilities[n], base.Probabilities[n]) {
			t.Errorf("%s moved from %v to %v beside a duplicate", n, base.Probabilities[n], got.Probabilities[n])
		}
	}
}

// A choice or a score of yes and no is the noul question it spells.
func lawYesNoPairIsNoul(t *testing.T, b engine.Engine, _ Coherence) {
	p := *askOne(t, b, refund()).Noul
	choice := systemone.Question{Type: systemone.TypeChoice, Instructions: refund().Instructions,
		Options: []systemone.Option{{Name: "no"}, {Name: "yes"}}}
	if got := askOne(t, b, choice); !same(got.Probabilities["yes"], p) || !same(got.Probabilities["no"], 1-p) {
		t.Errorf("as a choice: %v, noul %v", got.Probabilities, p)
	}
	described := systemone.Question{Type: systemone.TypeChoice, Instructions: refund().Instructions,
		Options: []systemone.Option{{Name: "a", Description: text("Yes")}, {Name: "b", Description: text("No.")}}}
	if got := askOne(t, b, described); !same(got.Probabilities["a"], p) {
		t.Errorf("as a choice described yes and no: %v, noul %v", got.Probabilities, p)
	}
	score := systemone.Question{Type: systemone.TypeScore, Instructions: refund().Instructions, Levels: systemone.Texts("no", "yes")}
	if got := askOne(t, b, score); !same(got.Probabilities["1"], p) || !same(*got.Score, p) {
		t.Errorf("as a score: %v, noul %v", got.Probabilities, p)
	}
}

// The odds between two options do not depend on which others are offered.
func lawChoiceSetIndependence(t *testing.T, b engine.Engine, e Coherence) {
	if !e.Apart {
		t.Skip("the engine shows the whole menu at once; it does not keep this law")
	}
	base := askOne(t, b, team())
	smaller := team()
	smaller.Options = smaller.Options[:2]
	got := askOne(t, b, smaller)
	ratio := base.Probabilities["billing"] / base.Probabilities["technical"]
	if r := got.Probabilities["billing"] / got.Probabilities["technical"]; math.Abs(r-ratio) > exact*ratio {
		t.Errorf("billing:technical %v with two options, %v with four", r, ratio)
	}
}

// A question's answer does not depend on the other questions asked with
// it, nor on its name.
func lawBatchIndependence(t *testing.T, b engine.Engine, _ Coherence) {
	alone := map[string]systemone.Answer{}
	for name, q := range map[string]systemone.Question{"team": team(), "refund": refund(), "upset": upset()} {
		alone[name] = askOne(t, b, q)
	}
	together := askQuestions(t, b, map[string]systemone.Question{"t": team(), "r": refund(), "u": upset(),
		"r2": {Type: systemone.TypeNoul, Instructions: text("Is the customer polite?")}})
	for from, to := range map[string]string{"team": "t", "refund": "r", "upset": "u"} {
		a, c := alone[from], together[to]
		if a.Noul != nil && !same(*a.Noul, *c.Noul) {
			t.Errorf("%s: %v alone, %v in a batch", from, *a.Noul, *c.Noul)
		}
		for k, p := range a.Probabilities {
			if !same(p, c.Probabilities[k]) {
				t.Errorf("%s: %s %v alone, %v in a batch", from, k, p, c.Probabilities[k])
			}
		}
	}
}

// A question that negates another is its complement, asked alone or
// beside it; "k or higher" the sum of those levels.
func lawNegationAndRanges(t *testing.T, b engine.Engine, _ Coherence) {
	noul := func(s string) systemone.Question {
		return systemone.Question{Type: systemone.TypeNoul, Instructions: text(s)}
	}
	for _, c := range []struct{ pos, neg string }{
		{"Does the customer want a refund?", "Does the customer not want a refund?"},
		{"Does the customer want a refund?", "Doesn't the customer want a refund?"},
		{"Does the customer want a refund?", "Is it not the case that the answer to this question is yes: Does the customer want a refund?"},
		{"Does the customer want a refund?", "Is it false that the answer to the following question is yes: Does the customer want a refund?"},
		{"Does the customer want a refund?", "Does the customer never want a refund?"},
		{"Is it a refund?", "Is it anything other than a refund?"},
		{"Does the customer still want a refund?", "Does the customer no longer want a refund?"},
		{"Is the billing issue resolved?", "Is the billing issue still unresolved?"},
	} {
		p := *askOne(t, b, noul(c.pos)).Noul
		if got := *askOne(t, b, noul(c.neg)).Noul; !same(got, 1-p) {
			t.Errorf("%q: %v, want 1 − %v", c.neg, got, p)
		}
		beside := askQuestions(t, b, map[string]systemone.Question{"pos": noul(c.pos), "neg": noul(c.neg)})
		if !same(*beside["pos"].Noul+*beside["neg"].Noul, 1) {
			t.Errorf("%q beside its positive: %v + %v ≠ 1", c.neg, *beside["neg"].Noul, *beside["pos"].Noul)
		}
	}
	claim := systemone.Question{Type: systemone.TypeNoul, Instructions: text("The customer wants a refund.")}
	notClaim := systemone.Question{Type: systemone.TypeNoul, Instructions: text("It is not true that the customer wants a refund.")}
	if a, b := *askOne(t, b, claim).Noul, *askOne(t, b, notClaim).Noul; !same(a+b, 1) {
		t.Errorf("a claim %v and its wrapped negation %v", a, b)
	}
	either := *askOne(t, b, systemone.Question{Type: systemone.TypeNoul, Instructions: text("Does the customer want a refund or a discount?")}).Noul
	neither := *askOne(t, b, systemone.Question{Type: systemone.TypeNoul, Instructions: text("Does the customer want neither a refund nor a discount?")}).Noul
	if !same(either+neither, 1) {
		t.Errorf("either %v + neither %v ≠ 1", either, neither)
	}
	s := askOne(t, b, upset())
	q := systemone.Question{Type: systemone.TypeNoul,
		Instructions: text(`How upset is the customer? On the scale "calm", "annoyed", "angry", "furious", is it "angry" or higher?`)}
	if got, want := *askOne(t, b, q).Noul, s.Probabilities["2"]+s.Probabilities["3"]; !same(got, want) {
		t.Errorf("angry or higher: %v, want %v", got, want)
	}
}

// A yes/no question about outcomes of a choice or score asked beside it
// is their probability: "is the answer o?" is p(o), "anything other than
// o" 1 − p(o), "level k or higher" the upper tail.
func lawOutcomesOfOtherQuestions(t *testing.T, b engine.Engine, _ Coherence) {
	tm, up := team(), upset()
	tmText, upText := "Which team should handle this ticket?", "How upset is the customer?"
	qs := map[string]systemone.Question{"team": tm, "upset": up}
	noul := func(s string) systemone.Question {
		return systemone.Question{Type: systemone.TypeNoul, Instructions: text(s)}
	}
	for i, o := range tm.Options {
		desc := systemone.ContentText(o.Description)
		qs["is_"+o.Name] = noul(tmText + ` Is the answer "` + desc + `"?`)
		qs["not_"+o.Name] = noul(tmText + " Is the answer anything other than " + o.Name + "?")
		if i == 0 {
			qs["quoted"] = noul(`Is the answer to "` + tmText + `" one of ` + o.Name + `, shipping?`)
		}
	}
	levels := []string{"calm", "annoyed", "angry", "furious"}
	for _, l := range levels {
		qs["at_least_"+l] = noul(upText + ` Is it "` + l + `" or higher?`)
		qs["other_than_"+l] = noul(upText + " Is the answer anything other than " + l + "?")
	}
	got := askQuestions(t, b, qs)
	p := got["team"].Probabilities
	for _, o := range tm.Options {
		if a := *got["is_"+o.Name].Noul; !same(a, p[o.Name]) {
			t.Errorf("is the answer %s: %v, p = %v", o.Name, a, p[o.Name])
		}
		if a := *got["not_"+o.Name].Noul; !same(a, 1-p[o.Name]) {
			t.Errorf("anything other than %s: %v, p = %v", o.Name, a, p[o.Name])
		}
	}
	if a := *got["quoted"].Noul; !same(a, p["billing"]+p["shipping"]) {
		t.Errorf("one of billing, shipping: %v, want %v", a, p["billing"]+p["shipping"])
	}
	s := got["upset"].Probabilities
	tail := 0.0
	for k := len(levels) - 1; k >= 0; k-- {
		key := strconv.Itoa(k)
		tail += s[key]
		if a := *got["at_least_"+levels[k]].Noul; !same(a, tail) {
			t.Errorf("%s or higher: %v, want %v", levels[k], a, tail)
		}
		if a := *got["other_than_"+levels[k]].Noul; !same(a, 1-s[key]) {
			t.Errorf("anything other than %s: %v, want 1 − %v", levels[k], a, s[key])
		}
	}
}

// Compounds of two yes/no questions asked beside them read one joint
// distribution: "both" within the Fréchet bounds of its parts, "both" and
// "at least one" summing to the parts (inclusion–exclusion), "not both"
// and "neither" their complements, and a four-way choice with the parts
// as its marginals.
func lawCompounds(t *testing.T, b engine.Engine, _ Coherence) {
	a, c := "Does the customer want a refund?", "Does the app crash?"
	noul := func(s string) systemone.Question {
		return systemone.Question{Type: systemone.TypeNoul, Instructions: text(s)}
	}
	got := askQuestions(t, b, map[string]systemone.Question{
		"a": noul(a), "c": noul(c),
		"both":    noul(`Is the answer yes to both "` + a + `" and "` + c + `"?`),
		"some":    noul("Is the answer yes to at least one of these questions: " + a + " " + c),
		"notBoth": noul(`Is it not the case that the answer is yes to both "` + c + `" and "` + a + `"?`),
		"neither": noul("Is the answer no to both of these questions: " + c + " " + a),
		"pair": {Type: systemone.TypeChoice, Instructions: text("Two questions: " + a + " " + c + " Which answers are right?"),
			Options: []systemone.Option{{Name: "both"}, {Name: "only the first"}, {Name: "only the second"}, {Name: "neither"}}},
	})
	pa, pc := *got["a"].Noul, *got["c"].Noul
	both, some := *got["both"].Noul, *got["some"].Noul
	if both > math.Min(pa, pc)+exact || both < math.Max(0, pa+pc-1)-exact {
		t.Errorf("both %v outside the bounds of %v and %v", both, pa, pc)
	}
	if !same(both+some, pa+pc) {
		t.Errorf("both %v + at least one %v ≠ %v + %v", both, some, pa, pc)
	}
	if !same(*got["notBoth"].Noul, 1-both) || !same(*got["neither"].Noul, 1-some) {
		t.Errorf("not both %v, neither %v; both %v, at least one %v", *got["notBoth"].Noul, *got["neither"].Noul, both, some)
	}
	pair := got["pair"].Probabilities
	if !same(pair["both"]+pair["only the first"], pa) || !same(pair["both"]+pair["only the second"], pc) || !same(pair["both"], both) {
		t.Errorf("four-way choice %v; marginals %v and %v, both %v", pair, pa, pc, both)
	}
}
