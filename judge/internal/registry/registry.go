// Package registry holds the judge's models: their exact names, floating
// "-latest" aliases, prices and the engine (an engine.Engine) that
// answers for each (judge/internal/engine), registered by judge/cmd/judge. It turns a request
// naming a model into a response naming the exact version that answered,
// with usage and cost, its answers in the order of the questions.
package registry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/judge/internal/limits"
	"github.com/judgeworks/shared/systemone"
)

// DefaultPricePerMillion is the price in USD per million input tokens the
// judge gives a model the configuration names no price for. Output tokens
// are free.
const DefaultPricePerMillion = 0.042

// Model is one entry of the registry.
type Model struct {
	// Name is the exact version, e.g. "local/lexical-1.0".
	Name string
	// Aliases float to Name: the engine's own, each ending in "-latest",
	// then those added with AddAlias.
	Aliases     []string
	Description string
	// ReleaseDate is the date Name was released, as YYYY-MM-DD.
	ReleaseDate string
	// PricePerMillion is the USD price per million input tokens; zero means
	// free.
	PricePerMillion float64
	Backend         engine.Engine
	// NameFromBackend makes the answering name Name + "/" + the model the
	// backend reports (e.g. "llm-1.0/gpt-4o-mini-2024-07-18"), for backends
	// that front an upstream model whose snapshot can change under an alias.
	NameFromBackend bool
}

// Cost is what inputTokens cost with m in USD: output tokens are free.
func (m *Model) Cost(inputTokens int) float64 {
	return float64(inputTokens) * m.PricePerMillion / 1e6
}

// Registry is the set of models. Build it at start-up; it is read-only (and
// so safe for concurrent use) once serving begins.
type Registry struct {
	models []*Model
	byName map[string]*Model
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{byName: map[string]*Model{}}
}

// Add registers m. Names and aliases must be unique across the registry, and
// aliases must end in "-latest" so that a caller can tell a floating name
// from a pinned one.
func (r *Registry) Add(m Model) error {
	if m.Name == "" || m.Backend == nil {
		return errors.New("a model needs a name and a backend")
	}
	if strings.HasSuffix(m.Name, "-latest") {
		return fmt.Errorf("model %q: an exact name must not end in -latest", m.Name)
	}
	if m.PricePerMillion < 0 {
		return fmt.Errorf("model %q: negative price", m.Name)
	}
	names := append([]string{m.Name}, m.Aliases...)
	for i, n := range names {
		if i > 0 && !strings.HasSuffix(n, "-latest") {
			return fmt.Errorf("model %q: alias %q must end in -latest", m.Name, n)
		}
		if _, dup := r.byName[n]; dup {
			return fmt.Errorf("model name %q registered twice", n)
		}
	}
	m.Aliases = append([]string(nil), m.Aliases...)
	p := &m
	r.models = append(r.models, p)
	for _, n := range names {
		r.byName[n] = p
	}
	return nil
}

// AddAlias makes alias another name of the model target names (exact or
// alias): an operator's name for a model, or jev-latest, the model System
// One clients ask for by default. Unlike a model's own aliases it may be
// any name no model has.
func (r *Registry) AddAlias(alias, target string) error {
	if strings.TrimSpace(alias) == "" || strings.ContainsAny(alias, " \t,=") {
		return fmt.Errorf("alias %q: want a name without spaces, commas or =", alias)
	}
	m, ok := r.byName[target]
	if !ok {
		return fmt.Errorf("alias %q: unknown model %q", alias, target)
	}
	if other, dup := r.byName[alias]; dup {
		return fmt.Errorf("alias %q: already a name of model %s", alias, other.Name)
	}
	m.Aliases = append(m.Aliases, alias)
	r.byName[alias] = m
	return nil
}

