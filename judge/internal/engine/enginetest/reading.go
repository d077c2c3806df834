package enginetest

import (
	"context"
	"testing"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/shared/systemone"
)

// RunNegationScope checks how an offline engine reads negation: a negator
// denies what follows it, until its clause ends: at a clause breaker
// ("but", "and"), a new subject ("we") or punctuation. "No longer" and
// "other than" deny as "not" does, and a contradictory ("unresolved") is
// its base word denied. Both offline engines read words by shared/words
// and keep this.
func RunNegationScope(t *testing.T, e engine.Engine) {
	t.Helper()
	q := systemone.Question{Type: systemone.TypeNoul, Instructions: text("Is the request urgent?")}
	tests := []struct {
		state string
		yes   bool // want noul > 0.5, else < 0.5
	}{
		{"This is urgent.", true},
		{"Urgent: the server is down.", true},
		{"This is not urgent.", false},
		{"It isn't urgent at all.", false},
		{"No urgency here, whenever you have time.", false},
		{"Never urgent, this one.", false},
		{"Not a problem for me, but it is urgent.", true},          // "but" ends the negation
		{"Not now. Urgent!", true},                                 // so does a full stop
		{"Nothing is broken and this is urgent.", true},            // and "and"
		{"The site did not load we have an urgent problem.", true}, // and a new subject
		{"It is no longer urgent.", false},
		{"Anything other than urgent.", false},
	}
	for _, tt := range tests {
		req := systemone.Request{Model: "m", State: text(tt.state), Questions: map[string]systemone.Question{"q": q}}
		resp, err := e.Ask(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		p := *resp.Answers["q"].Noul
		if tt.yes && p <= 0.5 || !tt.yes && p >= 0.5 {
			t.Errorf("%q: noul = %.3f, want %s 0.5", tt.state, p, map[bool]string{true: ">", false: "<"}[tt.yes])
		}
	}
	resolved := systemone.Question{Type: systemone.TypeNoul, Instructions: text("Is it resolved?")}
	for state, yes := range map[string]bool{"The problem is resolved.": true, "The problem is still unresolved.": false} {
		req := systemone.Request{Model: "m", State: text(state), Questions: map[string]systemone.Question{"q": resolved}}
		resp, err := e.Ask(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if p := *resp.Answers["q"].Noul; yes && p <= 0.5 || !yes && p >= 0.5 {
			t.Errorf("%q: resolved = %.3f, want %s 0.5", state, p, map[bool]string{true: ">", false: "<"}[yes])
		}
	}
}
