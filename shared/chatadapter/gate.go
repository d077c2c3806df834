package chatadapter

import "context"

// Gate admits a request's upstream calls and hands out their slots. Ask
// counts a request's calls, admits them all at once through the gate (or
// none), and each call then waits for its slot and builds its body only
// when it has one: what waits costs a goroutine and a few descriptors,
// never a prompt. The judge shares its upstream slots among its keys
// through a gate (judge/internal/engine/chat); without one (WithGate not
// given) every call starts at once.
type Gate interface {
	// Admit reserves calls upstream calls for the request asked with ctx,
	// or refuses the request; Ask returns the refusal unchanged.
	Admit(ctx context.Context, calls int) (Admission, error)
}

// Admission is an admitted request's share of a Gate.
type Admission interface {
	// Acquire waits for a slot for one call and fails only when ctx ends;
	// release gives the slot back with the call's outcome.
	Acquire(ctx context.Context) (release func(Outcome), err error)
	// Done gives back the calls the request was admitted for and never
	// made. Ask calls it once the request is over.
	Done()
}

// Outcome is what a call tells the gate when it gives its slot back.
type Outcome int

const (
	// Answered: a reply came back.
	Answered Outcome = iota
	// Throttled: the provider said 429.
	Throttled
	// Failed: anything else.
	Failed
)

// WithGate shares the upstream slots through g.
func WithGate(g Gate) Option {
	return func(c *config) { c.gate = g }
}

// open is the gate of an adapter given none: every call starts at once.
type open struct{}

func (open) Admit(context.Context, int) (Admission, error) { return open{}, nil }

func (open) Acquire(context.Context) (func(Outcome), error) { return func(Outcome) {}, nil }

func (open) Done() {}
