package offline

import (
	"strings"
	"unicode"
)

// tokens lowercases s, splits it into words and stems each one. '+' and '#'
// stay inside words so "c++" and "c#" survive; everything else separates, so
// "node.js" and "node js" tokenize alike.
func tokens(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+' && r != '#'
	})
	for i, w := range words {
		words[i] = stem(w)
	}
	return words
}

// phrase tokenizes a bank keyword the same way answers are tokenized.
func phrase(s string) []string { return tokens(s) }

// stem is a deliberately light suffix stripper: it only has to make
// "caching", "cached" and "cache" (or "partitions" and "partitioning") meet,
// not to produce dictionary words. Keywords and answers go through the same
// function, so its quirks cancel out.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		w = w[:len(w)-2]
	}
	switch {
	case strings.HasSuffix(w, "ation") && len(w) >= 7:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "tion") && len(w) >= 6:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ly") && len(w) >= 6:
		w = w[:len(w)-2]
	}
	if strings.HasSuffix(w, "e") && len(w) > 4 {
		w = w[:len(w)-1]
	}
	return w
}

// wordMatches reports whether an answer word matches a keyword word. A
// keyword word of five or more letters also matches as a prefix, so the bank
// can write "invalidat" or "synchroni" once for every derived form; shorter
// ones must match exactly, or "log" would match "login".
func wordMatches(answer, keyword string) bool {
	if answer == keyword {
		return true
	}
	return len(keyword) >= 5 && strings.HasPrefix(answer, keyword)
}

// containsPhrase reports whether the keyword phrase occurs as consecutive
// words in toks.
func containsPhrase(toks, kw []string) bool {
	if len(kw) == 0 || len(kw) > len(toks) {
		return false
	}
outer:
	for i := 0; i+len(kw) <= len(toks); i++ {
		for j, k := range kw {
			if !wordMatches(toks[i+j], k) {
				continue outer
			}
		}
		return true
	}
	return false
}

// sentences counts sentences of at least three words, so "Yes." or a list
// of bare keywords does not pass for structure.
func sentences(s string) int {
	n := 0
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '\n' || r == ';' }) {
		if len(strings.Fields(part)) >= 3 {
			n++
		}
	}
	return n
}
