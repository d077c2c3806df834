package jsonscan

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Valid reports whether data is one JSON text, with the same answer as
// json.Valid on every input (a differential fuzz test holds it to that),
// including json.Valid's limit of 10,000 nested objects and arrays.
//
// encoding/json checks text with a state machine that makes an indirect
// call per byte; this checks the same grammar with plain loops, and skips
// the inside of a string a word at a time, which is where a request body
// (a long state) spends most of its bytes. It is the one check a request
// body gets: whatever reads it afterwards (Scanner, CompactValid) trusts it.
func Valid(data []byte) bool {
	// stack holds '{' or '[' per open container; the array keeps the
	// usual shallow nesting off the heap.
	var buf [64]byte
	stack := buf[:0]
	i := skipSpace(data, 0)
	for {
		// A value starts at i.
		if i >= len(data) {
			return false
		}
		switch c := data[i]; {
		case c == '{' || c == '[':
			if len(stack) == maxDepth {
				return false
			}
			stack = append(stack, c)
			i = skipSpace(data, i+1)
			if i < len(data) && data[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				if i = member(data, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			if i = validStringEnd(data, i); i < 0 {
				return false
			}
		case c == '-' || '0' <= c && c <= '9':
			if i = numberEnd(data, i); i < 0 {
				return false
			}
		case c == 't':
			if i = literalEnd(data, i, "true"); i < 0 {
				return false
			}
		case c == 'f':
			if i = literalEnd(data, i, "false"); i < 0 {
				return false
			}
		case c == 'n':
			if i = literalEnd(data, i, "null"); i < 0 {
				return false
			}
		default:
			return false
		}
		// A value ended at i: close containers until one wants another value.
		for {
			i = skipSpace(data, i)
			if len(stack) == 0 {
				return i == len(data)
			}
			if i >= len(data) {
				return false
			}
			top := stack[len(stack)-1]
			if data[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if data[i] != ',' {
				return false
			}
			i = skipSpace(data, i+1)
			if top == '{' {
				if i = member(data, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// maxDepth is json.Valid's limit on nesting.
const maxDepth = 10000

// member checks an object member's key and colon at i and returns where
// its value starts, or -1.
func member(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	if i = validStringEnd(data, i); i < 0 {
		return -1
	}
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		return -1
	}
	return skipSpace(data, i+1)
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
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

// validStringEnd checks the string whose opening quote is data[i] and returns
// the index after its closing quote, or -1 if it is not a valid string.
// (stringEnd finds the end of a string already known to be valid.)
func validStringEnd(data []byte, i int) int {
	i++
	for {
		// Eight plain bytes a step: the long run of a text.
		for i+8 <= len(data) && plainString[data[i]] && plainString[data[i+1]] && plainString[data[i+2]] &&
			plainString[data[i+3]] && plainString[data[i+4]] && plainString[data[i+5]] &&
			plainString[data[i+6]] && plainString[data[i+7]] {
			i += 8
		}
		for i < len(data) && plainString[data[i]] {
			i++
		}
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(data) {
				return -1
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) || !isHex(data[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default:
			return -1 // a control character
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// numberEnd checks the number that starts at data[i] and returns the index
// after it, or -1: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = digitsEnd(data, i)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if j := digitsEnd(data, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if j := digitsEnd(data, i); j > i {
			i = j
		} else {
			return -1
		}
	}
	return i
}

func digitsEnd(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}

func literalEnd(data []byte, i int, lit string) int {
	if !bytes.HasPrefix(data[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

// CompactValid is Compact of text already known to be valid JSON (it
// passed Valid, or it is a value a Scanner returned): the value without
// insignificant white space, in a new slice, with no second check.
func CompactValid(raw []byte) json.RawMessage {
	start, end := 0, len(raw)
	for start < end && isSpace(raw[start]) {
		start++
	}
	for end > start && isSpace(raw[end-1]) {
		end--
	}
	raw = raw[start:end]
	out := make(json.RawMessage, 0, len(raw))
	for i := 0; i < len(raw); {
		switch c := raw[i]; {
		case c == '"':
			e, _ := stringEnd(raw, i)
			out = append(out, raw[i:e]...)
			i = e
		case isSpace(c):
			i++
		default:
			// Up to the next string or space, copied at once.
			j := i + 1
			for j < len(raw) && raw[j] != '"' && !isSpace(raw[j]) {
				j++
			}
			out = append(out, raw[i:j]...)
			i = j
		}
	}
	return out
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
	// Decoded into a variable of this branch alone: a result variable
	// whose address is taken would be moved to the heap on every call.
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
