package main

import (
	"context"
	"encoding/json"
	"github.com/judgeworks/judge/internal/limits"
	"github.com/judgeworks/shared/tokens"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/shared/systemone"
)

const goodModels = `# Served models and their upstreams, tried in order.
models:
  - name: judge-1.0
    aliases: [judge-latest]
    description: Our judge
    release_date: "2026-11-01"
    price_per_million: 0.05
    providers:
      - {api: systemone, base_url: "http://127.0.0.1:8081", api_key_env: PEER_KEY, model: local/semantic-latest}
      - api: chat
        base_url: https://llm.example/v1
        api_key_env: LLM_API_KEY
        model: gpt-4o-mini
  - name: luna-1.0
    price_per_million: 0
    providers:
      - {api: decisions, base_url: https://api.example/v1, api_key_env: OPENAI_API_KEY, model: gpt-6-luna}
aliases:
  triage: judge-latest
  offline: local/lexical-latest
`

func writeModels(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

var modelKeys = map[string]string{"PEER_KEY": "peer-secret-0123456789", "LLM_API_KEY": "sk-chat-secret", "OPENAI_API_KEY": "sk-openai-secret"}

func TestLoadModels(t *testing.T) {
	path := writeModels(t, goodModels)
	ms, aliases, err := loadModels(path, env(modelKeys))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("%d models", len(ms))
	}
	if want := []alias{{"offline", "local/lexical-latest"}, {"triage", "judge-latest"}}; !slices.Equal(aliases, want) {
		t.Errorf("aliases %v, want %v", aliases, want)
	}
	// JUDGE_MODEL_ALIASES wins over the file for a name both give.
	merged := mergeAliases(aliases, []alias{{"triage", "luna-latest"}, {DefaultAlias, "luna-1.0"}})
	if want := []alias{{"offline", "local/lexical-latest"}, {"triage", "luna-latest"}, {DefaultAlias, "luna-1.0"}}; !slices.Equal(merged, want) {
		t.Errorf("merged aliases %v, want %v", merged, want)
	}
	j := ms[0]
	if j.Name != "judge-1.0" || !slices.Equal(j.Aliases, []string{"judge-latest"}) || j.Description != "Our judge" ||
		j.ReleaseDate != "2026-11-01" || j.PricePerMillion == nil || *j.PricePerMillion != 0.05 || len(j.Providers) != 2 {
		t.Errorf("entry %+v", j)
	}
	p := j.Providers[0]
	if p.API != apiSystemOne || p.BaseURL != "http://127.0.0.1:8081" || p.APIKey != "peer-secret-0123456789" || p.Model != "local/semantic-latest" {
		t.Errorf("provider %+v", p)
	}
	if j.Providers[1].API != apiChat || j.Providers[1].APIKey != "sk-chat-secret" || !strings.Contains(j.Providers[1].Source, "judge-1.0 provider 2") {
		t.Errorf("provider %+v", j.Providers[1])
	}
	if l := ms[1]; l.PricePerMillion == nil || *l.PricePerMillion != 0 || l.Providers[0].API != apiDecisions {
		t.Errorf("entry %+v", l)
	}
	// The config reads the file once, beside LLM_API.
	cfg, err := loadConfig(env(map[string]string{"JUDGE_MODELS_FILE": path, "PEER_KEY": "p", "OPENAI_API_KEY": "o",
		"LLM_API_KEY": "c", "LLM_BASE_URL": "https://llm.example/v1", "LLM_MODEL": "gpt-4o-mini"}))
	if err != nil || len(cfg.Models) != 2 || cfg.LLMAPI != apiChat {
		t.Fatalf("config: %d models, LLM_API %q, err %v", len(cfg.Models), cfg.LLMAPI, err)
	}
}

