package coherent

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/judgeworks/shared/jsonscan"
	"github.com/judgeworks/shared/systemone"
)

// Questions that ask about other questions of the same request. Their
// answers are worked out from the answers of the questions they name,
// never asked, so they obey the laws of probability that relate them.
// Each is recognised by its shape alone (shapeOf), whatever the request;
// the questions it names are then looked up among the request's questions
// of no such shape, by their instructions (same text, case and runs of
// white space aside). A question whose names are not all found is asked
// as it is.
//
//   - An outcome of a choice or score (outcomeRef): "Which team should
//     handle this? Is the answer "billing"?", "Is the answer to "Which
//     team should handle this?" one of billing, shipping?", "How upset
//     is the writer? Is it "angry" or higher?" (also "or above", "at
//     least", "at most", "or lower", …): the sum of the probabilities of
//     the options or levels it names, by their text or option name.
//     Negated first ("… anything other than billing?", "… not billing?",
//     "… none of these: …"), it is the complement.
//   - A compound of two yes/no questions (compound): the two quoted ("Is
//     the answer yes to both "A?" and "B?"?") or listed after a colon
//     ("Is the answer yes to at least one of these questions: A? B?"),
//     with "both"/"all" or "at least one"/"either"/"any", "yes" or "no",
//     or the two joined by "and" or "or": A and B, A or B, neither, not
//     both.
//   - A choice of four options over two yes/no questions named in its
//     instructions (pairChoice), each option a cell of their answers
//     ("both", "only the first", "only the second", "neither"; "yes, no";
//     "yes to both", "no to both").
//
// The two yes/no questions of a compound or a four-way choice have one
// joint distribution in a request: their own answers as marginals, and
// for how often both hold, the answer to the question "Is the answer yes
// to both "A" and "B"?", asked once for the pair and bounded by its
// parts (Fréchet: max(0, p(A) + p(B) − 1) ≤ p(A and B) ≤ min(p(A),
// p(B))). Every compound and four-way choice of the pair is read from
// that one distribution.

// shapeKind is the kind of a derived question.
type shapeKind uint8

const (
	outcomeRef shapeKind = iota + 1
	compound
	pairChoice
)

// op is a compound's operation on its two parts.
type op uint8

const (
	and op = iota + 1
	or
	nor
	nand
)

// cell is one of the four joint answers of two yes/no questions.
type cell uint8

const (
	both cell = iota
	firstOnly
	secondOnly
	neither
)

// spec is what an outcome reference says of the answer: one of the
// outcomes named (texts), or for a score a level and every level above it
// (higher) or below it (lower).
type spec struct {
	texts         []string
	higher, lower bool
}

// mayRefer is the cheap test for a question that could be derived: a
// yes/no question whose instructions hold a quote or a sentence before
// their last, or a choice whose four options are the four cells of two
// yes/no answers. Most questions fail it without more reading. It
// depends on the question alone, and a question that passes it is never
// the source of another.
func mayRefer(q systemone.Question) (string, []cell, bool) {
	if !mayReferRaw(q) {
		return "", nil, false
	}
	var cells []cell
	if q.Type == systemone.TypeChoice {
		var ok bool
		if cells, ok = readCells(q.Options); !ok {
			return "", nil, false
		}
	}
	text, ok := instructionText(q)
	return text, cells, ok
}

// mayReferRaw is the first half of mayRefer, read on the instructions as
// JSON: they hold a quote (written \") or a "?" before their end.
func mayReferRaw(q systemone.Question) bool {
	if q.Type != systemone.TypeNoul && (q.Type != systemone.TypeChoice || len(q.Options) != 4) {
		return false
	}
	raw := bytes.TrimRight(q.Instructions, " \t\r\n\"?.!")
	return bytes.Contains(raw, []byte(`\"`)) || bytes.IndexByte(raw, '?') >= 0
}

// norm is text as questions are matched: lower case, runs of white space
// as one space, without the end's punctuation ("?", ".", "!").
func norm(text string) string {
	return strings.TrimRight(strings.Join(strings.Fields(strings.ToLower(text)), " "), "?.! ")
}

