package systemone

import (
	"bytes"
	"crypto/sha256"
	"slices"
	"strings"
)

// CanonicalOptions returns a choice's options in the order a model is
// shown them: sorted by the SHA-256 of each option's name, a zero byte and
// its description as the model reads it (ContentText; nothing for none).
// The order is a function of the set of options alone, so a model shown
// them answers the same whatever order the caller listed them in; and
// unlike alphabetical order it owes nothing to how the names are spelled,
// so a name cannot buy itself the first place ("aaa_best"). opts is not
// changed.
func CanonicalOptions(opts []Option) []Option {
	type keyed struct {
		sum [sha256.Size]byte
		o   Option
	}
	ks := make([]keyed, len(opts))
	for i, o := range opts {
		h := sha256.New()
		h.Write([]byte(o.Name))
		h.Write([]byte{0})
		if kindOf(o.Description) != kindNull && kindOf(o.Description) != kindNone {
			h.Write([]byte(ContentText(compact(o.Description))))
		}
		ks[i] = keyed{o: o}
		h.Sum(ks[i].sum[:0])
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := bytes.Compare(a.sum[:], b.sum[:]); c != 0 {
			return c
		}
		return strings.Compare(a.o.Name, b.o.Name) // equal digests: never in practice
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