// Every mistake is refused at start-up with the file, the entry and the
// field named; keys never appear in the file or in an error.
func TestLoadModelsErrors(t *testing.T) {
	provider := `{api: systemone, base_url: "http://127.0.0.1:1", api_key_env: PEER_KEY, model: m}`
	entry := func(fields string) string {
		return "models:\n  - name: judge-1.0\n" + fields
	}
	withProvider := func(p string) string { return entry("    providers:\n      - " + p + "\n") }
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"empty", "", []string{"empty"}},
		{"no models", "models: []\n", []string{"no models"}},
		{"two documents", "models: []\n---\nmodels: []\n", []string{"more than one YAML document"}},
		{"not YAML", "models: [\n", []string{"line"}},
		{"unknown top-level field", "modles:\n  - name: x\n", []string{"line 1", "the top level", `"modles"`}},
		{"unknown entry field", entry("    alias: [judge-latest]\n    providers:\n      - " + provider + "\n"), []string{"line 3", "models[0] (judge-1.0)", `"alias"`, "aliases"}},
		{"unknown provider field", withProvider(`{api: chat, bsae_url: "http://h/v1", api_key_env: PEER_KEY, model: m}`), []string{"line 4", "models[0] (judge-1.0).providers[0]", `"bsae_url"`}},
		{"a key in the file", withProvider(`{api: chat, base_url: "http://h/v1", api_key: sk-live-1234, model: m}`), []string{`"api_key"`, "api_key_env"}},
		{"duplicate key", entry("    name: again\n    providers:\n      - " + provider + "\n"), []string{"line 3", "name"}},
		{"price not a number", entry("    price_per_million: cheap\n    providers:\n      - " + provider + "\n"), []string{"line 3", "cheap"}},
		{"no name", "models:\n  - providers:\n      - " + provider + "\n", []string{"models[0]", "name is required"}},
		{"name ends in -latest", "models:\n  - name: judge-latest\n    providers:\n      - " + provider + "\n", []string{"models[0] (judge-latest)", "-latest"}},
		{"alias without -latest", entry("    aliases: [judge]\n    providers:\n      - " + provider + "\n"), []string{"models[0] (judge-1.0)", `alias "judge"`}},
		{"name used twice", "models:\n  - name: a-1.0\n    aliases: [shared-latest]\n    providers:\n      - " + provider + "\n  - name: b-1.0\n    aliases: [shared-latest]\n    providers:\n      - " + provider + "\n", []string{"models[1] (b-1.0)", `"shared-latest"`, "models[0] (a-1.0)"}},
		{"bad release date", entry("    release_date: 1 Nov 2026\n    providers:\n      - " + provider + "\n"), []string{"models[0] (judge-1.0)", "release_date", "YYYY-MM-DD"}},
		{"negative price", entry("    price_per_million: -1\n    providers:\n      - " + provider + "\n"), []string{"models[0] (judge-1.0)", "price_per_million"}},
		{"no providers", entry("    providers: []\n"), []string{"models[0] (judge-1.0)", "providers"}},
		{"unknown api", withProvider(`{api: grpc, base_url: "http://h", api_key_env: PEER_KEY, model: m}`), []string{"models[0] (judge-1.0).providers[0].api", `"grpc"`, "chat, systemone, decisions"}},
		{"no base URL", withProvider(`{api: chat, api_key_env: PEER_KEY, model: m}`), []string{"providers[0].base_url"}},
		{"relative base URL", withProvider(`{api: chat, base_url: "host:8000/v1", api_key_env: PEER_KEY, model: m}`), []string{"providers[0].base_url", "host:8000/v1"}},
		{"no model", withProvider(`{api: chat, base_url: "http://h/v1", api_key_env: PEER_KEY}`), []string{"providers[0].model"}},
		{"no key variable", withProvider(`{api: chat, base_url: "http://h/v1", model: m}`), []string{"providers[0].api_key_env"}},
		{"key variable not a name", withProvider(`{api: chat, base_url: "http://h/v1", api_key_env: "sk-live-1234", model: m}`), []string{"providers[0].api_key_env", "environment variable"}},
		{"key variable unset", withProvider(`{api: chat, base_url: "http://h/v1", api_key_env: UNSET_KEY, model: m}`), []string{"providers[0].api_key_env", "UNSET_KEY is not set"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeModels(t, tc.body)
			_, _, err := loadModels(path, env(modelKeys))
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			for _, want := range append([]string{"JUDGE_MODELS_FILE", path}, tc.want...) {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not mention %q", msg, want)
				}
			}
			for _, key := range modelKeys {
				if strings.Contains(msg, key) {
					t.Errorf("error %q quotes a key", msg)
				}
			}
		})
	}
	if _, _, err := loadModels(filepath.Join(t.TempDir(), "missing.yaml"), env(nil)); err == nil || !strings.Contains(err.Error(), "JUDGE_MODELS_FILE") {
		t.Errorf("missing file: %v", err)
	}
}

func TestLLMAPISetting(t *testing.T) {
	base := map[string]string{"JUDGE_API_KEYS": "k", "LLM_BASE_URL": "http://127.0.0.1:8081", "LLM_API_KEY": "peer", "LLM_MODEL": "local/semantic-latest"}
	for _, api := range []string{"chat", "systemone", "decisions"} {
		e := map[string]string{"LLM_API": " " + api + " "}
		for k, v := range base {
			e[k] = v
		}
		cfg, err := loadConfig(env(e))
		if err != nil || cfg.LLMAPI != api {
			t.Errorf("LLM_API=%s: %q, %v", api, cfg.LLMAPI, err)
		}
	}
	base["LLM_API"] = "grpc"
	if _, err := loadConfig(env(base)); err == nil || !strings.Contains(err.Error(), "LLM_API") {
		t.Errorf("LLM_API=grpc: %v", err)
	}
}

