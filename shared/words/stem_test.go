package words

import "testing"

func TestStem(t *testing.T) {
	groups := [][]string{
		{"charge", "charges", "charged", "charging"},
		{"refund", "refunds", "refunded", "refunding"},
		{"urgent", "urgency"},
		{"crash", "crashes", "crashed"},
		{"invoice", "invoices"},
		{"stop", "stopped", "stopping"},
	}
	for _, g := range groups {
		want := Stem(g[0])
		for _, w := range g[1:] {
			if got := Stem(w); got != want {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q: want the same stem", w, got, g[0], want)
			}
		}
	}
	for _, w := range []string{"class", "bus", "is", "ok"} {
		if got := Stem(w); len(got) < min(3, len(w)) {
			t.Errorf("Stem(%q) = %q: too short", w, got)
		}
	}
}

// FuzzStem holds Stem, which tries only the suffixes a word ends in, to
// trying them all.
func FuzzStem(f *testing.F) {
	for _, w := range []string{"relational", "organization", "hopefulness", "activities", "urgency", "classes", "class",
		"ies", "tied", "readings", "stopped", "careless", "ly", "eed", "über", "happiness", "fizzing"} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		want := w
		if len(w) > 3 {
			want = stemWith(w, suffixes)
		}
		if got := Stem(w); got != want {
			t.Fatalf("Stem(%q) = %q, want %q", w, got, want)
		}
	})
}

func TestFold(t *testing.T) {
	// Each group is one word in its spellings and inflections.
	groups := [][]string{
		{"optimize", "optimise", "optimising", "optimizing", "optimized", "optimisation", "optimizations"},
		{"behavior", "behaviour", "behaviours", "behaviors"},
		{"model", "modelling", "modeling", "modelled", "models"},
		{"analyze", "analyse", "analysed", "analyzing", "analysing"},
		{"center", "centre", "centres", "centers"},
		{"catalog", "catalogue", "catalogues", "catalogs"},
		{"prioritize", "prioritise", "prioritising", "prioritization", "prioritisation"},
		{"color", "colour", "colours", "coloured"},
		{"license", "licence"},
		{"program", "programme", "programmes"},
		{"cache", "caches", "cached", "caching"},
		{"partition", "partitions", "partitioning"},
		{"postmortem", "postmortems"},
	}
	for _, g := range groups {
		want := Fold(g[0])
		for _, w := range g[1:] {
			if got := Fold(w); got != want {
				t.Errorf("Fold(%q) = %q, Fold(%q) = %q: want the same", w, got, g[0], want)
			}
		}
	}
	// Words that merely end like a British spelling stay apart.
	for _, pair := range [][2]string{{"hour", "hor"}, {"four", "for"}, {"your", "yor"}, {"raise", "raize"}, {"telling", "teling"}, {"spelling", "speling"}} {
		if American(pair[0]) != pair[0] {
			t.Errorf("American(%q) = %q, want it unchanged", pair[0], American(pair[0]))
		}
	}
	for _, w := range []string{"raise", "raising", "raised"} {
		if Fold(w) != Fold("raise") {
			t.Errorf("Fold(%q) = %q, want %q", w, Fold(w), Fold("raise"))
		}
	}
}

func TestPassageHas(t *testing.T) {
	tk := Tokenizer{Digits: true, Joiners: "+#"}
	cases := []struct {
		text, phrase string
		want         bool
	}{
		{"we cached the result", "cache", true},
		{"caching helps", "cache", true},
		{"partitioning by date", "partition", true},
		{"after validation", "validat", true},
		{"we log every request", "log", true},
		{"the login page", "log", false},
		{"node.js services", "node js", true},
		{"an idempotency key per request", "idempotency key", true},
		{"key idempotency", "idempotency key", false},
		{"c++ code", "c++", true},
		{"a blameless post-mortem", "postmortem", true},
		{"a blameless post mortem", "postmortem", true},
		{"the postmortems we wrote", "post-mortem", true},
		{"a read-through cache", "read through", true},
		{"a readthrough cache", "read through", true},
		{"the tradeoffs are", "trade-off", true},
		{"the trade-offs are", "tradeoff", true},
		{"we optimised the queries", "optimiz", true},
		{"a clear prioritisation framework", "prioritization", true},
		{"post the mortem", "postmortem", false},
		{"", "cache", false},
		{"cache", "", false},
	}
	for _, c := range cases {
		if got := tk.Passage(c.text).Has(tk.Passage(c.phrase)); got != c.want {
			t.Errorf("Passage(%q).Has(%q) = %v, want %v", c.text, c.phrase, got, c.want)
		}
	}
}
