package cache

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/limits"
	"github.com/judgeworks/judge/internal/perkey"
	"github.com/judgeworks/shared/systemone"
)

// keyOf is the bearer key whose secret is name.
func keyOf(t *testing.T, name string) auth.BearerKey {
	t.Helper()
	ks, err := auth.ParseBearerKeys(name)
	if err != nil {
		t.Fatal(err)
	}
	return ks.All()[0]
}

func decode(t *testing.T, body string) limits.Checked {
	t.Helper()
	req, err := systemone.DecodeRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return limits.Checked{Request: req}
}

// TestSlotIsTheCanonicalRequest: what the answer depends on changes the
// slot; what it does not (the option order, the alias, whitespace) does
// not.
func TestSlotIsTheCanonicalRequest(t *testing.T) {
	base := `{"model": "m-latest", "state": {"a": 1}, "questions": {"x": {"type": "choice", "criteria": {"p": "P", "q": "Q"}}, "y": {"type": "noul"}}}`
	slot := func(owner, model, body string) string { return Slot(owner, model, decode(t, body).Request) }
	want := slot("k1", "m-1", base)
	for name, body := range map[string]string{
		"options reordered": `{"model": "m-latest", "state": {"a": 1}, "questions": {"x": {"type": "choice", "criteria": {"q": "Q", "p": "P"}}, "y": {"type": "noul"}}}`,
		"another alias":     `{"model": "m-other-latest", "state": {"a": 1}, "questions": {"x": {"type": "choice", "criteria": {"p": "P", "q": "Q"}}, "y": {"type": "noul"}}}`,
		"whitespace":        `{"model":"m-latest","state":{ "a" : 1 },"questions":{"x":{"type":"choice","criteria":{"p":"P","q":"Q"}},"y":{"type":"noul"}}}`,
		"document":          `{"model": "m-latest", "document": {"a": 1}, "questions": {"x": {"type": "choice", "criteria": {"p": "P", "q": "Q"}}, "y": {"type": "noul"}}}`,
	} {
		if got := slot("k1", "m-1", body); got != want {
			t.Errorf("%s: another slot", name)
		}
	}
	for name, got := range map[string]string{
		"another key":      slot("k2", "m-1", base),
		"shared":           slot(SharedOwner, "m-1", base),
		"another model":    slot("k1", "m-2", base),
		"another state":    slot("k1", "m-1", `{"model": "m-latest", "state": {"a": 2}, "questions": {"x": {"type": "choice", "criteria": {"p": "P", "q": "Q"}}, "y": {"type": "noul"}}}`),
		"questions moved":  slot("k1", "m-1", `{"model": "m-latest", "state": {"a": 1}, "questions": {"y": {"type": "noul"}, "x": {"type": "choice", "criteria": {"p": "P", "q": "Q"}}}}`),
		"option renamed":   slot("k1", "m-1", `{"model": "m-latest", "state": {"a": 1}, "questions": {"x": {"type": "choice", "criteria": {"p": "P", "r": "Q"}}, "y": {"type": "noul"}}}`),
		"instructions set": slot("k1", "m-1", `{"model": "m-latest", "state": {"a": 1}, "questions": {"x": {"type": "choice", "criteria": {"p": "P", "q": "Q"}}, "y": {"type": "noul", "instructions": "i"}}}`),
	} {
		if got == want {
			t.Errorf("%s: the same slot", name)
		}
	}
}

func TestNoCache(t *testing.T) {
	for _, tt := range []struct {
		values []string
		want   bool
	}{
		{nil, false},
		{[]string{"no-cache"}, true},
		{[]string{"max-age=0, No-Cache"}, true},
		{[]string{"no-store"}, false},
		{[]string{"max-age=0", "no-cache"}, true},
		{[]string{"no-cache-please"}, false},
	} {
		h := http.Header{}
		for _, v := range tt.values {
			h.Add("Cache-Control", v)
		}
		if got := NoCache(h); got != tt.want {
			t.Errorf("NoCache(%q) = %v", tt.values, got)
		}
	}
}