// fakePeer is a System One service answering every noul question 0.7
// under the model it is asked for, with that name in the answer.
func fakePeer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, err := systemone.DecodeRequest(body)
		if err != nil || r.URL.Path != "/v1/systemone" || r.Header.Get("Authorization") != "Bearer peer" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		p := 0.7
		answers := map[string]systemone.Answer{}
		for name := range req.Questions {
			answers[name] = systemone.Answer{Type: systemone.TypeNoul, Noul: &p}
		}
		_ = json.NewEncoder(w).Encode(systemone.Response{Model: req.Model + "-exact", Answers: answers, Usage: systemone.Usage{InputTokens: 1000}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func noulRequest(model string) systemone.Request {
	return systemone.Request{Model: model, State: json.RawMessage(`"a ticket"`), Questions: map[string]systemone.Question{
		"urgent": {Type: systemone.TypeNoul, Instructions: json.RawMessage(`"Is it urgent?"`)}}}
}

// checked is req as the API hands it on, counted by the judge's tokenizer.
func checked(t *testing.T, req systemone.Request) limits.Checked {
	t.Helper()
	c, err := limits.Check(req, tokens.Default())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ask(t *testing.T, reg *registry.Registry, model string) *systemone.Response {
	t.Helper()
	m, ok := reg.Resolve(model)
	if !ok {
		t.Fatalf("%s is not registered", model)
	}
	resp, _, err := reg.Ask(context.Background(), m, checked(t, noulRequest(model)))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// The models file's entries and LLM_API=systemone are served beside the
// offline engines, named by the version that answered and priced as set.
func TestRegistryServesProviders(t *testing.T) {
	peer := fakePeer(t)
	path := writeModels(t, `models:
  - name: judge-1.0
    aliases: [judge-latest]
    price_per_million: 2
    providers:
      - {api: systemone, base_url: "`+peer.URL+`", api_key_env: PEER_KEY, model: local/semantic-latest}
  - name: free-1.0
    price_per_million: 0
    providers:
      - {api: systemone, base_url: "`+peer.URL+`/", api_key_env: PEER_KEY, model: other}
`)
	cfg, err := loadConfig(env(map[string]string{"JUDGE_API_KEYS": strings.Repeat("k", 40), "JUDGE_MODELS_FILE": path, "PEER_KEY": "peer",
		"LLM_API": "systemone", "LLM_BASE_URL": peer.URL, "LLM_API_KEY": "peer", "LLM_MODEL": "shortcut"}))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := newRegistry(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if resp := ask(t, reg, "judge-latest"); resp.Model != "judge-1.0/local/semantic-latest-exact" || resp.Usage.Cost != 1000*2/1e6 {
		t.Errorf("judge-latest: model %q cost %v", resp.Model, resp.Usage.Cost)
	}
	if resp := ask(t, reg, "free-1.0"); resp.Model != "free-1.0/other-exact" || resp.Usage.Cost != 0 {
		t.Errorf("free-1.0: model %q cost %v", resp.Model, resp.Usage.Cost)
	}
	if resp := ask(t, reg, "llm-latest"); resp.Model != "llm-1.0/shortcut-exact" || *resp.Answers["urgent"].Noul != 0.7 {
		t.Errorf("llm-latest: %+v", resp)
	}
	m, _ := reg.Resolve("free-1.0")
	if !strings.Contains(m.Description, "systemone other") || strings.Contains(m.Description, peer.URL) {
		t.Errorf("default description %q: want the providers, not their addresses", m.Description)
	}
}

// A models file entry may not take a name the judge already serves.
func TestModelsFileNameClash(t *testing.T) {
	path := writeModels(t, "models:\n  - name: local/semantic-1.0\n    providers:\n      - {api: systemone, base_url: \"http://127.0.0.1:1\", api_key_env: PEER_KEY, model: m}\n")
	cfg, err := loadConfig(env(map[string]string{"JUDGE_API_KEYS": "k", "JUDGE_MODELS_FILE": path, "PEER_KEY": "p"}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = newRegistry(cfg, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "models[0] (local/semantic-1.0)") {
		t.Fatalf("err %v, want the file and the entry named", err)
	}
}

// The example in deploy/ is a file the judge accepts.
func TestModelsExample(t *testing.T) {
	ms, _, err := loadModels(filepath.Join("..", "..", "..", "deploy", "models.example.yaml"),
		env(map[string]string{"PEER_JUDGE_KEY": "p", "LOCAL_LLM_KEY": "l", "OPENAI_API_KEY": "o"}))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, m := range ms {
		for _, p := range m.Providers {
			kinds = append(kinds, p.API)
		}
	}
	if !slices.Equal(kinds, []string{apiSystemOne, apiChat, apiDecisions}) {
		t.Errorf("the example shows %v; it should show every kind", kinds)
	}
}
