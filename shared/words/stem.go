package words

import "strings"

// suffixes are tried longest first; the first that leaves a stem of at least
// three letters is replaced. This is deliberately lighter than Porter: it
// only folds the inflections that decide whether two phrasings match.
type suffix struct{ from, to string }

var suffixes = []suffix{
	{"ational", "ate"}, {"ization", "ize"}, {"fulness", "ful"}, {"iveness", "ive"},
	{"ousness", "ous"}, {"ities", "ity"}, {"ency", "ent"}, {"ancy", "ant"},
	{"ness", ""}, {"ment", ""}, {"ings", ""}, {"ing", ""}, {"ied", "y"}, {"ies", "y"},
	{"ed", ""}, {"ly", ""}, {"es", ""}, {"s", ""},
}

// suffixesEnding lists, for each last byte, the suffixes that end in it,
// in the order of suffixes: a word is tried only against the suffixes it
// could end in, most words against none.
var suffixesEnding = func() (by [256][]suffix) {
	for _, s := range suffixes {
		last := s.from[len(s.from)-1]
		by[last] = append(by[last], s)
	}
	return by
}()

// Stem folds the inflections of a lower-case word so "charges", "charged"
// and "charging" meet at "charg", and "urgency" meets "urgent". It only
// has to make the forms of one word agree, not produce dictionary words.
// It leaves spelling alone (see Fold): the judge's lexical engine reads
// through Stem, and its answers are held to what they were.
func Stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	return stemWith(w, suffixesEnding[w[len(w)-1]])
}

// stemWith is Stem trying the suffixes of list, in order.
func stemWith(w string, list []suffix) string {
	for _, s := range list {
		if strings.HasSuffix(w, s.from) && len(w)-len(s.from)+len(s.to) >= 3 {
			if s.from == "s" && strings.HasSuffix(w, "ss") {
				break
			}
			w = w[:len(w)-len(s.from)] + s.to
			break
		}
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	if n := len(w); n > 4 && w[n-1] == w[n-2] && w[n-1] >= 'a' && w[n-1] <= 'z' && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	return w
}

// Fold is the form every spelling and inflection of a lower-case word
// shares: its American spelling (American), stemmed twice (Stem), so the
// plural of a derived word ("optimizations") meets the word
// ("optimize"). "Optimise", "optimising" and "optimizations" fold alike,
// and so do "behaviour" and "behaviors". Two words that fold alike are
// one word to every reader of the interview service.
func Fold(w string) string { return Stem(Stem(American(w))) }

// britishWords are spellings the endings below do not reach.
var britishWords = map[string]string{
	"licence": "license", "licences": "licenses", "defence": "defense", "defences": "defenses",
	"offence": "offense", "offences": "offenses", "pretence": "pretense", "programme": "program",
	"programmes": "programs", "grey": "gray", "ageing": "aging", "judgement": "judgment",
	"judgements": "judgments", "acknowledgement": "acknowledgment", "enrolment": "enrollment",
	"fulfil": "fulfill", "fulfilment": "fulfillment", "sceptical": "skeptical", "aluminium": "aluminum",
	"cheque": "check", "cheques": "checks", "tyre": "tire", "tyres": "tires", "plough": "plow",
}

// britishEndings are British endings and their American forms, tried in
// order at the end of a word whose part before the ending is at least min
// letters long ("behaviour" but not "hour", "centre" but not "tre").
var britishEndings = []struct {
	from, to string
	min      int
}{
	{"isations", "izations", 3}, {"isation", "ization", 3}, {"ising", "izing", 3}, {"ised", "ized", 3},
	{"ises", "izes", 3}, {"iser", "izer", 3}, {"isers", "izers", 3}, {"ise", "ize", 3},
	{"ysing", "yzing", 2}, {"ysed", "yzed", 2}, {"yses", "yzes", 3}, {"yse", "yze", 3},
	{"ouring", "oring", 3}, {"oured", "ored", 3}, {"ourite", "orite", 3}, {"ourites", "orites", 3},
	{"ourable", "orable", 3}, {"ourful", "orful", 3}, {"ours", "ors", 3}, {"our", "or", 3},
	{"elling", "eling", 3}, {"elled", "eled", 3}, {"eller", "eler", 3}, {"ellers", "elers", 3},
	{"tres", "ters", 2}, {"tre", "ter", 2}, {"ogues", "ogs", 2}, {"ogue", "og", 2},
}

// American returns a lower-case word in American spelling: "optimise" →
// "optimize", "behaviour" → "behavior", "modelling" → "modeling",
// "centre" → "center", "catalogue" → "catalog", "analyse" → "analyze".
// Only the spelling changes; an American word comes back as it is.
func American(w string) string {
	if a, ok := britishWords[w]; ok {
		return a
	}
	for _, e := range britishEndings {
		if stem, ok := strings.CutSuffix(w, e.from); ok && len(stem) >= e.min {
			return stem + e.to
		}
	}
	return w
}
