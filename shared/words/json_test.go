package words

import (
	"encoding/json"
	"testing"
)

func TestFromJSON(t *testing.T) {
	tests := []struct{ raw, keys, values string }{
		{`"plain text"`, "plain text.\n", "plain text.\n"},
		{` "esc\"aped\u00e9" `, "esc\"apedé.\n", "esc\"apedé.\n"},
		{`"first" "second"`, "first.\n", "first.\n"},
		{`null`, "", ""},
		{``, "", ""},
		{`["a", 2, true, false, null]`, "a.\n2.\ntrue.\nfalse.\n", "a.\n2.\ntrue.\nfalse.\n"},
		{`{"b": "x", "a": {"c": "y"}}`, "a:\nc:\ny.\nb:\nx.\n", "y.\nx.\n"},
		{`not json`, "not json", "not json"},
		{`"unterminated`, `"unterminated`, `"unterminated`},
	}
	for _, tt := range tests {
		if got := FromJSON(json.RawMessage(tt.raw), true); got != tt.keys {
			t.Errorf("FromJSON(%s, true) = %q, want %q", tt.raw, got, tt.keys)
		}
		if got := FromJSON(json.RawMessage(tt.raw), false); got != tt.values {
			t.Errorf("FromJSON(%s, false) = %q, want %q", tt.raw, got, tt.values)
		}
	}
}
