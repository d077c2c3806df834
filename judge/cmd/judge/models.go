package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/judgeworks/shared/settings"
	"go.yaml.in/yaml/v3"
)

// What a provider speaks (a models file's api, and LLM_API).
const (
	apiChat      = "chat"      // OpenAI-compatible chat completions, read by shared/chatadapter
	apiSystemOne = "systemone" // a System One service: POST <base>/v1/systemone
	apiDecisions = "decisions" // OpenAI's Decisions API: POST <base>/decisions, base including /v1
)

var apis = []string{apiChat, apiSystemOne, apiDecisions}

// modelsFile is the JUDGE_MODELS_FILE (docs/judge.md, "The models file"):
// the models this judge serves from upstream providers, each with its
// providers in fallback order. Keys are named by environment variable,
// never written in the file, so the file can be committed.
type modelsFile struct {
	Models []modelEntry `yaml:"models"`
	// Aliases are other names of served models, alias: model (an exact
	// name or an alias of any model, the offline ones included), as
	// JUDGE_MODEL_ALIASES gives them.
	Aliases map[string]string `yaml:"aliases"`
}

// modelEntry is one served model.
type modelEntry struct {
	// Name is the exact name served; Aliases float to it (each ends in -latest).
	Name        string   `yaml:"name"`
	Aliases     []string `yaml:"aliases"`
	Description string   `yaml:"description"`
	// ReleaseDate is YYYY-MM-DD; empty when the file gives none.
	ReleaseDate string `yaml:"release_date"`
	// PricePerMillion is the USD price per million input tokens; nil is
	// the registry's default, 0 is free.
	PricePerMillion *float64 `yaml:"price_per_million"`
	// Providers are tried in order; the next when one fails or sheds.
	Providers []providerEntry `yaml:"providers"`
}

