package jsonscan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// validCorpus is JSON and near-JSON text: every rule of the grammar kept
// and broken once.
var validCorpus = []string{
	``, ` `, `null`, `nul`, `nullx`, `true`, `false`, `tru`, `fals`, `True`,
	`0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-5`, `1e`, `1e+`, `-1.5e-3`, `--1`, `+1`, `0x1`, `1 2`,
	`""`, `"a"`, `"a`, `"\"`, `"\\"`, `"\/\b\f\n\r\t"`, `"\u00e9"`, `"\u00G9"`, `"\u00e"`, `"\x"`, `"\'"`,
	"\"tab\tinside\"", "\"nl\ninside\"", "\"\x7f\"", "\"\xff\xfe\"", "\"é😀\"", "\"\x00\"", "\"\x1f\"",
	`{}`, `{ }`, `{"a":1}`, `{"a" : 1 , "b" : [ ] }`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1 "b":2}`,
	`{1:2}`, `{"a":1}}`, `{"a":{"b":{}}}`, `{"a":[{"b":null}]}`, `{"a":1`,
	`[]`, `[ ]`, `[1]`, `[1,]`, `[,1]`, `[1 2]`, `[[[]]]`, `[[[]]`, `[]]`, `[1,[2,[3,{"x":"]"}]]]`, `["}"]`,
	" \t\r\n{\"a\" :\t[1 , 2 ] }\n ", "\v1", "\f1", "1\u00a0",
	`{"s": "a\"b\u00e9", "n": -1.5e2, "z": null, "o": {"x": [1, "]", {"y": "}"}]}, "a": [true, false]}`,
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, text := range validCorpus {
		if got, want := Valid([]byte(text)), json.Valid([]byte(text)); got != want {
			t.Errorf("Valid(%q) = %v, json.Valid %v", text, got, want)
		}
	}
	// Strings of every length around the eight-byte steps, with the
	// closing quote, an escape or a control character at each place.
	for n := range 20 {
		for _, tail := range []string{`"`, `\"`, `\u0041"`, "\x01\"", `\`, ``, `\q"`} {
			text := `"` + strings.Repeat("a", n) + tail
			if got, want := Valid([]byte(text)), json.Valid([]byte(text)); got != want {
				t.Errorf("Valid(%q) = %v, json.Valid %v", text, got, want)
			}
		}
	}
}

// Nesting is allowed to the depth json.Valid allows, and no deeper.
func TestValidDepth(t *testing.T) {
	for _, depth := range []int{9999, 10000, 10001} {
		for _, open := range []string{"[", `{"a":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			text := []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth))
			if got, want := Valid(text), json.Valid(text); got != want {
				t.Errorf("depth %d of %s: Valid %v, json.Valid %v", depth, open, got, want)
			}
		}
	}
}

// Random text from JSON's own alphabet, mostly near-valid.
func TestValidAgreesRandom(t *testing.T) {
	alphabet := []string{"{", "}", "[", "]", ",", ":", " ", "\n", `"`, `"k"`, `"v w"`, `\`, `\n`, `\u00e9`, "1", "-", ".", "e", "0",
		"true", "null", "fals", "é", "\x01", "\xff"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50_000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		text := []byte(b.String())
		if got, want := Valid(text), json.Valid(text); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", text, got, want)
		}
		checkCompact(t, text)
	}
	for _, text := range validCorpus {
		checkCompact(t, []byte(text))
	}
}

// checkCompact holds Compact (and CompactValid, for valid text) to
// json.Compact.
func checkCompact(t *testing.T, text []byte) {
	t.Helper()
	var want bytes.Buffer
	if json.Compact(&want, text) != nil {
		want.Reset()
		want.Write(text)
	} else if got := CompactValid(text); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("CompactValid(%q) = %q, json.Compact %q", text, got, want.Bytes())
	}
	if got := Compact(text); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("Compact(%q) = %q, want %q", text, got, want.Bytes())
	}
}

func FuzzValid(f *testing.F) {
	for _, text := range validCorpus {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if got, want := Valid(text), json.Valid(text); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", text, got, want)
		}
		checkCompact(t, text)
	})
}

var validBench = []byte(`{"model":"local/lexical-latest","questions":{"refund_0":{"instructions":"Is the customer asking for a refund?","type":"noul"}},` +
	`"state":"I was charged twice for my subscription this month and I am furious. The app also crashed twice during checkout, ` +
	`which is not acceptable. Please refund the second charge today and tell me whether the login bug from last week is fixed."}`)

func BenchmarkValid(b *testing.B) {
	b.SetBytes(int64(len(validBench)))
	for b.Loop() {
		Valid(validBench)
	}
}

func BenchmarkEncodingJSONValid(b *testing.B) {
	b.SetBytes(int64(len(validBench)))
	for b.Loop() {
		json.Valid(validBench)
	}
}

func TestStringValueAgreesWithEncodingJSON(t *testing.T) {
	for _, raw := range append(validCorpus, ` "padded" `, `"a"b"`, `"`, `"\"`, "\"\xc3\"", `"\ud83d\ude00"`, "\"tab\there\"") {
		var want string
		wantOK := Kind([]byte(raw)) == '"' && json.Unmarshal([]byte(raw), &want) == nil
		got, ok := StringValue([]byte(raw))
		if got != want || ok != wantOK {
			t.Errorf("StringValue(%q) = %q, %v; want %q, %v", raw, got, ok, want, wantOK)
		}
	}
}
