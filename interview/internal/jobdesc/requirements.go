package jobdesc

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/judgeworks/shared/wordvec"
)

// maxRequirementRunes bounds one requirement's text; a longer bullet is
// cut at a word.
const maxRequirementRunes = 100

// Requirements reads the main requirements of a job description without a
// model. Candidates are its bullet lines, whole, when it has any (the
// prose around them is mostly about the company); otherwise the clauses of
// its lines (split at . ; : , ! and ?). Each is stripped of leading filler
// ("You have experience with Spark" → "Spark"); those with no content word
// or more than 12 go. When more than MaxRequirements remain, the most
// specific are kept (the sum of the specificity of their three rarest
// words), in the description's order. A description with no usable
// candidate gives its heaviest terms instead.
func Requirements(description string) []string {
	type candidate struct {
		text  string
		score float64
	}
	table := wordvec.Default()
	var cands []candidate
	seen := map[string]bool{}
	add := func(raw string) {
		text := trimFiller(raw)
		words := contentWords(text)
		if len(words) == 0 || len(words) > 12 {
			return
		}
		key := strings.Join(words, " ")
		if seen[key] {
			return
		}
		seen[key] = true
		spec := make([]float64, len(words))
		for i, w := range words {
			spec[i] = specificity(table, w)
		}
		slices.Sort(spec)
		slices.Reverse(spec)
		score := 0.0
		for _, s := range spec[:min(3, len(spec))] {
			score += s
		}
		cands = append(cands, candidate{text: clip(text), score: score})
	}
	lines := strings.Split(description, "\n")
	for _, line := range lines {
		if item, ok := bulletItem(line); ok {
			add(item)
		}
	}
	if len(seen) == 0 {
		for _, line := range lines {
			for clause := range strings.FieldsFuncSeq(line, func(r rune) bool { return strings.ContainsRune(".;:,!?", r) }) {
				add(clause)
			}
		}
	}
	if len(cands) == 0 {
		var out []string
		for _, w := range Terms(description, MaxRequirements).words {
			out = append(out, w.form)
		}
		return out
	}
	if len(cands) > MaxRequirements {
		order := make([]int, len(cands))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			return cmpDesc(cands[a].score, cands[b].score)
		})
		keep := order[:MaxRequirements]
		slices.Sort(keep)
		kept := make([]candidate, 0, MaxRequirements)
		for _, i := range keep {
			kept = append(kept, cands[i])
		}
		cands = kept
	}
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.text
	}
	return out
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// bulletItem returns the text of a bullet line ("- Go", "* Go", "• Go",
// "1. Go", "2) Go").
func bulletItem(line string) (string, bool) {
	s := strings.TrimSpace(line)
	for _, m := range []string{"- ", "* ", "• ", "· ", "– ", "— "} {
		if rest, ok := strings.CutPrefix(s, m); ok {
			return rest, true
		}
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s)-1 && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return s[i+2:], true
	}
	return "", false
}

// trimFiller drops leading words that name no skill, connectors and stray
// punctuation: "and data quality checks" → "data quality checks",
// "3+ years of Go" → "Go".
func trimFiller(s string) string {
	fields := strings.Fields(s)
	for len(fields) > 0 {
		w := strings.Join(wordvec.Words(fields[0]), "")
		if w != "" && !ignored()[w] {
			break
		}
		fields = fields[1:]
	}
	out := strings.Join(fields, " ")
	return strings.TrimRightFunc(out, func(r rune) bool { return unicode.IsPunct(r) && r != ')' && r != '+' && r != '#' })
}

// clip cuts s to maxRequirementRunes at a word boundary.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxRequirementRunes {
		return s
	}
	r := []rune(s)[:maxRequirementRunes-1]
	if i := strings.LastIndexFunc(string(r), unicode.IsSpace); i > maxRequirementRunes/2 {
		return strings.TrimSpace(string(r)[:i]) + "…"
	}
	return string(r) + "…"
}
