// Package jsonscan is the project's one JSON toolkit beside encoding/json.
// Its Scanner walks JSON text that has already been checked to be valid, in
// one pass, without reflection and without copying values it is not asked
// for: shared/systemone reads request bodies with it (object members in
// their order, duplicate keys seen), and shared/chatadapter reads the few
// fields it needs of a chat-completion reply. Both check the bytes first
// (encoding/json, gjson), so the scanner trusts the structure and only
// checks the type of each value it reads. Kind and Compact are the two
// questions every hand-written decoder of the judge's wire formats asks of
// a raw value (shared/systemone, judge/internal/decisions).
package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Scanner reads one valid JSON text. Every method that reads a value
// consumes exactly one value; a value of the wrong type is skipped and the
// first such mismatch is kept as Err.
type Scanner struct {
	data []byte
	pos  int
	err  error
}

// New returns a scanner positioned at the start of data.
func New(data []byte) Scanner { return Scanner{data: data} }

// Err is the first type mismatch or decoding error met, or nil.
func (s *Scanner) Err() error { return s.err }

func (s *Scanner) fail(name, want string) {
	if s.err == nil {
		s.err = fmt.Errorf("%s is not %s", name, want)
	}
	s.Skip()
}

// The loops below keep the position in a local variable: a loop that
// advanced s.pos itself would store it at every byte.

func (s *Scanner) space() {
	d, i := s.data, s.pos
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	s.pos = i
}

// Peek returns the first byte of the next value (after white space), or 0
// at the end of the text.
func (s *Scanner) Peek() byte {
	s.space()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// Null consumes a null and reports whether there was one.
func (s *Scanner) Null() bool {
	if s.Peek() == 'n' {
		s.pos += len("null")
		return true
	}
	return false
}

// Object calls field for each member, in order, with the key as written
// between its quotes (escapes not resolved; Unquote resolves them) and the
// scanner positioned at the value, which field must consume. A null is an
// absent object; name is the value's path in errors.
func (s *Scanner) Object(name string, field func(key []byte)) {
	s.container(name, '{', '}', "an object", func() {
		start := s.pos + 1
		s.skipString()
		if s.pos-1 < start {
			return // cut off inside a key: only text that was never valid
		}
		key := s.data[start : s.pos-1]
		s.space()
		s.pos++ // the colon
		field(key)
	})
}

// Array calls elem once per element, positioned at it; elem must consume
// it. A null is an absent array.
func (s *Scanner) Array(name string, elem func()) {
	s.container(name, '[', ']', "an array", elem)
}

// container walks the object or array that opens with open, calling item at
// each member, until close, the first error, or the end of the text.
func (s *Scanner) container(name string, open, close byte, want string, item func()) {
	if s.Null() {
		return
	}
	if s.Peek() != open {
		s.fail(name, want)
		return
	}
	s.pos++
	for s.err == nil {
		switch s.Peek() {
		case close:
			s.pos++
			return
		case ',':
			s.pos++
			continue
		case 0:
			return
		}
		item()
	}
}

// String reads a string; null reads as "".
func (s *Scanner) String(name string) string {
	if s.Null() {
		return ""
	}
	if s.Peek() != '"' {
		s.fail(name, "a string")
		return ""
	}
	start := s.pos
	escaped := s.skipString()
	out, err := decode(s.data[start:s.pos], escaped)
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("%s: %w", name, err)
	}
	return out
}

// Float reads a number; null reads as 0.
func (s *Scanner) Float(name string) float64 {
	if s.Null() {
		return 0
	}
	if c := s.Peek(); c != '-' && (c < '0' || c > '9') {
		s.fail(name, "a number")
		return 0
	}
	start := s.pos
	s.skipScalar()
	f, err := strconv.ParseFloat(string(s.data[start:s.pos]), 64)
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("%s: %w", name, err)
	}
	return f
}

