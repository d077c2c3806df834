package words

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"
)

// FromJSON renders a JSON string, object or array as plain text for
// reading: each string and scalar as written, followed by ".\n" so that no
// negation spills from one into the next; array items in order; object
// values by sorted key, each after its key and ":\n" when keys is set
// (keys that name fields, "complaint" or "priority", then count as text).
// Invalid JSON is read as text, null as nothing.
func FromJSON(raw json.RawMessage, keys bool) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	if inner, ok := plainString(raw); ok {
		// Most texts are one string without escapes: its bytes are the
		// text, written out with their full stop in one allocation.
		var sb strings.Builder
		sb.Grow(len(inner) + 2)
		sb.Write(inner)
		sb.WriteString(".\n")
		return sb.String()
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s + ".\n"
		}
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	var sb strings.Builder
	walk(&sb, v, keys)
	return sb.String()
}

// String decodes raw as encoding/json decodes a JSON string (or null, as
// ""), and reports whether it could; a plain string is decoded without a
// decoder.
func String(raw json.RawMessage) (string, bool) {
	if inner, ok := plainString(raw); ok {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// plainString returns what JSON string raw holds when decoding it is
// copying its bytes: no escape, no control character, valid UTF-8 (which
// encoding/json would replace). Anything else is left to encoding/json.
func plainString(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	inner := raw[1 : len(raw)-1]
	for _, c := range inner {
		if c < 0x20 || c == '"' || c == '\\' {
			return nil, false
		}
	}
	return inner, utf8.Valid(inner)
}

func walk(sb *strings.Builder, v any, keys bool) {
	switch x := v.(type) {
	case string:
		sb.WriteString(x)
		sb.WriteString(".\n")
	case json.Number:
		sb.WriteString(x.String())
		sb.WriteString(".\n")
	case bool:
		if x {
			sb.WriteString("true.\n")
		} else {
			sb.WriteString("false.\n")
		}
	case []any:
		for _, item := range x {
			walk(sb, item, keys)
		}
	case map[string]any:
		ks := make([]string, 0, len(x))
		for k := range x {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if keys {
				sb.WriteString(k)
				sb.WriteString(":\n")
			}
			walk(sb, x[k], keys)
		}
	}
}
