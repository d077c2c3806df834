// Package jsonscan is the project's one JSON reader beside encoding/json.
// Its Scanner walks JSON text in one pass, without reflection and without
// copying values it is not asked for: shared/systemone reads request
// bodies and replies with it (object members in their order, duplicate
// keys seen), and shared/chatadapter reads the few fields it needs of a
// chat-completion reply. Kind and Compact are the two questions every
// hand-written decoder of the judge's wire formats asks of a raw value
// (shared/systemone, judge/internal/decisions).
//
// The tokenizer underneath is the Go team's jsontext
// (github.com/go-json-experiment/json, encoding/json v2), which checks
// the grammar as it reads and takes time linear in the bytes read
// whatever their shape: long runs of escapes, deep nesting, long numbers,
// many small values. It reads with the rules of encoding/json (Valid
// gives json.Valid's answer): invalid UTF-8 is accepted (and read as
// U+FFFD), a key given twice is accepted (the decoders above find
// repeats themselves and refuse them by name), nesting stops at 10,000.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// asEncodingJSON are the jsontext options that read what encoding/json
// reads.
var asEncodingJSON = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// Valid reports whether data is one JSON text, with json.Valid's answer on
// every input (a differential fuzz test holds it to that), including its
// limit of 10,000 nested objects and arrays.
func Valid(data []byte) bool {
	return Scan(data, func(s *Scanner) { s.Skip() }) == nil
}

// SyntaxError is text that is not JSON: what is wrong, and the byte
// offset where it was found.
type SyntaxError struct {
	Offset int64
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("malformed JSON at byte %d: %s", e.Offset, e.Msg)
}

// Scanner reads one JSON text. Every method that reads a value consumes
// exactly one value; a value of the wrong type is skipped and the first
// such mismatch, or the first syntax error, is kept as Err. After an
// error every method reads nothing.
type Scanner struct {
	dec  *jsontext.Decoder
	data []byte
	err  error
}

// reader is what Scan borrows: a decoder, the buffer it reads from,
// which jsontext reads in place (so values alias the scanned text), and
// the scanner handed to the caller.
type reader struct {
	dec jsontext.Decoder
	buf bytes.Buffer
	s   Scanner
}

var readers = sync.Pool{New: func() any { return new(reader) }}

// Scan calls read with a scanner over data, which must hold exactly one
// JSON value, and returns the first error: a *SyntaxError for text that is
// not JSON (data after the value included), or a value of the wrong type.
// The scanner and the slices it returns must not be kept past read; the
// slices alias data.
func Scan(data []byte, read func(s *Scanner)) error {
	r := readers.Get().(*reader)
	r.buf = *bytes.NewBuffer(data)
	r.dec.Reset(&r.buf, asEncodingJSON...)
	s := &r.s
	*s = Scanner{dec: &r.dec, data: data}
	read(s)
	if s.err == nil {
		if _, err := r.dec.ReadToken(); err != io.EOF {
			s.syntax(err, "data after the JSON value")
		}
	}
	err := s.err
	// Nothing in the pool keeps a hold on data or on the error.
	r.buf, r.s = bytes.Buffer{}, Scanner{}
	r.dec.Reset(&r.buf)
	readers.Put(r)
	return err
}

// Err is the first type mismatch or syntax error met, or nil.
func (s *Scanner) Err() error { return s.err }

// syntax keeps err, a read's error, as a *SyntaxError (what, when the read
// found a token where none should be).
func (s *Scanner) syntax(err error, what string) {
	if s.err != nil {
		return
	}
	var se *jsontext.SyntacticError
	switch {
	case errors.As(err, &se):
		msg := "syntax error"
		if se.Err != nil {
			msg = se.Err.Error()
		}
		s.err = &SyntaxError{Offset: se.ByteOffset, Msg: msg}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		s.err = &SyntaxError{Offset: s.dec.InputOffset(), Msg: "unexpected end of JSON input"}
	case err != nil:
		s.err = &SyntaxError{Offset: s.dec.InputOffset(), Msg: err.Error()}
	default:
		s.err = &SyntaxError{Offset: s.dec.InputOffset(), Msg: what}
	}
}

func (s *Scanner) fail(name, want string) {
	if s.err == nil {
		s.err = fmt.Errorf("%s is not %s", name, want)
	}
	s.skip()
}

// Peek returns the kind of the next value: '"', '{', '[', 'n' (null), 't'
// or 'f' (booleans), '0' (a number); 0 after an error or at the end.
func (s *Scanner) Peek() byte {
	if s.err != nil {
		return 0
	}
	k := byte(s.dec.PeekKind())
	if k == 0 {
		_, err := s.dec.ReadToken() // the error PeekKind found
		s.syntax(err, "a value is missing")
	}
	return k
}

