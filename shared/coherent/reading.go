package coherent

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/judgeworks/shared/words"
)

// The rules below are how a reader of English finds that one yes/no
// question negates another, and what "level k or higher" covers. They
// read the question's grammar (its first word, its negators, its quotes),
// never its topic, so they hold for any question in those forms. Quoted
// text is a mention, not a use: a negation inside quotes belongs to the
// question quoted, never to the one asked.

// auxiliaries open a yes/no question ("Is …", "Does …", "Would …").
var auxiliaries = words.Set("is", "are", "was", "were", "am", "do", "does", "did", "has", "have", "had",
	"can", "could", "will", "would", "shall", "should", "may", "might", "must")

// contracted are the negated auxiliaries, without their apostrophe, and
// the auxiliary each negates.
var contracted = map[string]string{
	"isnt": "is", "arent": "are", "wasnt": "was", "werent": "were", "dont": "do", "doesnt": "does",
	"didnt": "did", "hasnt": "has", "havent": "have", "hadnt": "had", "cant": "can", "couldnt": "could",
	"wont": "will", "wouldnt": "would", "shant": "shall", "shouldnt": "should", "mightnt": "might", "mustnt": "must",
}

// subordinators open a clause inside the question: a "not" after one
// negates that clause ("Does the writer say that it does not work?"), not
// the question, and saying the opposite is not the complement.
var subordinators = words.Set("that", "whether", "if", "because", "which", "who", "whom", "when", "while",
	"after", "before", "although", "though", "since", "unless", "until", "say", "says", "said", "think",
	"thinks", "claim", "claims", "believe", "believes")

var negators = words.Negators()

// wrappers open a question that negates the rest of it ("Is it not the
// case that …", "Is it false that …", "Is the answer to the following
// question no: …"), read word by word in any case, each word after one
// space, by their first words (open) and the rest; inner may follow each
// and is dropped too ("… that the answer to this question is yes: Q"
// negates Q).
var (
	wrappers = []struct{ open, rest string }{
		{"is it", "not the case that"}, {"is it", "not true that"}, {"is it", "false that"}, {"is it", "untrue that"},
		{"it is", "not the case that"}, {"it is", "not true that"}, {"it is", "false that"}, {"it is", "untrue that"},
		{"is the answer", "to this question no:"}, {"is the answer", "to the following question no:"},
		{"would the answer", "to this question be no:"}, {"would the answer", "to the following question be no:"},
	}
	inner = []string{"the answer to this question is yes:", "the answer to the following question is yes:"}
)

var (
	// neitherNor is "neither X nor Y", the negation of "X or Y".
	neitherNor = regexp.MustCompile(`(?i)\bneither\s+(.+?)\s+nor\b`)
	// noneOf is "none of …", the negation of "one of …".
	noneOf = regexp.MustCompile(`(?i)\bnone of\b`)
	// otherThan is "Is it (anything) other than X", of a question with one
	// answer: the negation of "Is it X". ("Does the writer want anything
	// other than a refund?" is not read: they may want both.)
	otherThan = regexp.MustCompile(`(?i)^((?:is|was) (?:it|the answer)) (?:(?:anything|something) )?other than\s+`)
)

// Negated reports whether the yes/no question text negates another, and
// returns that other question: the complement of text's answer is its
// answer. Text may open with sentences that set the question up ("Which
// team should handle this? Is it not billing?"): they are kept as they
// are, and only its last sentence, the question asked, is read. The forms:
//
//   - a wrapper ("Is it not the case that X", "Is it false that X", "Is
//     the answer to the following question no: X"; "the answer to this
//     question is yes: X" inside one is X): X;
//   - "… neither A nor B …": "… A or B …";
//   - "… none of …": "… one of …";
//   - "Is it (anything) other than X" (or "the answer"): "Is it X";
//   - a question opened by an auxiliary whose main clause holds exactly
//     one negation and the question no other negator: "not" ("Is the
//     writer not asking for a refund?"; "not both" loses "both" too), a
//     negated auxiliary ("Doesn't it work?"), "never", "no longer" (for
//     "still"), "fail to", or a listed contradictory ("Is the issue still unresolved?" for "Is the issue
//     resolved?", words.Contradictory): the question without it.
//
// A question whose sentence before the last introduces a list ("Is the
// answer yes to both of these questions: A? B?") asks about the questions
// listed, and is read as none of these.
func Negated(text string) (string, bool) {
	if rest, ok := cutWrapper(text); ok {
		if rest == "" {
			return "", false
		}
		return upperFirst(rest), true
	}
	at, ok := claimStart(text)
	if !ok {
		return "", false
	}
	claim, ok := negatedClaim(text[at:])
	if !ok {
		return "", false
	}
	return text[:at] + claim, true
}