// providerEntry is one upstream of a model.
type providerEntry struct {
	API       string `yaml:"api"`
	BaseURL   string `yaml:"base_url"`
	APIKeyEnv string `yaml:"api_key_env"`
	Model     string `yaml:"model"`
	// APIKey is APIKeyEnv's value, read once when the file is loaded.
	APIKey string `yaml:"-"`
	// Source names the provider in errors and logs: the entry and position.
	Source string `yaml:"-"`
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// loadModels reads and checks the models file at path, reading each
// provider's key from the environment variable it names. Errors name the
// file, the entry and the field.
func loadModels(path string, getenv func(string) string) ([]modelEntry, []alias, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("JUDGE_MODELS_FILE %s: %s", path, fmt.Sprintf(format, args...))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("JUDGE_MODELS_FILE: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fail("the file is empty; it must list models:")
		}
		return nil, nil, fail("%v", err)
	}
	if err := dec.Decode(new(yaml.Node)); !errors.Is(err, io.EOF) {
		return nil, nil, fail("more than one YAML document; the file holds one")
	}
	if err := checkFields(&root, reflect.TypeFor[modelsFile](), ""); err != nil {
		return nil, nil, fail("%v", err)
	}
	var f modelsFile
	if err := root.Decode(&f); err != nil {
		return nil, nil, fail("%v", err)
	}
	if len(f.Models) == 0 && len(f.Aliases) == 0 {
		return nil, nil, fail("no models: list them under models: (or aliases under aliases:)")
	}
	names := map[string]string{} // every name and alias → the entry that has it
	for i := range f.Models {
		m := &f.Models[i]
		where := fmt.Sprintf("models[%d]", i)
		if m.Name != "" {
			where += fmt.Sprintf(" (%s)", m.Name)
		}
		switch {
		case strings.TrimSpace(m.Name) == "":
			return nil, nil, fail("%s: name is required", where)
		case strings.HasSuffix(m.Name, "-latest"):
			return nil, nil, fail("%s: name %q ends in -latest, which marks an alias; name the exact version", where, m.Name)
		}
		for _, a := range m.Aliases {
			if !strings.HasSuffix(a, "-latest") {
				return nil, nil, fail("%s: alias %q must end in -latest", where, a)
			}
		}
		for _, n := range append([]string{m.Name}, m.Aliases...) {
			if other, dup := names[n]; dup {
				return nil, nil, fail("%s: the name %q is already used by %s", where, n, other)
			}
			names[n] = where
		}
		if m.ReleaseDate != "" {
			if _, err := time.Parse(time.DateOnly, m.ReleaseDate); err != nil {
				return nil, nil, fail("%s: release_date %q: want YYYY-MM-DD", where, m.ReleaseDate)
			}
		}
		if p := m.PricePerMillion; p != nil && (*p < 0 || math.IsInf(*p, 0) || math.IsNaN(*p)) {
			return nil, nil, fail("%s: price_per_million %v: want USD per million input tokens, at least 0", where, *p)
		}
		if len(m.Providers) == 0 {
			return nil, nil, fail("%s: providers: list at least one", where)
		}
		for j := range m.Providers {
			p := &m.Providers[j]
			at := fmt.Sprintf("%s.providers[%d]", where, j)
			if !slices.Contains(apis, p.API) {
				return nil, nil, fail("%s.api %q: want one of %s", at, p.API, strings.Join(apis, ", "))
			}
			if !settings.IsHTTPURL(p.BaseURL) {
				return nil, nil, fail("%s.base_url %q: want an absolute http(s) URL", at, p.BaseURL)
			}
			if strings.TrimSpace(p.Model) == "" {
				return nil, nil, fail("%s.model is required: the model name the provider serves", at)
			}
			if !envName.MatchString(p.APIKeyEnv) {
				return nil, nil, fail("%s.api_key_env %q: want the name of the environment variable that holds the key (keys never go in this file)", at, p.APIKeyEnv)
			}
			if p.APIKey = strings.TrimSpace(getenv(p.APIKeyEnv)); p.APIKey == "" {
				return nil, nil, fail("%s.api_key_env: %s is not set (local servers accept any non-empty value)", at, p.APIKeyEnv)
			}
			p.Source = fmt.Sprintf("%s provider %d (%s)", m.Name, j+1, p.API)
		}
	}
	aliases := make([]alias, 0, len(f.Aliases))
	for a, m := range f.Aliases {
		if strings.TrimSpace(a) == "" || strings.TrimSpace(m) == "" || strings.ContainsAny(a, " \t,=") {
			return nil, nil, fail("aliases: %q: %q: want alias: model, the alias without spaces, commas or =", a, m)
		}
		aliases = append(aliases, alias{a, m})
	}
	slices.SortFunc(aliases, func(x, y alias) int { return strings.Compare(x.Name, y.Name) })
	return f.Models, aliases, nil
}

// checkFields refuses mapping keys that t (a struct, through its yaml
// tags) does not have, naming the entry and the line, so a misspelt
// base_url is an error rather than a provider without an address.
func checkFields(n *yaml.Node, t reflect.Type, at string) error {
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			if err := checkFields(c, t, at); err != nil {
				return err
			}
		}
		return nil
	}
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode {
			for i, c := range n.Content {
				if err := checkFields(c, t.Elem(), fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
			return nil
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || n.Kind != yaml.MappingNode {
		return nil // a shape error, which decoding reports with its line
	}
	fields := map[string]reflect.Type{}
	var known []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag != "" && tag != "-" {
			fields[tag] = f.Type
			known = append(known, tag)
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, v := n.Content[i], n.Content[i+1]; k.Value == "name" && v.Kind == yaml.ScalarNode {
			at += fmt.Sprintf(" (%s)", v.Value)
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		ft, ok := fields[k.Value]
		if !ok {
			entry := at
			if entry == "" {
				entry = "the top level"
			}
			return fmt.Errorf("line %d: %s has no field %q (fields: %s)", k.Line, entry, k.Value, strings.Join(known, ", "))
		}
		if err := checkFields(v, ft, strings.TrimPrefix(at+"."+k.Value, ".")); err != nil {
			return err
		}
	}
	return nil
}