// segment is a part of a text that may be a question of its own: a quoted
// string, or a sentence ending in "?" outside quotes.
type segment struct{ from, to int }

// segments lists text's quoted strings and, outside them, its sentences
// ending in "?" (each from the end of the previous sentence, ":" or
// quote): what may name another question.
func segments(text string) []segment {
	var out []segment
	start, open := 0, -1
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"' && open < 0:
			open = i
		case c == '"':
			out = append(out, segment{open + 1, i})
			open, start = -1, i+1
		case open >= 0:
		case c == ':' || c == '.' || c == '!':
			start = i + 1
		case c == '?':
			out = append(out, segment{start, i + 1})
			start = i + 1
		}
	}
	return out
}

// readOp reads how a compound's introduction combines its two questions:
// a quantifier ("both", "all"; "at least one", "either", "any", "one
// of"), or else "and" or "or" between them, and the answer it asks about
// ("yes", the default, or "no"). Any other negation is not read.
func readOp(rest string) (op, bool) {
	ws := strings.FieldsFunc(rest, func(r rune) bool { return !('a' <= r && r <= 'z') })
	var all, some, yes, no, joinAnd, joinOr bool
	for i, w := range ws {
		switch w {
		case "both", "all":
			all = true
		case "either", "any":
			some = true
		case "least":
			some = some || i > 0 && ws[i-1] == "at"
		case "one":
			some = some || i+1 < len(ws) && ws[i+1] == "of"
		case "yes", "true":
			yes = true
		case "no", "false":
			no = true
		case "and":
			joinAnd = true
		case "or":
			joinOr = true
		case "not", "never", "neither", "nor", "none", "nothing", "cannot":
			return 0, false
		}
	}
	if yes && no || all && some {
		return 0, false
	}
	switch {
	case all:
	case some:
	case joinAnd && !joinOr:
		all = true
	case joinOr && !joinAnd:
		some = true
	default:
		return 0, false
	}
	switch {
	case all && !no:
		return and, true
	case all:
		return nor, true
	case !no:
		return or, true
	}
	return nand, true
}

// readCells reads the options of a four-way choice as the four cells of
// two yes/no answers, each option a different cell.
func readCells(opts []systemone.Option) ([]cell, bool) {
	cells := make([]cell, len(opts))
	var seen [4]bool
	for i, o := range opts {
		c, ok := readCell(o.Text())
		if !ok || seen[c] {
			return nil, false
		}
		seen[c], cells[i] = true, c
	}
	return cells, true
}

// readCell reads an option of a four-way choice as the cell it names:
// two answers in order ("yes, no", "true/false"), "both" or "neither"
// ("yes to both", "no to both"), or "only the first", "only the second".
func readCell(text string) (cell, bool) {
	ws := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !('a' <= r && r <= 'z') })
	var answers []bool
	var bothW, neitherW, first, second bool
	for _, w := range ws {
		switch w {
		case "yes", "true":
			answers = append(answers, true)
		case "no", "false":
			answers = append(answers, false)
		case "both":
			bothW = true
		case "neither", "none":
			neitherW = true
		case "first", "former":
			first = true
		case "second", "latter":
			second = true
		}
	}
	switch {
	case len(answers) == 2 && !bothW && !neitherW && !first && !second:
		return cellOf(answers[0], answers[1]), true
	case bothW && !neitherW && !first && !second && len(answers) <= 1:
		if len(answers) == 1 && !answers[0] {
			return neither, true
		}
		return both, true
	case neitherW && !bothW && !first && !second && len(answers) == 0:
		return neither, true
	case first && !second && !bothW && !neitherW && len(answers) == 0:
		return firstOnly, true
	case second && !first && !bothW && !neitherW && len(answers) == 0:
		return secondOnly, true
	}
	return 0, false
}

func cellOf(a, b bool) cell {
	switch {
	case a && b:
		return both
	case a:
		return firstOnly
	case b:
		return secondOnly
	}
	return neither
}