// negatedClaim is Negated of one sentence, the question asked.
func negatedClaim(claim string) (string, bool) {
	if hasNo(claim) {
		// Each pattern holds "nor" or "none": most questions are spared
		// two regular expressions.
		if loc := neitherNor.FindStringSubmatchIndex(claim); loc != nil && unquoted(claim, loc[0], loc[1]) {
			return claim[:loc[0]] + claim[loc[2]:loc[3]] + " or" + claim[loc[1]:], true
		}
		if loc := noneOf.FindStringIndex(claim); loc != nil && unquoted(claim, loc[0], loc[1]) {
			return claim[:loc[0]] + matchCase(claim[loc[0]:loc[1]], "one of") + claim[loc[1]:], true
		}
	}
	if hasThan(claim) {
		if loc := otherThan.FindStringSubmatchIndex(claim); loc != nil {
			return claim[:loc[3]] + " " + claim[loc[1]:], true
		}
	}
	return mainClauseNot(claim)
}

// cutWrapper returns what follows a wrapper that opens text (and the
// inner phrase after it, if any).
func cutWrapper(text string) (string, bool) {
	t := strings.TrimLeftFunc(text, unicode.IsSpace)
	if t == "" || t[0]|0x20 != 'i' && t[0]|0x20 != 'w' {
		return "", false // every wrapper opens with "is", "it" or "would"
	}
	// Wrappers with the same opening are listed together: each opening
	// is read once.
	open, opened, fits := "", "", false
	for _, w := range wrappers {
		if w.open != open {
			open = w.open
			opened, fits = cutWords(t, open)
		}
		if !fits {
			continue
		}
		if rest, ok := cutWords(opened, w.rest); ok {
			for _, in := range inner {
				if r, ok := cutWords(rest, in); ok {
					return r, true
				}
			}
			return rest, true
		}
	}
	return "", false
}

// cutWords returns what follows prefix at the start of text, compared
// word by word in any case, with any white space between words, and
// trimmed of the white space after it.
func cutWords(text, prefix string) (string, bool) {
	rest := strings.TrimLeftFunc(text, unicode.IsSpace)
	for prefix != "" {
		p := prefix
		if i := strings.IndexByte(prefix, ' '); i >= 0 {
			p, prefix = prefix[:i], prefix[i+1:]
		} else {
			prefix = ""
		}
		if len(rest) < len(p) || !strings.EqualFold(rest[:len(p)], p) {
			return "", false
		}
		rest = rest[len(p):]
		if trimmed := strings.TrimLeftFunc(rest, unicode.IsSpace); len(trimmed) < len(rest) || rest == "" {
			rest = trimmed
		} else {
			return "", false // the word goes on: "isn't" is not "is"
		}
	}
	return rest, true
}

// claimStart is where text's last sentence begins: after the last ".",
// "?" or "!" outside quotes that white space follows. It is false when
// the sentence before introduces a list (holds a colon outside quotes):
// the last sentence is then one of the questions listed.
func claimStart(text string) (int, bool) {
	start, prev := 0, 0
	inQuote := false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"':
			inQuote = !inQuote
		case inQuote:
		case (c == '.' || c == '?' || c == '!') && i+1 < len(text) && isSpace(text[i+1]):
			prev, start = start, i+1
		}
	}
	if start == 0 {
		return 0, true
	}
	inQuote = false
	for i := prev; i < start; i++ {
		switch text[i] {
		case '"':
			inQuote = !inQuote
		case ':':
			if !inQuote {
				return 0, false
			}
		}
	}
	for start < len(text) && isSpace(text[start]) {
		start++
	}
	return start, true
}

func isSpace(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }

// unquoted reports whether text[from:to] lies outside any quotes.
func unquoted(text string, from, to int) bool {
	return strings.Count(text[:from], `"`)%2 == 0 && !strings.Contains(text[from:to], `"`)
}

// site is a negation mainClauseNot can remove, by kind.
type site uint8

