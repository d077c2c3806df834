package lexical

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/judgeworks/shared/words"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		text string
		want bag
	}{
		{"The customer is angry", bag{"customer": 1, "angry": 1}},
		{"not urgent", bag{"not_urgent": 1}},
		{"don't refund, charge twice", bag{"not_refund": 1, "charg": 1, "twic": 1}},
		{"no login or refund or invoice or charge", bag{"not_login": 1, "not_refund": 1, "not_invoic": 1, "charg": 1}},
		{"not great but urgent", bag{"not_great": 1, "urgent": 1}},
		{"Urgent URGENT urgent", bag{"urgent": 3}},
		{"log-in_problem", bag{"log": 1, "problem": 1}},
		{"", bag{}},
	}
	for _, tt := range tests {
		if got := terms(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("terms(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// FuzzTerms feeds arbitrary caller text to the tokenizer: it must not
// panic, every term must be non-empty and lower-case, and negating twice
// must give the bag back.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"not urgent", "I don't want a refund!", "ÄÖÜ ß naïve café", "n't not not not", "\xff\xfe", "a-b_c.d,e;f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := terms(s)
		for term, n := range b {
			if term == "" || term == negPrefix || n <= 0 || strings.ToLower(term) != term {
				t.Fatalf("terms(%q) has bad term %q × %v", s, term, n)
			}
		}
		if back := b.negate().negate(); !reflect.DeepEqual(back, b) {
			t.Fatalf("negating twice changed %v into %v", b, back)
		}
		_ = words.FromJSON(json.RawMessage(s), true)
	})
}