// TestOffIsNil: a TTL of zero is no cache, and a nil cache does nothing.
func TestOffIsNil(t *testing.T) {
	ctx := context.Background()
	c := New(ctx, Settings{})
	if c != nil {
		t.Fatal("a cache without a TTL")
	}
	e, resp := c.Lookup(ctx, keyOf(t, "k"), "m-1", decode(t, `{"model": "m", "state": "s", "questions": {"q": {"type": "noul"}}}`), false)
	h := http.Header{}
	e.Mark(h)
	e.Store(ctx, &systemone.Response{})
	if e != nil || resp != nil || len(h) != 0 {
		t.Errorf("an off cache answered %v %v %v", e, resp, h)
	}
}

// TestHitReportsNoUsage: what is stored comes back with the questions'
// order and no usage, only for its key.
func TestHitReportsNoUsage(t *testing.T) {
	ctx := context.Background()
	c := New(ctx, Settings{TTL: time.Hour})
	req := decode(t, `{"model": "m", "state": "s", "questions": {"b": {"type": "noul"}, "a": {"type": "noul"}}}`)
	e, resp := c.Lookup(ctx, keyOf(t, "k"), "m-1", req, false)
	if resp != nil || e.outcome != Miss {
		t.Fatalf("empty cache: %v %v", e.outcome, resp)
	}
	e.Store(ctx, &systemone.Response{Model: "m-1", Order: []string{"b", "a"},
		Answers: map[string]systemone.Answer{"a": {Type: systemone.TypeNoul}, "b": {Type: systemone.TypeNoul}},
		Usage:   systemone.Usage{InputTokens: 10, OutputTokens: 1, Cost: 0.5}})
	e, resp = c.Lookup(ctx, keyOf(t, "k"), "m-1", req, false)
	if resp == nil || e.outcome != Hit || resp.Model != "m-1" || resp.Usage != (systemone.Usage{}) ||
		len(resp.Names()) != 2 || resp.Names()[0] != "b" {
		t.Fatalf("hit: %v %+v", e.outcome, resp)
	}
	if _, resp := c.Lookup(ctx, keyOf(t, "other"), "m-1", req, false); resp != nil {
		t.Error("another key read the answer")
	}
	if e, resp := c.Lookup(ctx, keyOf(t, "k"), "m-1", req, true); resp != nil || e.outcome != Bypass {
		t.Errorf("no-cache: %v %v", e.outcome, resp)
	}
}

// TestBoundedPerKey: a key filling the cache evicts its own entries only.
func TestBoundedPerKey(t *testing.T) {
	ctx := context.Background()
	c := New(ctx, Settings{TTL: time.Hour, PerKey: perkey.Limits{Entries: 2}})
	store := func(owner, state string) limits.Checked {
		req := decode(t, `{"model": "m", "state": "`+state+`", "questions": {"q": {"type": "noul"}}}`)
		e, _ := c.Lookup(ctx, keyOf(t, owner), "m-1", req, false)
		e.Store(ctx, &systemone.Response{Model: "m-1", Answers: map[string]systemone.Answer{"q": {Type: systemone.TypeNoul}}})
		return req
	}
	kept := store("quiet", "s")
	var flood []limits.Checked
	for _, state := range []string{"a", "b", "c", "d"} {
		flood = append(flood, store("flood", state))
	}
	if _, resp := c.Lookup(ctx, keyOf(t, "quiet"), "m-1", kept, false); resp == nil {
		t.Error("another key's flood evicted this key's entry")
	}
	for i, req := range flood {
		_, resp := c.Lookup(ctx, keyOf(t, "flood"), "m-1", req, false)
		if want := i >= 2; (resp != nil) != want {
			t.Errorf("flood entry %d kept = %v, want %v (its own oldest evicted)", i, resp != nil, want)
		}
	}
}
