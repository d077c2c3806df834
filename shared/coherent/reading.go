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
// never its topic, so they hold for any question in those forms.

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

var (
	// wrapper is "Is it not the case that …" and its kin; the rest of the
	// question is what it negates, possibly itself a quoted question.
	wrapper = regexp.MustCompile(`(?i)^\s*(?:is it|it is) not (?:the case|true) that\s+(?:the answer to (?:this|the following) question is yes:\s*)?`)
	// neitherNor is "neither X nor Y", the negation of "X or Y".
	neitherNor = regexp.MustCompile(`(?i)\bneither\s+(.+?)\s+nor\b`)
	// noneOf is "none of …", the negation of "one of …".
	noneOf = regexp.MustCompile(`(?i)\bnone of\b`)
)

// Negated reports whether the yes/no question text negates another, and
// returns that other question: the complement of text's answer is its
// answer. Four forms:
//
//   - "Is it not the case that X" (or "… not true that …"; "the answer to
//     this question is yes: X" inside it is X): X;
//   - "… neither A nor B …": "… A or B …";
//   - "… none of …": "… one of …";
//   - a question opened by an auxiliary with one negation in its main
//     clause and no other negator: "Is the writer not asking for a
//     refund?", "Doesn't it work?": the question without it.
func Negated(text string) (string, bool) {
	if !hasNo(text) {
		// Each pattern below holds "not", "nor" or "none": most
		// questions are spared three regular expressions.
		return mainClauseNot(text)
	}
	if loc := wrapper.FindStringIndex(text); loc != nil {
		rest := strings.TrimSpace(text[loc[1]:])
		if rest == "" {
			return "", false
		}
		return upperFirst(rest), true
	}
	if neitherNor.MatchString(text) {
		return neitherNor.ReplaceAllString(text, "$1 or"), true
	}
	if noneOf.MatchString(text) {
		return noneOf.ReplaceAllStringFunc(text, func(m string) string { return matchCase(m, "one of") }), true
	}
	return mainClauseNot(text)
}

// mainClauseNot removes the one negation of a yes/no question's main
// clause: "not" before any subordinate clause, or the negated auxiliary
// that opens the question. Any other negator anywhere, or a second one,
// leaves the question as it is: double negation is for a reader that
// understands it.
func mainClauseNot(text string) (string, bool) {
	// Most questions have no negator: they are read without splitting
	// the text or copying a word (fold into a buffer on the stack), and
	// only the question rewritten is split.
	var b [32]byte
	n, at, found := 0, -1, 0
	clause := true
	for f := range strings.FieldsSeq(text) {
		w := appendFold(b[:0], f)
		if n == 0 && !auxiliaries[string(w)] && contracted[string(w)] == "" {
			return "", false // not a yes/no question
		}
		if subordinators[string(w)] {
			clause = false
		}
		if negators[string(w)] {
			found++
			if clause && (string(w) == "not" && n > 0 || n == 0 && contracted[string(w)] != "") {
				at = n
			}
		}
		n++
	}
	if n < 2 || found != 1 || at < 0 {
		return "", false
	}
	fields := strings.Fields(text)
	if at == 0 {
		first := fold(fields[0])
		fields[0] = matchCase(fields[0], contracted[first]) + trailingPunct(fields[0])
	} else {
		fields = append(fields[:at], fields[at+1:]...)
	}
	return strings.Join(fields, " "), true
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
