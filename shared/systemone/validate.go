package systemone

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Bounds of a request (docs/api.md, "Judge: POST /v1/systemone").
const (
	MinOptions = 2
	MaxOptions = 255
	MinLevels  = 2
	MaxLevels  = 10
)

// ValidationError lists every problem found in a request, each naming the
// field it concerns. The judge renders it as {"detail": [items…]} with
// status 422, the way FastAPI-based System One servers do.
type ValidationError struct {
	Items []ValidationItem
}

// ValidationItem is one problem: Loc is the field path starting at "body"
// (for example body, questions, team, criteria), Msg a human sentence and
// Type a stable machine-readable kind (missing, string_type, too_short…).
type ValidationItem struct {
	Loc  []string `json:"loc"`
	Msg  string   `json:"msg"`
	Type string   `json:"type"`
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Items))
	for i, it := range e.Items {
		parts[i] = strings.Join(it.Loc, ".") + ": " + it.Msg
	}
	return "invalid request: " + strings.Join(parts, "; ")
}

// validator collects problems; err is nil when there are none.
type validator struct {
	items []ValidationItem
}

func (v *validator) add(msg, typ string, loc ...string) {
	v.items = append(v.items, ValidationItem{Loc: loc, Msg: msg, Type: typ})
}

func (v *validator) err() error {
	if len(v.items) == 0 {
		return nil
	}
	return &ValidationError{Items: v.items}
}

// Validate checks the shape docs/api.md, "Judge: POST /v1/systemone",
// asks of a request: a model, at least one question, non-empty question
// names, known types, 2–255 options and 2–10 levels with non-empty names,
// noul criteria, and the shape of state, instructions and descriptions.
// The error is a *ValidationError listing every problem. A server adds
// its own limits (the judge's token limits, judge/internal/limits).
func (r Request) Validate() error {
	var v validator
	if strings.TrimSpace(r.Model) == "" {
		v.add("model must not be empty", "string_too_short", "body", "model")
	}
	switch {
	case r.State == nil:
		v.add("field required", "missing", "body", "state")
	case !isContent(r.State) || !json.Valid(r.State):
		v.add("state must be a JSON string, object or array", "value_error", "body", "state")
	}
	if len(r.Questions) == 0 {
		v.add("at least one question is required", "too_short", "body", "questions")
	}
	names := make([]string, 0, len(r.Questions))
	for name := range r.Questions {
		names = append(names, name)
	}
	// Sorted so the same request always gets the same error text.
	slices.Sort(names)
	for _, name := range names {
		r.Questions[name].validate(&v, name)
	}
	return v.err()
}

func (q Question) validate(v *validator, name string) {
	loc := []string{"body", "questions", name}
	if strings.TrimSpace(name) == "" {
		v.add("question name must not be empty", "string_too_short", loc...)
	}
	switch {
	case q.Instructions == nil:
		v.add("field required", "missing", at(loc, "instructions")...)
	case !isContent(q.Instructions) || !json.Valid(q.Instructions):
		v.add("instructions must be a JSON string, object or array", "value_error", at(loc, "instructions")...)
	}
	cloc := at(loc, "criteria")
	switch q.Type {
	case TypeNoul:
		if q.Options != nil || q.Levels != nil {
			v.add(`noul criteria must be an object with the keys "true" and "false"`, "dict_type", cloc...)
		}
	case TypeChoice:
		if q.Noul != nil || q.Levels != nil {
			v.add("choice criteria must be an object of option name to description", "dict_type", cloc...)
		}
		switch n := len(q.Options); {
		case n < MinOptions:
			v.add(fmt.Sprintf("a choice question needs at least %d options, got %d", MinOptions, n), "too_short", cloc...)
		case n > MaxOptions:
			v.add(fmt.Sprintf("a choice question allows at most %d options, got %d", MaxOptions, n), "too_long", cloc...)
		}
		seen := make(map[string]bool, len(q.Options))
		for _, o := range q.Options {
			oloc := at(cloc, o.Name)
			if strings.TrimSpace(o.Name) == "" {
				v.add("option name must not be empty", "string_too_short", oloc...)
			}
			if seen[o.Name] {
				v.add("option name given more than once", "value_error", oloc...)
			}
			seen[o.Name] = true
			if o.Description != nil && kindOf(o.Description) != kindNull &&
				(!isContent(o.Description) || !json.Valid(o.Description)) {
				v.add("an option description must be a JSON string, object, array or null", "value_error", oloc...)
			}
		}
	case TypeScore:
		if q.Noul != nil || q.Options != nil {
			v.add("score criteria must be an array of level texts, lowest first", "list_type", cloc...)
		}
		switch n := len(q.Levels); {
		case n < MinLevels:
			v.add(fmt.Sprintf("a score question needs at least %d levels, got %d", MinLevels, n), "too_short", cloc...)
		case n > MaxLevels:
			v.add(fmt.Sprintf("a score question allows at most %d levels, got %d", MaxLevels, n), "too_long", cloc...)
		}
		for i, l := range q.Levels {
			if strings.TrimSpace(l) == "" {
				v.add("level text must not be empty", "string_too_short", at(cloc, strconv.Itoa(i))...)
			}
		}
	default:
		v.add(unknownTypeMsg(q.Type), "enum", at(loc, "type")...)
	}
}

// ContentText is the text a model is shown for a content value (state,
// instructions, an option's description): a JSON string without its quotes
// and escapes, anything else as compact JSON. The token limits count it, and
// a prompt shows it.
func ContentText(raw json.RawMessage) string {
	if kindOf(raw) == kindString {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}
