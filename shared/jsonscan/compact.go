package jsonscan

import (
	"bytes"
	"encoding/json"
)

// Compact returns raw without insignificant white space, in a new slice.
// Text that is not valid JSON is returned as it is (copied): callers
// compact values that passed a syntax check.
func Compact(raw []byte) json.RawMessage {
	if !Valid(raw) {
		return append(json.RawMessage(nil), raw...)
	}
	return CompactValid(raw)
}

// CompactValid is Compact of text already known to be valid JSON (it
// passed Valid, or it is a value a Scanner returned): the value without
// insignificant white space, in a new slice, with no second check.
func CompactValid(raw []byte) json.RawMessage {
	out, _ := appendCompact(make(json.RawMessage, 0, len(raw)), raw, len(raw))
	return out
}

// CompactStart is the start of CompactValid(raw): its first n bytes or a
// few more, in a new slice, and whether that is all of it. It reads raw
// only as far as it needs, and its memory is bounded by n, so that a long
// value can be quoted at a cost that does not depend on its length.
func CompactStart(raw []byte, n int) (json.RawMessage, bool) {
	return appendCompact(make(json.RawMessage, 0, min(len(raw), n)), raw, n)
}

// appendCompact appends raw without its white space to out until out has
// at least n bytes (a string is copied whole, up to n bytes), and reports
// whether all of raw was copied.
func appendCompact(out, raw []byte, n int) (json.RawMessage, bool) {
	i := 0
	for i < len(raw) && len(out) < n {
		switch c := raw[i]; {
		case c == '"':
			e := min(stringEnd(raw, i), i+n-len(out))
			out = append(out, raw[i:e]...)
			i = e
		case isSpace(c):
			i++
		default:
			// Up to the next string or space, copied at once.
			j, end := i+1, min(len(raw), i+n-len(out))
			for j < end && raw[j] != '"' && !isSpace(raw[j]) {
				j++
			}
			out = append(out, raw[i:j]...)
			i = j
		}
	}
	for i < len(raw) && isSpace(raw[i]) {
		i++
	}
	return out, i == len(raw)
}

// stringEnd returns the end of the valid string whose opening quote is
// d[i]. It looks for the closing quote and for backslashes with
// bytes.IndexByte, many bytes a step; a quote found is kept until the
// search for backslashes passes it, so every byte is searched at most
// once for each, however many escapes the string holds. Escapes that
// follow each other are stepped over without a search.
func stringEnd(d []byte, i int) int {
	i++
	quote := -1 // the first quote at or after i, escaped or not
	for i < len(d) {
		if d[i] == '\\' {
			i += 2 // past the escaped character, which may be a quote
			continue
		}
		if quote < i {
			q := bytes.IndexByte(d[i:], '"')
			if q < 0 {
				break
			}
			quote = i + q
		}
		b := bytes.IndexByte(d[i:quote], '\\')
		if b < 0 {
			return quote + 1
		}
		i += b
	}
	return len(d)
}
