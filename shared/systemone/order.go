package systemone

import (
	"bytes"
	"crypto/sha256"
	"slices"
	"strings"
)

// Text is what an option says: its description as a model reads it
// (ContentText) when it has one that is not blank, else its name. With a
// description the name is only the caller's key for the answer: no engine
// reads it, so renaming an option or swapping descriptions between names
// moves the answer with the descriptions (docs/api.md, "Coherence").
func (o Option) Text() string {
	// Described, with the description read once.
	if k := kindOf(o.Description); k != kindNull && k != kindNone {
		if text := strings.TrimSpace(ContentText(o.Description)); text != "" {
			return text
		}
	}
	return o.Name
}

// Described reports whether the option has a description that says
// something: not absent, null or blank.
func (o Option) Described() bool {
	k := kindOf(o.Description)
	return k != kindNull && k != kindNone && strings.TrimSpace(ContentText(o.Description)) != ""
}

// CanonicalOptions returns a choice's options in the order a model is
// shown them: sorted by the SHA-256 of each option's Text. The order is a
// function of what the options say alone, so a model shown them answers
// the same whatever order the caller listed them in and whatever it named
// them; and unlike alphabetical order it owes nothing to how the texts are
// spelled, so an option cannot buy itself the first place ("aaa_best").
// Options that say the same are ordered by name. opts is not changed.
func CanonicalOptions(opts []Option) []Option {
	type keyed struct {
		sum [sha256.Size]byte
		o   Option
	}
	ks := make([]keyed, len(opts))
	for i, o := range opts {
		ks[i] = keyed{sum: sha256.Sum256([]byte(o.Text())), o: o}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := bytes.Compare(a.sum[:], b.sum[:]); c != 0 {
			return c
		}
		return strings.Compare(a.o.Name, b.o.Name)
	})
	out := make([]Option, len(ks))
	for i, k := range ks {
		out[i] = k.o
	}
	return out
}

// Canonical returns q with its options, for a choice, in CanonicalOptions
// order; other questions are returned as they are (score levels keep their
// order: it is their meaning). q is not changed.
func (q Question) Canonical() Question {
	if q.Type == TypeChoice {
		q.Options = CanonicalOptions(q.Options)
	}
	return q
}
