package words

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/judgeworks/shared/jsonscan"
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
	if s, ok := jsonscan.StringValue(raw); ok {
		// Most texts are one string: no decoder, no tree.
		return s + ".\n"
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