const (
	none         site = iota
	notSite           // "not" after the auxiliary
	auxSite           // a negated auxiliary opening the question
	neverSite         // "never"
	noLongerSite      // "no longer", for "still"
	failSite          // "fail to"
	otherSite         // "(anything|something) other than"
	contraSite        // a contradictory ("unresolved")
)

// mainClauseNot removes the one negation of a yes/no question's main
// clause (see Negated for the kinds). Any second negation, a negator it
// cannot remove ("no", "none", "without") or a negation inside a
// subordinate clause leaves the question as it is: double negation is for
// a reader that understands it. Quoted words are never read.
func mainClauseNot(text string) (string, bool) {
	// Most questions have no negation: they are read without splitting
	// the text or copying a word (fold into a buffer on the stack), and
	// only the question rewritten is split.
	var b [32]byte
	n, at, count := 0, -1, 0
	kind := none
	clause, inQuote := true, false
	prev := ""
	for f := range strings.FieldsSeq(text) {
		w := appendFold(b[:0], f)
		if n == 0 && !auxiliaries[string(w)] && contracted[string(w)] == "" {
			return "", false // not a yes/no question
		}
		quoted := inQuote
		if q := strings.Count(f, `"`); q > 0 {
			quoted = true
			inQuote = inQuote != (q%2 == 1)
		}
		if !quoted {
			if subordinators[string(w)] {
				clause = false
			}
			// Each negation counts once: a negator ("no longer" is
			// counted at "no"), or a site made of other words.
			k, pos := siteOf(prev, string(w), n)
			if negators[string(w)] || k == failSite || k == contraSite {
				count++
			}
			if k != none && clause {
				at, kind = pos, k
			}
		}
		// Only "no" and "fail" open a site the next word closes.
		switch prev = ""; string(w) {
		case "no":
			prev = "no"
		case "fail":
			prev = "fail"
		}
		n++
	}
	if n < 2 || count != 1 || at < 0 {
		return "", false
	}
	return removeSite(strings.Fields(text), at, kind), true
}

// siteOf is the kind of negation the word w makes at field n after the
// word prev, and the field it starts at; none for any other word. "no"
// alone is not one: "Is there no refund?" has no positive form by
// removal.
func siteOf(prev, w string, n int) (site, int) {
	switch {
	case n == 0:
		if contracted[w] != "" {
			return auxSite, 0
		}
	case w == "not":
		return notSite, n
	case w == "never":
		return neverSite, n
	case w == "longer" && prev == "no":
		return noLongerSite, n - 1
	case w == "to" && prev == "fail":
		return failSite, n - 1
	default:
		if _, ok := words.Contradictory(w); ok {
			return contraSite, n
		}
	}
	return none, 0
}

// removeSite is fields without the negation of the given kind at field
// at, joined by spaces.
func removeSite(fields []string, at int, kind site) string {
	cut := func(i, k int) { fields = append(fields[:i], fields[i+k:]...) }
	switch kind {
	case auxSite:
		fields[0] = matchCase(fields[0], contracted[fold(fields[0])]) + trailingPunct(fields[0])
	case notSite:
		if at+1 < len(fields) && fold(fields[at+1]) == "both" {
			cut(at, 2) // "not both A and B" negates "A and B"
		} else {
			cut(at, 1)
		}
	case neverSite:
		cut(at, 1)
	case noLongerSite:
		fields[at] = matchCase(fields[at], "still") + trailingPunct(fields[at+1])
		cut(at+1, 1)
	case failSite:
		cut(at, 2)
	case contraSite:
		base, _ := words.Contradictory(fold(fields[at]))
		fields[at] = leadingPunct(fields[at]) + matchCase(strings.TrimLeft(fields[at], `"'(`), base) + trailingPunct(fields[at])
		if at > 1 && fold(fields[at-1]) == "still" {
			cut(at-1, 1) // "still unresolved" is "not resolved"
		}
	}
	return strings.Join(fields, " ")
}

// hasNo reports whether text holds "no" in any case. No rune outside
// ASCII folds to "n" or "o", so this is what the patterns' (?i) reads too.
func hasNo(text string) bool {
	for i := 0; i+1 < len(text); i++ {
		if text[i]|0x20 == 'n' && text[i+1]|0x20 == 'o' {
			return true
		}
	}
	return false
}

