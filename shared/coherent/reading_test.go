package coherent

import (
	"context"
	"strings"
	"testing"

	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/words"
)

// plainMainClauseNot is mainClauseNot's reading written plainly,
// splitting the text and folding every word into a new string: the
// reference the reading without copies is held to. Both remove what they
// find with removeSite.
func plainMainClauseNot(text string) (string, bool) {
	plainFold := func(f string) string {
		var b strings.Builder
		for _, r := range strings.ToLower(f) {
			if r >= 'a' && r <= 'z' {
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	fields := strings.Fields(text)
	if len(fields) < 2 {
		return "", false
	}
	if first := plainFold(fields[0]); !auxiliaries[first] && contracted[first] == "" {
		return "", false
	}
	count, at, kind := 0, -1, none
	clause, inQuote := true, false
	prev := ""
	for i, f := range fields {
		w := plainFold(f)
		quoted := inQuote || strings.Contains(f, `"`)
		if strings.Count(f, `"`)%2 == 1 {
			inQuote = !inQuote
		}
		if !quoted {
			if subordinators[w] {
				clause = false
			}
			k, pos := none, i
			_, contra := words.Contradictory(w)
			switch {
			case i == 0 && contracted[w] != "":
				k = auxSite
			case i == 0:
			case w == "not":
				k = notSite
			case w == "never":
				k = neverSite
			case w == "longer" && prev == "no":
				k, pos = noLongerSite, i-1
			case w == "to" && prev == "fail":
				k, pos = failSite, i-1
			case contra:
				k = contraSite
			}
			if negators[w] || k == failSite || k == contraSite {
				count++
			}
			if k != none && clause {
				at, kind = pos, k
			}
		}
		prev = w
	}
	if count != 1 || at < 0 {
		return "", false
	}
	return removeSite(fields, at, kind), true
}

var clauseSeeds = []string{
	"Is the writer not asking for a refund?", "Doesn't it work?", "DOESN’T it WORK?", "Is it not, not late?",
	"Does the writer say that it does not work?", "Is the customer asking for a refund?", "Not is it?",
	"Isn't   the\tparcel late", "Is İt nOt ǅone?", "Is it not-late?", "is", "Won't it start? No.",
	"Does the KELVIN sign \u212a count as k not?", "Is it averyveryveryveryveryveryverylongwordthatdoesnotfit not fine?",
	"Is it still UNRESOLVED?", "Does it no longer work?", "Did it FAIL to load?", "Is it anything other than \"x\"?",
	`Is "it not" late?`, "Is it no, longer?", "Is it never unpaid?", "Is it not both late and wet?",
}

func TestMainClauseNotMatchesReference(t *testing.T) {
	for _, s := range clauseSeeds {
		got, ok := mainClauseNot(s)
		want, wok := plainMainClauseNot(s)
		if got != want || ok != wok {
			t.Errorf("mainClauseNot(%q) = %q, %v; want %q, %v", s, got, ok, want, wok)
		}
	}
}

// FuzzMainClauseNot holds mainClauseNot to plainMainClauseNot on any text.
func FuzzMainClauseNot(f *testing.F) {
	for _, s := range clauseSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := mainClauseNot(s)
		want, wok := plainMainClauseNot(s)
		if got != want || ok != wok {
			t.Fatalf("mainClauseNot(%q) = %q, %v; want %q, %v", s, got, ok, want, wok)
		}
	})
}

// A request none of whose questions a rule fits is asked as it came, and
// its response returned as the engine gave it: Rewrite copies nothing.
func TestRewriteLeavesFormedQuestionsAlone(t *testing.T) {
	req := systemone.Request{Model: "m", State: str("text"), Questions: map[string]systemone.Question{
		"refund": {Type: systemone.TypeNoul, Instructions: str("Is the customer asking for a refund?")},
		"team": {Type: systemone.TypeChoice, Instructions: str("Which team?"), Options: []systemone.Option{
			{Name: "billing", Description: str("refunds")}, {Name: "technical", Description: str("crashes")}}},
		"anger": {Type: systemone.TypeScore, Instructions: str("How angry?"), Levels: systemone.Texts("calm", "annoyed", "furious")},
	}}
	core, back := Rewrite(req)
	for name, q := range req.Questions {
		if got := core.Questions[name]; string(got.Instructions) != string(q.Instructions) || got.Type != q.Type {
			t.Errorf("%s rewritten as %+v", name, got)
		}
	}
	resp := &systemone.Response{Model: "m"}
	if got, err := back(resp); got != resp || err != nil {
		t.Errorf("back gave %p, %v; want the engine's response %p", got, err, resp)
	}
	// Reading the noul question's text is the one allocation.
	noul := systemone.Request{Questions: map[string]systemone.Question{"refund": req.Questions["refund"]}}
	if n := testing.AllocsPerRun(100, func() { Rewrite(noul) }); n > 1 {
		t.Errorf("Rewrite of a question no rule fits allocates %v times, want at most 1", n)
	}
}

// Rewriting one question leaves the caller's request as it was.
func TestRewriteKeepsTheRequest(t *testing.T) {
	neg := systemone.Question{Type: systemone.TypeNoul, Instructions: str("Is it not late?")}
	plain := systemone.Question{Type: systemone.TypeNoul, Instructions: str("Is it early?")}
	req := systemone.Request{Questions: map[string]systemone.Question{"neg": neg, "plain": plain}}
	core, _ := Rewrite(req)
	if got := string(req.Questions["neg"].Instructions); got != `"Is it not late?"` {
		t.Errorf("the request's question became %s", got)
	}
	if got := string(core.Questions["neg"].Instructions); got != `"Is it late?"` {
		t.Errorf("neg asked as %s", got)
	}
	if got := string(core.Questions["plain"].Instructions); got != `"Is it early?"` {
		t.Errorf("plain asked as %s", got)
	}
}

func BenchmarkAsk(b *testing.B) {
	req := systemone.Request{Model: "m", State: str("text"), Questions: map[string]systemone.Question{
		"refund": {Type: systemone.TypeNoul, Instructions: str("Is the customer asking for a refund?")}}}
	answer := func(context.Context, systemone.Request) (*systemone.Response, error) {
		return &systemone.Response{}, nil
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Ask(context.Background(), req, answer); err != nil {
			b.Fatal(err)
		}
	}
}
