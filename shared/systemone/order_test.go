package systemone

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

func names(opts []Option) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Name
	}
	return out
}

func fiveOptions() []Option {
	return []Option{
		{Name: "billing", Description: json.RawMessage(`"Payments, invoices and refunds"`)},
		{Name: "technical", Description: json.RawMessage(`"Bugs and crashes"`)},
		{Name: "sales", Description: json.RawMessage(`{"handles":["quotes","upgrades"]}`)},
		{Name: "legal", Description: nil},
		{Name: "security", Description: json.RawMessage(`null`)},
	}
}

// The same set of options in any order comes out in one order.
func TestCanonicalOptionsIgnoresTheCallersOrder(t *testing.T) {
	opts := fiveOptions()
	want := names(CanonicalOptions(opts))
	for _, perm := range [][]int{{4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}, {1, 4, 0, 3, 2}} {
		shuffled := make([]Option, len(perm))
		for i, p := range perm {
			shuffled[i] = opts[p]
		}
		before := names(shuffled)
		if got := names(CanonicalOptions(shuffled)); !slices.Equal(got, want) {
			t.Errorf("order %v: canonical %v, want %v", perm, got, want)
		}
		if !slices.Equal(names(shuffled), before) {
			t.Errorf("CanonicalOptions changed its argument: %v, was %v", names(shuffled), before)
		}
	}
}

// The order is pinned: a different order shows a model different prompts
// and so changes answers, which must be a deliberate, visible change.
// Neither the caller's order nor the alphabetical one.
func TestCanonicalOptionsPinned(t *testing.T) {
	got := names(CanonicalOptions(fiveOptions()))
	want := []string{"billing", "technical", "security", "legal", "sales"} // sha256(Text()), ascending
	if !slices.Equal(got, want) {
		t.Fatalf("canonical order %v, want %v", got, want)
	}
	alpha := slices.Sorted(slices.Values(got))
	if slices.Equal(got, alpha) || slices.Equal(got, names(fiveOptions())) {
		t.Errorf("canonical order %v is the alphabetical or the given one", got)
	}
}

// The description is part of the key as the model reads it: the same text
// written with spaces or escapes orders the same, another text may not.
func TestCanonicalOptionsKeysOnWhatTheModelReads(t *testing.T) {
	a := []Option{{Name: "x", Description: json.RawMessage(`{"a": [1, 2]}`)}, {Name: "y", Description: json.RawMessage(`"caf\u00e9"`)}}
	b := []Option{{Name: "x", Description: json.RawMessage(`{"a":[1,2]}`)}, {Name: "y", Description: json.RawMessage(`"café"`)}}
	if !slices.Equal(names(CanonicalOptions(a)), names(CanonicalOptions(b))) {
		t.Errorf("spacing or escapes moved an option: %v vs %v", names(CanonicalOptions(a)), names(CanonicalOptions(b)))
	}
	// Null and absent descriptions are the same: no description.
	n := []Option{{Name: "p", Description: json.RawMessage(`null`)}, {Name: "q"}}
	m := []Option{{Name: "p"}, {Name: "q", Description: json.RawMessage(`null`)}}
	if !slices.Equal(names(CanonicalOptions(n)), names(CanonicalOptions(m))) {
		t.Errorf("null and absent descriptions order differently")
	}
	// Among many sets, the description moves some option: it is in the key.
	moved := false
	for i := range 32 {
		opts := []Option{{Name: "a", Description: json.RawMessage(`"one"`)}, {Name: "b", Description: json.RawMessage(`"two"`)}}
		before := names(CanonicalOptions(opts))
		opts[0].Description = json.RawMessage(`"version ` + string(rune('A'+i)) + `"`)
		if !slices.Equal(before, names(CanonicalOptions(opts))) {
			moved = true
			break
		}
	}
	if !moved {
		t.Error("no description ever changed the order: descriptions are not part of the key")
	}
}

func TestQuestionCanonical(t *testing.T) {
	score := Question{Type: TypeScore, Levels: Texts("low", "mid", "high")}
	if got := score.Canonical(); !reflect.DeepEqual(got.Levels, score.Levels) {
		t.Errorf("score levels reordered: %v", got.Levels)
	}
	choice := Question{Type: TypeChoice, Options: fiveOptions()}
	got := choice.Canonical()
	if !slices.Equal(names(got.Options), names(CanonicalOptions(fiveOptions()))) {
		t.Errorf("choice options %v", names(got.Options))
	}
	if !slices.Equal(names(choice.Options), names(fiveOptions())) {
		t.Errorf("Canonical changed the question it was called on")
	}
}

// With a description the name is no part of the key: renaming options
// keeps each description in its place, and an option without one is
// keyed by its name, which is then all it says.
func TestCanonicalOptionsIgnoreNamesBesideDescriptions(t *testing.T) {
	opts := fiveOptions()[:3]
	renamed := slices.Clone(opts)
	for i := range renamed {
		renamed[i].Name = "option_" + string(rune('z'-i))
	}
	a, b := CanonicalOptions(opts), CanonicalOptions(renamed)
	for i := range a {
		if a[i].Text() != b[i].Text() {
			t.Fatalf("renaming moved the options: %v vs %v", names(a), names(b))
		}
	}
	for _, c := range []struct {
		o    Option
		want string
	}{
		{Option{Name: "x", Description: json.RawMessage(`"  refunds "`)}, "refunds"},
		{Option{Name: "x", Description: json.RawMessage(`null`)}, "x"},
		{Option{Name: "x"}, "x"},
		{Option{Name: "x", Description: json.RawMessage(`"  "`)}, "x"},
		{Option{Name: "x", Description: json.RawMessage(`{"a":1}`)}, `{"a":1}`},
	} {
		if got := c.o.Text(); got != c.want {
			t.Errorf("Text of %+v = %q, want %q", c.o, got, c.want)
		}
	}
}