// SetPrice sets the price of the model known as name (exact or alias).
func (r *Registry) SetPrice(name string, usdPerMillion float64) error {
	m, ok := r.byName[name]
	if !ok {
		return fmt.Errorf("price for unknown model %q", name)
	}
	if usdPerMillion < 0 {
		return fmt.Errorf("model %q: negative price", name)
	}
	m.PricePerMillion = usdPerMillion
	return nil
}

// Resolve finds the model known as name, exact or alias.
func (r *Registry) Resolve(name string) (*Model, bool) {
	m, ok := r.byName[name]
	return m, ok
}

// Models lists the entries sorted by name.
func (r *Registry) Models() []*Model {
	out := append([]*Model(nil), r.models...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Allowed reports whether a key limited to the model names in allow may use
// m. An empty list allows every model; a listed alias allows the model it
// resolves to under any of its names.
func (r *Registry) Allowed(allow []string, m *Model) bool {
	if len(allow) == 0 {
		return true
	}
	for _, n := range allow {
		if r.byName[n] == m {
			return true
		}
	}
	return false
}

// Unknown returns the names that resolve to no model. A key may name a
// model this process does not serve (a key meant for llm-latest on a judge
// running offline); main warns about them instead of refusing to start.
func (r *Registry) Unknown(names []string) []string {
	var out []string
	for _, n := range names {
		if _, ok := r.byName[n]; !ok {
			out = append(out, n)
		}
	}
	return out
}

// PlannedInputTokens is what answering req with m will cost in input
// tokens, by m's engine's plan.
func (r *Registry) PlannedInputTokens(m *Model, req limits.Checked) int {
	req.Model = m.Name
	return m.Backend.PlannedInputTokens(req.Request, req.Tokens)
}

// Ask answers req with m and completes the response: the exact model name,
// one answer per question, in the caller's order (limits.Checked.Arrange),
// and usage. It returns what the request is charged, answered or not:
// every upstream call that was sent (counted on an engine.Meter), priced;
// for an engine that sends nothing, the tokens it reports, or else the
// request's as validation counted them, and nothing when it fails. The
// answer's usage is its charge.
func (r *Registry) Ask(ctx context.Context, m *Model, req limits.Checked) (*systemone.Response, systemone.Usage, error) {
	req.Model = m.Name
	var meter engine.Meter
	resp, err := m.Backend.Ask(engine.WithMeter(ctx, &meter), req.Request)
	charge := systemone.Usage{}
	if meter.Calls() > 0 {
		charge = meter.Usage()
	} else if err == nil && resp != nil {
		charge = resp.Usage
		if charge.InputTokens <= 0 {
			charge.InputTokens = req.Tokens
		}
		charge.OutputTokens = max(charge.OutputTokens, 0)
	}
	charge.Cost = m.Cost(charge.InputTokens)
	if err == nil {
		resp, err = r.complete(m, req, resp)
	}
	if err != nil {
		return nil, charge, err
	}
	resp.Usage = charge
	return resp, charge, nil
}

// complete checks resp against the engine contract and names it: one
// answer per question and none other, the exact model that answered, the
// answers and each choice's options in the order the caller sent them.
func (r *Registry) complete(m *Model, req limits.Checked, resp *systemone.Response) (*systemone.Response, error) {
	if resp == nil {
		return nil, fault.New(fault.Upstream, "model %s returned no response", m.Name)
	}
	for name := range req.Questions {
		if _, ok := resp.Answers[name]; !ok {
			return nil, fault.New(fault.Upstream, "model %s left question %q unanswered", m.Name, name)
		}
	}
	if len(resp.Answers) != len(req.Questions) {
		return nil, fault.New(fault.Upstream, "model %s answered questions that were not asked", m.Name)
	}
	name := m.Name
	if m.NameFromBackend {
		if resp.Model == "" {
			return nil, fault.New(fault.Upstream, "model %s did not report which snapshot answered", m.Name)
		}
		name += "/" + resp.Model
	}
	out := &systemone.Response{Model: name, Answers: resp.Answers}
	req.Arrange(out)
	return out, nil
}