// Int reads a number that must be whole; null reads as 0.
func (s *Scanner) Int(name string) int64 {
	f := s.Float(name)
	if f != float64(int64(f)) {
		if s.err == nil {
			s.err = fmt.Errorf("%s is not an integer", name)
		}
		return 0
	}
	return int64(f)
}

// Raw consumes one value of any type and returns its bytes, which alias
// the scanned text.
func (s *Scanner) Raw() []byte {
	s.space()
	start := s.pos
	s.Skip()
	return s.data[start:s.pos]
}

// Skip consumes one value of any type.
func (s *Scanner) Skip() {
	switch s.Peek() {
	case '"':
		s.skipString()
	case '{', '[':
		d, i, depth := s.data, s.pos, 0
		for i < len(d) {
			switch d[i] {
			case '"':
				i, _ = stringEnd(d, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.pos = i + 1
					return
				}
			}
			i++
		}
		s.pos = i
	default:
		s.skipScalar()
	}
}

// skipString consumes a string and reports whether it holds escapes.
func (s *Scanner) skipString() (escaped bool) {
	s.pos, escaped = stringEnd(s.data, s.pos)
	return escaped
}

// stringEnd returns the end of the string whose opening quote is d[i],
// and whether it holds escapes. Keys and tokens end within a few bytes,
// where a plain loop is quickest; past those, it looks for the closing
// quote with bytes.IndexByte, which takes many bytes a step (a request's
// state is usually one long string).
func stringEnd(d []byte, i int) (end int, escaped bool) {
	i++
	for n := min(len(d), i+16); i < n; {
		switch d[i] {
		case '\\':
			escaped = true
			i += 2
		case '"':
			return i + 1, escaped
		default:
			i++
		}
	}
	for i < len(d) {
		q := bytes.IndexByte(d[i:], '"')
		if q < 0 {
			break
		}
		b := bytes.IndexByte(d[i:i+q], '\\')
		if b < 0 {
			return i + q + 1, escaped
		}
		// The quote may be escaped: go on after the escaped character.
		escaped = true
		i += b + 2
	}
	return len(d), escaped
}

// skipScalar consumes a number, true, false or null.
func (s *Scanner) skipScalar() {
	d, i := s.data, s.pos
	for i < len(d) {
		switch d[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			s.pos = i
			return
		}
		i++
	}
	s.pos = i
}

// Unquote resolves the escapes of a key as Object passed it, the way
// encoding/json decodes it (invalid UTF-8 becomes U+FFFD).
func Unquote(key []byte) string {
	for _, c := range key {
		if c == '\\' || c >= utf8.RuneSelf {
			q := make([]byte, 0, len(key)+2)
			q = append(append(append(q, '"'), key...), '"')
			var out string
			_ = json.Unmarshal(q, &out) // a valid JSON string
			return out
		}
	}
	return string(key)
}

// decode turns a quoted JSON string into its value. Without escapes and
// with valid UTF-8 the bytes between the quotes are the value; otherwise
// encoding/json decodes it, so both ways agree on every input.
func decode(quoted []byte, escaped bool) (string, error) {
	if len(quoted) >= 2 && !escaped && utf8.Valid(quoted[1:len(quoted)-1]) {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var out string
	err := json.Unmarshal(quoted, &out)
	return out, err
}

// Kind is the first byte of a JSON value after white space, which names
// its type: '"', '{', '[', 'n' (null), 't' or 'f' (booleans), or a digit or
// '-' (numbers); 0 when raw holds no value (an absent member).
func Kind(raw []byte) byte {
	for _, c := range raw {
		if !isSpace(c) {
			return c
		}
	}
	return 0
}

// Compact returns raw without insignificant white space, in a new slice.
// Text that is not valid JSON is returned as it is (copied): callers
// compact values that passed a syntax check.
func Compact(raw []byte) json.RawMessage {
	if !Valid(raw) {
		return append(json.RawMessage(nil), raw...)
	}
	return CompactValid(raw)
}
