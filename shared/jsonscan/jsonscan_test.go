package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// A walk over every kind of value: members in order, raw values as
// written, strings and numbers decoded, null as absent.
func TestWalk(t *testing.T) {
	text := ` {"s": "a\"b\u00e9", "n": -1.5e2, "i": 7, "z": null, "o": {"x": [1, "]", {"y": "}"}]}, "a": [true, false], "k\u00e9y": 1} `
	var keys []string
	got := map[string]any{}
	err := Scan([]byte(text), func(s *Scanner) {
		s.Object("top", func(key []byte) {
			k := Unquote(key)
			keys = append(keys, k)
			switch k {
			case "s":
				got[k] = s.String("s")
			case "n":
				got[k] = s.Float("n")
			case "i":
				got[k] = s.Int("i")
			case "z":
				got[k] = s.String("z")
			default:
				got[k] = string(s.Raw())
			}
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "s n i z o a kéy"; strings.Join(keys, " ") != want {
		t.Fatalf("keys %q, want %q", keys, want)
	}
	want := map[string]any{"s": "a\"bé", "n": -150.0, "i": int64(7), "z": "",
		"o": `{"x": [1, "]", {"y": "}"}]}`, "a": "[true, false]", "kéy": "1"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
}

// A value of the wrong type is skipped and named in the error; the first
// mismatch is the one kept.
func TestMismatch(t *testing.T) {
	tests := []struct {
		text, want string
		read       func(s *Scanner)
	}{
		{`{"a": 5}`, "a is not a string", func(s *Scanner) { s.String("a") }},
		{`{"a": "5"}`, "a is not a number", func(s *Scanner) { s.Float("a") }},
		{`{"a": 1.5}`, "a is not an integer", func(s *Scanner) { s.Int("a") }},
		{`{"a": [1]}`, "a is not an object", func(s *Scanner) { s.Object("a", func([]byte) { s.Skip() }) }},
		{`{"a": {}}`, "a is not an array", func(s *Scanner) { s.Array("a", s.Skip) }},
	}
	for _, tt := range tests {
		var after bool
		err := Scan([]byte(tt.text), func(s *Scanner) { s.Object("top", func(key []byte) { tt.read(s); after = true }) })
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: err %v, want %q", tt.text, err, tt.want)
		}
		if !after {
			t.Errorf("%s: the reader did not return", tt.text)
		}
	}
}

// Strings decode exactly as encoding/json decodes them, invalid UTF-8
// included, with or without escapes.
func TestStringsAgreeWithEncodingJSON(t *testing.T) {
	for _, lit := range []string{`"plain"`, `"\u00e9\n\t\\"`, "\"\xff\xfe bad\"", `"\ud83d\ude00"`, `""`} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := Scan([]byte(lit), func(s *Scanner) { got = s.String("v") }); got != want || err != nil {
			t.Errorf("%q: got %q (%v), want %q", lit, got, err, want)
		}
		if got := Unquote([]byte(lit[1 : len(lit)-1])); got != want {
			t.Errorf("Unquote(%q) = %q, want %q", lit, got, want)
		}
	}
}

// Strings end where encoding/json says, whether the closing quote comes
// within the first bytes or far after them, after escaped quotes and
// backslashes on either side of that boundary.
func TestStringEnds(t *testing.T) {
	for n := range 40 {
		for _, esc := range []string{``, `\"`, `\\`, `\\\"`, `\u0022`} {
			for m := range 3 {
				lit := `"` + strings.Repeat("a", n) + esc + strings.Repeat("b", m) + `"`
				text := `[` + lit + `, "next"]`
				var want []string
				if err := json.Unmarshal([]byte(text), &want); err != nil {
					t.Fatal(err)
				}
				var got []string
				err := Scan([]byte(text), func(s *Scanner) { s.Array("a", func() { got = append(got, s.String("e")) }) })
				if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != "next" {
					t.Fatalf("%s: got %q (%v), want %q", text, got, err, want)
				}
				_ = Scan([]byte(text), func(s *Scanner) {
					s.Array("a", func() {
						if raw := s.Raw(); string(raw) != lit && string(raw) != `"next"` {
							t.Fatalf("%s: Raw %s", text, raw)
						}
					})
				})
				if e := stringEnd([]byte(lit), 0); e != len(lit) {
					t.Fatalf("%s: stringEnd %d, want %d", lit, e, len(lit))
				}
			}
		}
	}
}
