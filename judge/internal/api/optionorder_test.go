package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/cache"
	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/engine/chat"
	"github.com/judgeworks/judge/internal/engine/lexical"
	"github.com/judgeworks/judge/internal/engine/providers"
	"github.com/judgeworks/judge/internal/engine/semantic"
	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
	"github.com/judgeworks/shared/wordvec"
)

// teamOptions are the options of the choice question the option-order
// test asks, by name.
var teamOptions = map[string]string{
	"technical": "bugs, crashes and error messages",
	"billing":   "payments, charges and refunds",
	"sales":     "plans, prices and upgrades",
	"account":   "sign-in, passwords and profiles",
}

// callerOrders are two orders of teamOptions that are neither sorted by
// name nor canonical (the order every engine reads options in), and differ
// from each other: an answer in either can only have kept the caller's.
func callerOrders(t *testing.T) [2][]string {
	t.Helper()
	var opts []systemone.Option
	for name, text := range teamOptions {
		opts = append(opts, systemone.Option{Name: name, Description: systemone.Text(text)})
	}
	var canonical []string
	for _, o := range systemone.CanonicalOptions(opts) {
		canonical = append(canonical, o.Name)
	}
	sorted := slices.Sorted(func(yield func(string) bool) {
		for name := range teamOptions {
			if !yield(name) {
				return
			}
		}
	})
	var out [][]string
	for _, order := range [][]string{
		{"technical", "billing", "sales", "account"},
		{"sales", "account", "technical", "billing"},
		{"billing", "technical", "account", "sales"},
		{"account", "technical", "billing", "sales"},
	} {
		if !slices.Equal(order, canonical) && !slices.Equal(order, sorted) && len(out) < 2 {
			out = append(out, order)
		}
	}
	return [2][]string{out[0], out[1]}
}