// readOutcomeRef reads a yes/no question about the answer to a choice or
// score question: the other question's instructions, then "Is it …?" or
// "Is the answer …?"; or "Is the answer to "…" …?".
func readOutcomeRef(text string) (string, spec, bool) {
	t := strings.TrimSpace(text)
	var src, claim string
	if r, ok := cutWords(t, "is the answer to"); ok && strings.HasPrefix(r, `"`) {
		end := strings.IndexByte(r[1:], '"')
		if end < 0 {
			return "", spec{}, false
		}
		src, claim = r[1:end+1], r[end+2:]
	} else {
		q := strings.IndexByte(t, '?')
		if q < 0 || q == len(t)-1 {
			return "", spec{}, false
		}
		src = t[:q+1]
		r := strings.TrimSpace(t[q+1:])
		var ok bool
		if claim, ok = cutWords(r, "is the answer"); !ok {
			if claim, ok = cutWords(r, "is it"); !ok {
				return "", spec{}, false
			}
		}
	}
	sp, ok := readSpec(claim)
	if !ok {
		return "", spec{}, false
	}
	return norm(src), sp, true
}

// readSpec reads what an outcome reference says of the answer, the claim
// after "Is the answer": "billing?", "exactly "billing"?", "one of these:
// billing; shipping?", ""angry" or higher?", "at most "annoyed"?".
func readSpec(claim string) (spec, bool) {
	c := strings.TrimSpace(claim)
	if !strings.HasSuffix(c, "?") {
		return spec{}, false
	}
	c = strings.TrimSpace(strings.TrimSuffix(c, "?"))
	if r, ok := cutWords(c, "exactly"); ok {
		c = r
	}
	var sp spec
	for _, suf := range []string{"or higher", "or above", "or more", "or greater"} {
		if r, ok := cutSuffixWords(c, suf); ok {
			c, sp.higher = r, true
		}
	}
	for _, suf := range []string{"or lower", "or below", "or less", "or fewer"} {
		if r, ok := cutSuffixWords(c, suf); ok {
			c, sp.lower = r, true
		}
	}
	for _, pre := range []string{"at least", "no less than"} {
		if r, ok := cutWords(c, pre); ok {
			c, sp.higher = r, true
		}
	}
	for _, pre := range []string{"at most", "no more than"} {
		if r, ok := cutWords(c, pre); ok {
			c, sp.lower = r, true
		}
	}
	if sp.higher && sp.lower {
		return spec{}, false
	}
	if sp.higher || sp.lower {
		sp.texts = []string{unquote(c)}
		return sp, sp.texts[0] != ""
	}
	for _, pre := range []string{"one of these:", "one of the following:", "one of", "any of", "either"} {
		if r, ok := cutWords(c, pre); ok {
			sp.texts = splitList(r)
			return sp, len(sp.texts) > 0
		}
	}
	sp.texts = []string{unquote(c)}
	return sp, sp.texts[0] != ""
}

// cutSuffixWords is text without suffix (compared in any case) at its
// end, after white space.
func cutSuffixWords(text, suffix string) (string, bool) {
	if len(text) <= len(suffix) || !strings.EqualFold(text[len(text)-len(suffix):], suffix) {
		return "", false
	}
	rest := text[:len(text)-len(suffix)]
	if !isSpace(rest[len(rest)-1]) {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// splitList splits a list of outcomes at "; ", or else at ", " and " or
// ", each unquoted.
func splitList(s string) []string {
	var items []string
	if strings.Contains(s, ";") {
		items = strings.Split(s, ";")
	} else {
		items = strings.Split(strings.ReplaceAll(strings.ReplaceAll(s, ", or ", ", "), " or ", ", "), ",")
	}
	var out []string
	for _, it := range items {
		if u := unquote(it); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// unquote is s trimmed, without the quotes around it, normalised.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if u, err := strconv.Unquote(s); err == nil {
		s = u
	}
	return norm(s)
}

// instructionText is q's instructions when they are one string of text.
func instructionText(q systemone.Question) (string, bool) {
	return jsonscan.StringValue(q.Instructions)
}
