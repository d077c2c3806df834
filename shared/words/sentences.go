package words

import (
	"unicode"
	"unicode/utf8"
)

// Span is a byte range of a text.
type Span struct{ Start, End int }

// Sentences splits text into sentences, each trimmed of white space: a
// sentence ends at '!', '?', ';', a new line, or a full stop that is not
// between two letters or digits ("node.js" and "3.5" go on). Empty ones
// are left out.
func Sentences(text string) []Span {
	var out []Span
	start := 0
	add := func(end int) {
		a, b := start, end
		for a < b {
			r, n := utf8.DecodeRuneInString(text[a:])
			if !unicode.IsSpace(r) {
				break
			}
			a += n
		}
		for b > a {
			r, n := utf8.DecodeLastRuneInString(text[:b])
			if !unicode.IsSpace(r) {
				break
			}
			b -= n
		}
		if b > a {
			out = append(out, Span{a, b})
		}
	}
	for i, r := range text {
		end := false
		switch r {
		case '!', '?', ';', '\n':
			end = true
		case '.':
			next, _ := utf8.DecodeRuneInString(text[i+1:])
			end = !(unicode.IsLetter(next) || unicode.IsDigit(next))
		}
		if end {
			add(i + utf8.RuneLen(r))
			start = i + utf8.RuneLen(r)
		}
	}
	add(len(text))
	return out
}