// Null consumes a null and reports whether there was one.
func (s *Scanner) Null() bool {
	if s.Peek() != 'n' {
		return false
	}
	s.token()
	return true
}

// token consumes one token that is not a value's start of interest.
func (s *Scanner) token() {
	if _, err := s.dec.ReadToken(); err != nil {
		s.syntax(err, "")
	}
}

// value reads the next whole value; nil after an error.
func (s *Scanner) value() []byte {
	if s.err != nil {
		return nil
	}
	v, err := s.dec.ReadValue()
	if err != nil {
		s.syntax(err, "")
		return nil
	}
	return v
}

// Object calls field for each member, in order, with the key as written
// between its quotes (escapes not resolved; Unquote resolves them) and the
// scanner positioned at the value, which field must consume. A null is an
// absent object; name is the value's path in errors.
func (s *Scanner) Object(name string, field func(key []byte)) {
	s.container(name, '{', '}', "an object", func() {
		if key := s.value(); len(key) >= 2 {
			field(key[1 : len(key)-1])
		}
	})
}

// Array calls elem once per element, positioned at it; elem must consume
// it. A null is an absent array.
func (s *Scanner) Array(name string, elem func()) {
	s.container(name, '[', ']', "an array", elem)
}

// container walks the object or array that opens with open, calling item at
// each member, until close or the first error.
func (s *Scanner) container(name string, open, close byte, want string, item func()) {
	if s.Null() {
		return
	}
	if k := s.Peek(); k != open {
		if k != 0 {
			s.fail(name, want)
		}
		return
	}
	s.token()
	for s.err == nil {
		if s.Peek() == close {
			s.token()
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
	if k := s.Peek(); k != '"' {
		if k != 0 {
			s.fail(name, "a string")
		}
		return ""
	}
	out, err := decode(s.value())
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
	if k := s.Peek(); k != '0' {
		if k != 0 {
			s.fail(name, "a number")
		}
		return 0
	}
	v := s.value()
	if v == nil {
		return 0
	}
	f, err := strconv.ParseFloat(string(v), 64)
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
// the scanned text; nil after an error. The value is skipped token by
// token, which holds no stack for its depth (jsontext reads a whole value
// by recursion, a frame per level), and cut from the text.
func (s *Scanner) Raw() []byte {
	if s.err != nil {
		return nil
	}
	start := s.dec.InputOffset() // the end of the token before
	if err := s.dec.SkipValue(); err != nil {
		s.syntax(err, "")
		return nil
	}
	v := s.data[start:s.dec.InputOffset()]
	// Before the value: white space, the colon or comma, white space.
	i := 0
	for i < len(v) && (isSpace(v[i]) || v[i] == ':' || v[i] == ',') {
		i++
	}
	return v[i:]
}

// Skip consumes one value of any type.
func (s *Scanner) Skip() {
	if s.err == nil {
		s.skip()
	}
}

func (s *Scanner) skip() {
	if err := s.dec.SkipValue(); err != nil {
		s.syntax(err, "")
	}
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

// decode turns a valid quoted JSON string into its value, as
// encoding/json decodes it (invalid UTF-8 and lone surrogates become
// U+FFFD; a differential test holds it to that). Without escapes and with
// valid UTF-8 the bytes between the quotes are the value.
func decode(quoted []byte) (string, error) {
	if len(quoted) < 2 {
		return "", nil // after an error
	}
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), nil
	}
	// jsontext reports invalid UTF-8 as an error after replacing it: the
	// text is valid JSON, so the replaced value is the one.
	out, _ := jsontext.AppendUnquote(make([]byte, 0, len(inner)), quoted)
	return string(out), nil
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

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// StringValue returns the value of raw when raw is a JSON string, decoded
// as encoding/json decodes it; ok is false for anything else (raw built in
// Go may hold anything). A string without escapes and of valid UTF-8, the
// usual case, is its bytes between the quotes, read without encoding/json.
func StringValue(raw []byte) (string, bool) {
	if Kind(raw) != '"' {
		return "", false
	}
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		inner := raw[1 : n-1]
		plain := true
		for _, c := range inner {
			if !plainString[c] {
				plain = false
				break
			}
		}
		if plain && utf8.Valid(inner) {
			return string(inner), true
		}
	}
	raw = bytes.TrimSpace(raw)
	if !Valid(raw) {
		return "", false
	}
	s, _ := decode(raw)
	return s, true
}

// plainString marks the bytes that stand for themselves inside a JSON
// string: everything but the quote, the backslash and control characters.
// Bytes of invalid UTF-8 are allowed, as json.Valid allows them.
var plainString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
