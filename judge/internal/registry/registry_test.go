package registry

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/judge/internal/limits"
	"github.com/judgeworks/shared/systemone"
)

// runeCounter counts one token per rune: simple enough to predict exactly.
type runeCounter struct{}

func (runeCounter) Count(s string) int { return utf8.RuneCountInString(s) }

// backend answers every noul question with 0.5 and reports what it is told.
type backend struct {
	model string
	usage systemone.Usage
	skip  string // question to leave unanswered
	err   error
	got   systemone.Request
	// sent are the upstream calls it sends before answering or failing.
	sent []systemone.Usage
}

func (b *backend) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	b.got = req
	for _, u := range b.sent {
		engine.Charge(ctx, u)
	}
	if b.err != nil {
		return nil, b.err
	}
	half := 0.5
	ans := map[string]systemone.Answer{}
	for name := range req.Questions {
		if name != b.skip {
			ans[name] = systemone.Answer{Type: systemone.TypeNoul, Noul: &half}
		}
	}
	return &systemone.Response{Model: b.model, Answers: ans, Usage: b.usage}, nil
}

// request is a checked request for model: "abcd" + "q\nxy", 8 runes.
func request(model string) limits.Checked {
	c, err := limits.Check(systemone.Request{
		Model: model,
		State: json.RawMessage(`"abcd"`),
		Questions: map[string]systemone.Question{
			"q": {Type: systemone.TypeNoul, Instructions: json.RawMessage(`"xy"`)},
		},
	}, runeCounter{})
	if err != nil {
		panic(err)
	}
	return c
}