// hasThan reports whether text holds "than" in any case: the pattern
// otherThan is spared most questions.
func hasThan(text string) bool {
	for i := 0; i+3 < len(text); i++ {
		if text[i]|0x20 == 't' && text[i+1]|0x20 == 'h' && text[i+2]|0x20 == 'a' && text[i+3]|0x20 == 'n' {
			return true
		}
	}
	return false
}

// fold is a field as shared/words reads a word: lower case, letters only,
// the apostrophe of a contraction dropped.
func fold(f string) string {
	var b [32]byte
	return string(appendFold(b[:0], f))
}

// appendFold appends fold(f) to b.
func appendFold(b []byte, f string) []byte {
	for i := 0; i < len(f); i++ {
		if c := f[i]; c < 'a' || c > 'z' {
			for _, r := range f {
				if r = unicode.ToLower(r); r >= 'a' && r <= 'z' {
					b = append(b, byte(r))
				}
			}
			return b
		}
	}
	return append(b, f...)
}

func trailingPunct(f string) string {
	i := len(f)
	for i > 0 && strings.ContainsRune(",.;:?!", rune(f[i-1])) {
		i--
	}
	return f[i:]
}

func leadingPunct(f string) string {
	i := 0
	for i < len(f) && strings.ContainsRune(`"'(`, rune(f[i])) {
		i++
	}
	return f[:i]
}

// matchCase writes w capitalised when like is.
func matchCase(like, w string) string {
	if like != "" && like[0] >= 'A' && like[0] <= 'Z' {
		return upperFirst(w)
	}
	return w
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// Cumulative is a yes/no question about a range of a scale: whether the
// answer to Question on the scale Levels (lowest first) is Levels[Level]
// or higher (Higher), or at most Levels[Level].
type Cumulative struct {
	Question string
	Levels   []string
	Level    int
	Higher   bool
}

var (
	quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	// scaleIntro is how a question introduces the scale it lists.
	scaleIntro = regexp.MustCompile(`(?i)\s*(?:on|using) (?:the|a|this) scale(?: of)?\s*:?\s*$`)
)

// ReadCumulative reads "… "a", "b", "c" … is it "b" or higher?" (also "or
// above", "or more", "at least", "no less than", and "or lower", "or
// below", "or less", "at most", "no more than"): a scale of two to ten
// quoted levels, then one of them quoted once more with a phrase that
// makes it the bound of a range.
func ReadCumulative(text string) (Cumulative, bool) {
	if strings.Count(text, `"`) < 6 {
		// Three quoted strings take six quotes: most questions are spared
		// the pattern.
		return Cumulative{}, false
	}
	locs := quoted.FindAllStringIndex(text, -1)
	if len(locs) < 3 || len(locs) > 11 {
		return Cumulative{}, false
	}
	var levels []string
	for _, l := range locs[:len(locs)-1] {
		s, err := strconv.Unquote(text[l[0]:l[1]])
		if err != nil {
			return Cumulative{}, false
		}
		levels = append(levels, s)
	}
	last := locs[len(locs)-1]
	target, err := strconv.Unquote(text[last[0]:last[1]])
	if err != nil {
		return Cumulative{}, false
	}
	k := -1
	for i, l := range levels {
		if l == target {
			if k >= 0 {
				return Cumulative{}, false // a level listed twice: no order to read
			}
			k = i
		}
	}
	if k < 0 {
		return Cumulative{}, false
	}
	before := strings.ToLower(strings.TrimSpace(text[locs[len(locs)-2][1]:last[0]]))
	after := strings.ToLower(strings.TrimSpace(text[last[1]:]))
	var higher bool
	switch {
	case hasAny(after, "or higher", "or above", "or more", "or greater") || hasSuffixAny(before, "at least", "no less than"):
		higher = true
	case hasAny(after, "or lower", "or below", "or less", "or fewer") || hasSuffixAny(before, "at most", "no more than"):
		higher = false
	default:
		return Cumulative{}, false
	}
	question := strings.TrimSpace(scaleIntro.ReplaceAllString(text[:locs[0][0]], ""))
	return Cumulative{Question: question, Levels: levels, Level: k, Higher: higher}, true
}

func hasAny(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func hasSuffixAny(s string, suffixes ...string) bool {
	for _, p := range suffixes {
		if strings.HasSuffix(s, p) {
			return true
		}
	}
	return false
}
