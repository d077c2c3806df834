package tokens

import (
	"unicode"
	"unicode/utf8"
)

// The o200k_base pre-tokenizer cuts text into pieces with this pattern,
// before byte-pair encoding each piece:
//
//	1 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	2 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	3 \p{N}{1,3}
//	4  ?[^\s\p{L}\p{N}]+[\r\n/]*
//	5 \s*[\r\n]+
//	6 \s+(?!\S)
//	7 \s+
//
// The lookahead needs a backtracking regexp engine, which spent most of the
// time of a count. pieceEnd matches the same alternatives by hand, with the
// backtracking each one needs written out; a differential test and a fuzz
// test hold it to the regexp.

// pieceEnd returns where the piece that starts at i ends (always > i).
// Every rune matches some alternative, so pieces tile the text.
func pieceEnd(s string, i int) int {
	if e := asciiPieceEnd(s, i); e > 0 {
		return e
	}
	return unicodePieceEnd(s, i)
}

// unicodePieceEnd is pieceEnd for any text.
func unicodePieceEnd(s string, i int) int {
	r, size := utf8.DecodeRuneInString(s[i:])
	if e := wordEnd(s, i, r, size, true); e > 0 {
		return e
	}
	if e := wordEnd(s, i, r, size, false); e > 0 {
		return e
	}
	if unicode.IsNumber(r) {
		e := i + size
		for k := 1; k < 3 && e < len(s); k++ {
			r2, n := utf8.DecodeRuneInString(s[e:])
			if !unicode.IsNumber(r2) {
				break
			}
			e += n
		}
		return e
	}
	// 4: an optional space, then symbols, then newlines and slashes.
	j := i
	if r == ' ' && i+1 < len(s) {
		if r2, _ := utf8.DecodeRuneInString(s[i+1:]); isSymbol(r2) {
			j = i + 1
		}
	}
	if r2, _ := utf8.DecodeRuneInString(s[j:]); isSymbol(r2) {
		e := runWhile(s, j, isSymbol)
		return runWhile(s, e, func(r rune) bool { return r == '\r' || r == '\n' || r == '/' })
	}
	// r is white space: alternatives 5 to 7.
	w := runWhile(s, i, unicode.IsSpace)
	// 5: up to the last line break of the run.
	for k := w; k > i; {
		r2, n := utf8.DecodeLastRuneInString(s[:k])
		if r2 == '\r' || r2 == '\n' {
			return k
		}
		k -= n
	}
	// 6: the run, less its last rune when something follows, so that the
	// last space joins the next word.
	if w == len(s) {
		return w
	}
	if _, n := utf8.DecodeLastRuneInString(s[i:w]); w-n > i {
		return w - n
	}
	// 7
	return w
}

// asciiPieceEnd is pieceEnd for the pieces most of a text is made of,
// when they are ASCII: a word with an optional leading space or symbol
// (alternatives 1 and 2), up to three digits (3), and symbols (4). It
// classifies bytes by comparison instead of decoding runes and looking up
// Unicode tables, and returns 0 whenever the piece may reach a rune that
// is not ASCII (a word may go on with "é" or a combining mark), or starts
// with white space not followed by a letter; pieceEnd then matches it in
// full.
func asciiPieceEnd(s string, i int) int {
	c := s[i]
	j := i // where the letters of a word start
	switch {
	case c >= utf8.RuneSelf:
		return 0
	case isASCIILetter(c):
	case isASCIIDigit(c):
		e := i + 1
		for e < len(s) && e < i+3 && isASCIIDigit(s[e]) {
			e++
		}
		if e < i+3 && e < len(s) && s[e] >= utf8.RuneSelf {
			return 0 // another number may follow
		}
		return e
	case c != '\r' && c != '\n' && i+1 < len(s) && isASCIILetter(s[i+1]):
		j = i + 1 // the leading rune of alternatives 1 and 2
	case isASCIISymbol(c) || c == ' ' && i+1 < len(s) && isASCIISymbol(s[i+1]):
		e := i + 1
		for e < len(s) && isASCIISymbol(s[e]) {
			e++
		}
		if e < len(s) && s[e] >= utf8.RuneSelf {
			return 0 // another symbol may follow
		}
		for e < len(s) && (s[e] == '\r' || s[e] == '\n' || s[e] == '/') {
			e++
		}
		return e
	default:
		return 0
	}
	// Upper-case letters, then lower-case ones: alternative 1 when there
	// are lower-case ones, else alternative 2 (upper-case ones alone).
	e := j
	for e < len(s) && 'A' <= s[e] && s[e] <= 'Z' {
		e++
	}
	for e < len(s) && 'a' <= s[e] && s[e] <= 'z' {
		e++
	}
	if e < len(s) && s[e] >= utf8.RuneSelf {
		return 0 // a letter or a mark may go on the word
	}
	return e + contraction(s, e)
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }

// isASCIISymbol is isSymbol of an ASCII byte: not white space (as
// unicode.IsSpace has it), a letter or a digit.
func isASCIISymbol(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return false
	}
	return c < utf8.RuneSelf && !isASCIILetter(c) && !isASCIIDigit(c)
}

// wordEnd matches alternative 1 (lower true) or 2, returning 0 when it
// does not match at i.
func wordEnd(s string, i int, r rune, size int, lower bool) int {
	// The optional leading rune: tried first, then without it.
	if r != '\r' && r != '\n' && !unicode.IsLetter(r) && !unicode.IsNumber(r) {
		if e := wordRest(s, i+size, lower); e > 0 {
			return e
		}
	}
	return wordRest(s, i, lower)
}

func wordRest(s string, j int, lower bool) int {
	a := runWhile(s, j, isUpperish)
	var e int
	if lower {
		// U*L+ : give back upper-ish runes until a lower-ish run starts.
		k := a
		for {
			if k < len(s) {
				if r, _ := utf8.DecodeRuneInString(s[k:]); isLowerish(r) {
					e = runWhile(s, k, isLowerish)
					break
				}
			}
			if k == j {
				return 0
			}
			_, n := utf8.DecodeLastRuneInString(s[:k])
			k -= n
		}
	} else {
		// U+L*
		if a == j {
			return 0
		}
		e = runWhile(s, a, isLowerish)
	}
	return e + contraction(s, e)
}

// contraction is the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or 0.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	switch lowerASCII(s[i+1]) {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if i+2 < len(s) && lowerASCII(s[i+2]) == 'e' {
			return 3
		}
	case 'l':
		if i+2 < len(s) && lowerASCII(s[i+2]) == 'l' {
			return 3
		}
	}
	return 0
}

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

func runWhile(s string, i int, in func(rune) bool) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !in(r) {
			break
		}
		i += n
	}
	return i
}

// isUpperish is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
func isUpperish(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

// isLowerish is [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isLowerish(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// isSymbol is [^\s\p{L}\p{N}].
func isSymbol(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r)
}