func TestAddRefusesBadEntries(t *testing.T) {
	b := &backend{}
	tests := []struct {
		name string
		m    Model
		want string
	}{
		{"no name", Model{Backend: b}, "needs a name"},
		{"no backend", Model{Name: "m-1"}, "needs a name and a backend"},
		{"latest exact", Model{Name: "m-latest", Backend: b}, "must not end in -latest"},
		{"pinned alias", Model{Name: "m-2", Aliases: []string{"m"}, Backend: b}, "must end in -latest"},
		{"negative price", Model{Name: "m-3", PricePerMillion: -1, Backend: b}, "negative price"},
		{"duplicate name", Model{Name: "m-1.0", Backend: b}, "registered twice"},
		{"duplicate alias", Model{Name: "m-4", Aliases: []string{"m-latest"}, Backend: b}, "registered twice"},
	}
	for _, tt := range tests {
		r := New()
		if err := r.Add(Model{Name: "m-1.0", Aliases: []string{"m-latest"}, Backend: b}); err != nil {
			t.Fatal(err)
		}
		err := r.Add(tt.m)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestResolveAndAllowed(t *testing.T) {
	r := New()
	a, b := &backend{}, &backend{}
	mustAdd(t, r, Model{Name: "local/lexical-1.0", Aliases: []string{"local/lexical-latest"}, Backend: a})
	mustAdd(t, r, Model{Name: "llm-1.0", Aliases: []string{"llm-latest"}, Backend: b})
	lex, ok := r.Resolve("local/lexical-latest")
	if !ok || lex.Name != "local/lexical-1.0" {
		t.Fatalf("alias resolved to %+v %v", lex, ok)
	}
	if m, _ := r.Resolve("local/lexical-1.0"); m != lex {
		t.Error("exact name and alias resolve to different entries")
	}
	if _, ok := r.Resolve("local/lexical-2.0"); ok {
		t.Error("unknown model resolved")
	}
	llm, _ := r.Resolve("llm-latest")
	tests := []struct {
		allow []string
		m     *Model
		want  bool
	}{
		{nil, lex, true},
		{[]string{"local/lexical-latest"}, lex, true},
		{[]string{"local/lexical-1.0"}, lex, true},
		{[]string{"local/lexical-latest"}, llm, false},
		{[]string{"local/lexical-latest", "llm-latest"}, llm, true},
		{[]string{"not-served-latest"}, lex, false},
	}
	for _, tt := range tests {
		if got := r.Allowed(tt.allow, tt.m); got != tt.want {
			t.Errorf("Allowed(%q, %s) = %v, want %v", tt.allow, tt.m.Name, got, tt.want)
		}
	}
	if got := r.Unknown([]string{"llm-latest", "gpt-latest", "local/lexical-1.0"}); len(got) != 1 || got[0] != "gpt-latest" {
		t.Errorf("Unknown = %q, want [gpt-latest]", got)
	}
	if ms := r.Models(); len(ms) != 2 || ms[0].Name != "llm-1.0" {
		t.Errorf("Models() not sorted by name: %v", ms)
	}
}

func TestAskNamesTheExactVersionAndCountsUsage(t *testing.T) {
	r := New()
	b := &backend{model: "ignored"}
	mustAdd(t, r, Model{Name: "local/lexical-1.0", Aliases: []string{"local/lexical-latest"}, Backend: b, PricePerMillion: DefaultPricePerMillion})
	m, _ := r.Resolve("local/lexical-latest")
	req := request("local/lexical-latest")
	resp, _, err := r.Ask(context.Background(), m, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "local/lexical-1.0" {
		t.Errorf("model = %q, want the exact version", resp.Model)
	}
	if b.got.Model != "local/lexical-1.0" {
		t.Errorf("backend was asked for %q, want the exact version", b.got.Model)
	}
	want := 8
	if resp.Usage.InputTokens != want {
		t.Errorf("input tokens = %d, want %d (as validation counted them)", resp.Usage.InputTokens, want)
	}
	if c := float64(want) * DefaultPricePerMillion / 1e6; math.Abs(resp.Usage.Cost-c) > 1e-15 {
		t.Errorf("cost = %v, want %v", resp.Usage.Cost, c)
	}
}

func TestAskComposesSnapshotNameAndKeepsReportedUsage(t *testing.T) {
	r := New()
	b := &backend{model: "gpt-4o-mini-2024-07-18", usage: systemone.Usage{InputTokens: 1000, OutputTokens: 3}}
	mustAdd(t, r, Model{Name: "llm-1.0", Aliases: []string{"llm-latest"}, Backend: b, NameFromBackend: true})
	if err := r.SetPrice("llm-latest", 2); err != nil {
		t.Fatal(err)
	}
	m, _ := r.Resolve("llm-latest")
	resp, _, err := r.Ask(context.Background(), m, request("llm-latest"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "llm-1.0/gpt-4o-mini-2024-07-18" {
		t.Errorf("model = %q", resp.Model)
	}
	if resp.Usage.InputTokens != 1000 || resp.Usage.OutputTokens != 3 || math.Abs(resp.Usage.Cost-0.002) > 1e-12 {
		t.Errorf("usage = %+v, want the backend's tokens at 2 USD per million", resp.Usage)
	}
	b.model = ""
	if _, _, err := r.Ask(context.Background(), m, request("llm-latest")); fault.CodeOf(err) != fault.Upstream {
		t.Errorf("no snapshot reported: err = %v, want an upstream error", err)
	}
}

// Every upstream call sent is charged, whether the request is answered or
// not; an engine that sends nothing and fails costs nothing.
func TestAskChargesEveryCallSent(t *testing.T) {
	r := New()
	boom := errors.New("the third call failed")
	sent := []systemone.Usage{{InputTokens: 300, OutputTokens: 1}, {InputTokens: 200}}
	b := &backend{sent: sent, err: boom}
	mustAdd(t, r, Model{Name: "m-1", Backend: b, PricePerMillion: 10})
	m, _ := r.Resolve("m-1")
	resp, charge, err := r.Ask(context.Background(), m, request("m-1"))
	if !errors.Is(err, boom) || resp != nil {
		t.Fatalf("Ask = %v, %v; want the backend's failure", resp, err)
	}
	if charge.InputTokens != 500 || charge.OutputTokens != 1 || math.Abs(charge.Cost-0.005) > 1e-12 {
		t.Errorf("a failed request that sent two calls is charged %+v, want 500 input tokens at 10 USD per million", charge)
	}

	// Answered after the same two calls: the answer's usage is the charge,
	// whatever the engine's own figures say.
	b.err, b.usage = nil, systemone.Usage{InputTokens: -500000, OutputTokens: -3}
	resp, charge, err = r.Ask(context.Background(), m, request("m-1"))
	if err != nil {
		t.Fatal(err)
	}
	if charge.InputTokens != 500 || resp.Usage != charge {
		t.Errorf("answer usage %+v, charge %+v; want both the 500 tokens sent", resp.Usage, charge)
	}

	// Nothing sent: a failure costs nothing, and an answer with a negative
	// count is charged the request's own tokens.
	b.sent, b.err = nil, boom
	if _, charge, _ = r.Ask(context.Background(), m, request("m-1")); charge != (systemone.Usage{}) {
		t.Errorf("a failure that sent nothing is charged %+v", charge)
	}
	b.err = nil
	if resp, _, err = r.Ask(context.Background(), m, request("m-1")); err != nil || resp.Usage.InputTokens != 8 || resp.Usage.OutputTokens != 0 {
		t.Errorf("an engine reporting negative tokens: usage %+v (err %v), want the request's 8 tokens and no output", resp.Usage, err)
	}
}

func TestAskChecksTheBackend(t *testing.T) {
	r := New()
	b := &backend{skip: "q"}
	mustAdd(t, r, Model{Name: "m-1", Backend: b})
	m, _ := r.Resolve("m-1")
	if _, _, err := r.Ask(context.Background(), m, request("m-1")); fault.CodeOf(err) != fault.Upstream {
		t.Errorf("unanswered question: err = %v, want upstream", err)
	}
	boom := errors.New("boom")
	b.skip, b.err = "", boom
	if _, _, err := r.Ask(context.Background(), m, request("m-1")); !errors.Is(err, boom) {
		t.Errorf("backend error = %v, want it passed through", err)
	}
}

func TestSetPrice(t *testing.T) {
	r := New()
	mustAdd(t, r, Model{Name: "m-1", Backend: &backend{}})
	if m, _ := r.Resolve("m-1"); m.PricePerMillion != 0 {
		t.Errorf("a model registered without a price costs %v, want free", m.PricePerMillion)
	}
	if err := r.SetPrice("m-1", 2); err != nil {
		t.Fatal(err)
	}
	if m, _ := r.Resolve("m-1"); m.PricePerMillion != 2 {
		t.Errorf("price after SetPrice = %v, want 2", m.PricePerMillion)
	}
	if err := r.SetPrice("m-1", 0); err != nil {
		t.Fatal(err)
	}
	if m, _ := r.Resolve("m-1"); m.PricePerMillion != 0 {
		t.Errorf("free model price = %v", m.PricePerMillion)
	}
	if err := r.SetPrice("nope", 1); err == nil {
		t.Error("price for an unknown model accepted")
	}
	if err := r.SetPrice("m-1", -1); err == nil {
		t.Error("negative price accepted")
	}
}

func mustAdd(t *testing.T, r *Registry, m Model) {
	t.Helper()
	if err := r.Add(m); err != nil {
		t.Fatal(err)
	}
}

// planner is a backend that plans a fixed multiple of the request's tokens,
// as an adapter making several calls per question would.
type planner struct {
	backend
	times int
	asked string
}

func (p *planner) PlannedInputTokens(req systemone.Request, tokens int) int {
	p.asked = req.Model
	return p.times * tokens
}

func TestPlannedInputTokens(t *testing.T) {
	r := New()
	p := &planner{times: 7}
	mustAdd(t, r, Model{Name: "offline-1.0", Backend: &backend{}})
	mustAdd(t, r, Model{Name: "llm-1.0", Aliases: []string{"llm-latest"}, Backend: p})
	// "abcd" + "q\nxy": 8 runes.
	offline, _ := r.Resolve("offline-1.0")
	if got := r.PlannedInputTokens(offline, request("offline-1.0")); got != 8 {
		t.Errorf("an engine planning the request's own tokens: %d, want 8", got)
	}
	llm, _ := r.Resolve("llm-latest")
	if got := r.PlannedInputTokens(llm, request("llm-latest")); got != 56 {
		t.Errorf("a planner: %d tokens, want its plan of 7 × 8", got)
	}
	if p.asked != "llm-1.0" {
		t.Errorf("the planner was asked about %q, want the exact name as Ask passes it", p.asked)
	}
}

func (*backend) PlannedInputTokens(_ systemone.Request, tokens int) int { return tokens }