func systemOneBody(model string, order []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"model": %q, "state": "I was charged twice for one order and want my money back.", "questions": {`, model)
	b.WriteString(`"refund": {"type": "noul", "instructions": "Does the customer ask for a refund?"}, `)
	b.WriteString(`"team": {"type": "choice", "instructions": "Which team should handle this?", "criteria": {`)
	for i, name := range order {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: %q", name, teamOptions[name])
	}
	b.WriteString("}}}}")
	return b.String()
}

func decisionsBody(model string, order []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"model": %q, "input": "I was charged twice for one order and want my money back.", "questions": [`, model)
	b.WriteString(`{"type": "choice", "name": "team", "instructions": "Which team should handle this?", "choices": [`)
	for i, name := range order {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"value": %q, "description": %q}`, name, teamOptions[name])
	}
	b.WriteString("]}]}")
	return b.String()
}

// probabilityKeys reads the keys of answers.team.probabilities in the
// order the body holds them.
func probabilityKeys(t *testing.T, body string) []string {
	t.Helper()
	var resp struct {
		Answers map[string]struct {
			Probabilities json.RawMessage `json:"probabilities"`
		} `json:"answers"`
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatalf("%v: %.300s", err, body)
	}
	dec := json.NewDecoder(bytes.NewReader(resp.Answers["team"].Probabilities))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("probabilities %s are not an object", resp.Answers["team"].Probabilities)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var p float64
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// decisionValues reads the values of the team answer's probabilities in
// the order the body holds them.
func decisionValues(t *testing.T, body string) []string {
	t.Helper()
	var resp struct {
		Answers []struct {
			Name          string `json:"name"`
			Probabilities []struct {
				Value string `json:"value"`
			} `json:"probabilities"`
		} `json:"answers"`
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil || len(resp.Answers) != 1 {
		t.Fatalf("%v: %.300s", err, body)
	}
	var values []string
	for _, p := range resp.Answers[0].Probabilities {
		values = append(values, p.Value)
	}
	return values
}

// orderJudge serves every kind of engine under its own model name, with
// the answer cache on: the two offline engines, the chat engine over
// model, and a System One and a Decisions provider whose upstream is
// another judge.
func orderJudge(t *testing.T, model *chatModel) *httptest.Server {
	t.Helper()
	upstream, _ := judge(t, lexical.Engine{}, unlimited, 0)
	sem, err := semantic.New(wordvec.Default())
	if err != nil {
		t.Fatal(err)
	}
	llm, err := chat.New(engine.NewSlots(fairqueue.Config{Slots: 4, Queue: chat.DefaultQueue, MaxWait: chat.DefaultMaxWait}, ""),
		chatadapter.WithProvider(model.srv.URL+"/v1", "test-key", "fake"),
		chatadapter.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	settings := func(base string) providers.Settings {
		return providers.Settings{BaseURL: base, APIKey: "k", Model: "m-latest", Source: "test upstream", KeyEnv: "UP_KEY",
			MaxWait: time.Second, Queue: 100, CallTimeout: 10 * time.Second}
	}
	dec, err := providers.NewDecisions(settings(upstream.URL + "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	for _, m := range []registry.Model{
		{Name: "semantic", Backend: sem},
		{Name: "lexical", Backend: lexical.Engine{}},
		{Name: "chat", Backend: llm, NameFromBackend: true},
		{Name: "systemone", Backend: providers.NewSystemOne(settings(upstream.URL))},
		{Name: "decisions", Backend: dec},
	} {
		if err := reg.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	ks, err := auth.ParseBearerKeys("key1")
	if err != nil {
		t.Fatal(err)
	}
	e := New(slog.New(slog.DiscardHandler), Deps{
		Keys: ks, Registry: reg, Metrics: metrics.New(), Tokens: tokens.Default(),
		Cache: newCache(t, cache.Settings{TTL: time.Hour}),
		Limiter: ratelimit.New(context.Background(), ratelimit.Settings{RPM: 1_000_000, TPM: 1_000_000_000,
			IDs: keyIDs(ks)}),
	})
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv
}

// TestChoiceKeepsTheCallersOptionOrder: a choice's probabilities come back
// with their options in the order the caller listed them, not sorted by
// name nor in the canonical order the engines read them in: from every
// kind of engine, from the answer cache (stored for a request that listed
// them in another order), in an Idempotency-Key replay, and on
// /v1/decisions.
func TestChoiceKeepsTheCallersOptionOrder(t *testing.T) {
	orders := callerOrders(t)
	srv := orderJudge(t, newChatModel(t, 0))
	for _, model := range []string{"semantic", "lexical", "chat", "systemone", "decisions"} {
		t.Run(model, func(t *testing.T) {
			for i, order := range orders {
				a := mustPost(t, srv.URL, "/v1/systemone", "key1", "", systemOneBody(model, order))
				if a.status != http.StatusOK {
					t.Fatalf("status %d: %.300s", a.status, a.body)
				}
				// The second order finds the first's answer in the cache:
				// the canonical request is the same.
				if want := []string{cache.Miss, cache.Hit}[i]; a.header.Get(cache.Header) != want {
					t.Errorf("order %d: %s %q, want %q", i, cache.Header, a.header.Get(cache.Header), want)
				}
				if got := probabilityKeys(t, a.body); !slices.Equal(got, order) {
					t.Errorf("order %d (cache %s): probabilities in order %v, want the caller's %v", i, a.header.Get(cache.Header), got, order)
				}
			}

			key := "replay-" + model
			first := mustPost(t, srv.URL, "/v1/systemone", "key1", key, systemOneBody(model, orders[1]))
			replay := mustPost(t, srv.URL, "/v1/systemone", "key1", key, systemOneBody(model, orders[1]))
			if replay.status != http.StatusOK || replay.header.Get(HeaderReplayed) != "true" || replay.body != first.body {
				t.Fatalf("replay: status %d, %s %q, same body %v", replay.status, HeaderReplayed, replay.header.Get(HeaderReplayed), replay.body == first.body)
			}
			if got := probabilityKeys(t, replay.body); !slices.Equal(got, orders[1]) {
				t.Errorf("replay: probabilities in order %v, want the caller's %v", got, orders[1])
			}

			for i, order := range orders {
				a := mustPost(t, srv.URL, decisionsRoute, "key1", "", decisionsBody(model, order))
				if a.status != http.StatusOK {
					t.Fatalf("decisions: status %d: %.300s", a.status, a.body)
				}
				if got := decisionValues(t, a.body); !slices.Equal(got, order) {
					t.Errorf("decisions, order %d: probabilities in order %v, want the caller's %v", i, got, order)
				}
			}
		})
	}
}
