package systemone

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/judgeworks/shared/tokens"
)

// Bounds of a request (docs/api.md, "Judge: POST /v1/systemone").
const (
	MinOptions = 2
	MaxOptions = 255
	MinLevels  = 2
	MaxLevels  = 10
	// MaxStateAndQuestionTokens bounds the state plus the longest question:
	// what one model call sees when questions are asked one at a time.
	MaxStateAndQuestionTokens = 32_000
	// MaxRequestTokens bounds the whole request: state plus every question.
	MaxRequestTokens = 64_000
)

// TokenCounter counts the tokens of a text. *tokens.Counter satisfies it.
type TokenCounter interface {
	Count(s string) int
}

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

// Validate checks every bound of docs/api.md, "Judge: POST /v1/systemone":
// a model, at least one question, non-empty question names, known types,
// 2–255 options and 2–10 levels with non-empty names, noul criteria, the
// shape of state, instructions and descriptions, and the token limits
// (state plus the longest question at most 32,000 tokens; the whole request
// at most 64,000). A nil count uses tokens.Default(). The error is a
// *ValidationError listing every problem.
func (r Request) Validate(count TokenCounter) error {
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
	if len(v.items) > 0 {
		// Token counts of a malformed request would only add noise.
		return v.err()
	}

	if count == nil {
		count = tokens.Default()
	}
	state := count.Count(ContentText(r.State))
	longest, total := 0, state
	for _, name := range names {
		n := r.Questions[name].countTokens(count, name)
		longest = max(longest, n)
		total += n
	}
	if state+longest > MaxStateAndQuestionTokens {
		v.add(fmt.Sprintf("state plus the longest question is %d tokens, more than the limit of %d",
			state+longest, MaxStateAndQuestionTokens), "too_long", "body", "state")
	}
	if total > MaxRequestTokens {
		v.add(fmt.Sprintf("the request is %d tokens, more than the limit of %d",
			total, MaxRequestTokens), "too_long", "body")
	}
	return v.err()
}

type validatedKey struct{}

// Validated returns ctx marked to say that req has passed Request.Validate
// with the caller's token counter, so that a backend which would validate
// it again (shared/chatadapter's Adapter) can skip the second pass: the
// judge validates every request before it reaches a backend, and counting
// the tokens of every question twice is the largest share of the adapter's
// own work per question after the HTTP call. The mark names req's questions
// (the map itself), so another request asked with the same context is
// still validated.
func Validated(ctx context.Context, req Request) context.Context {
	return context.WithValue(ctx, validatedKey{}, reflect.ValueOf(req.Questions).UnsafePointer())
}

// IsValidated reports whether ctx carries the mark Validated put there for req.
func IsValidated(ctx context.Context, req Request) bool {
	p, _ := ctx.Value(validatedKey{}).(unsafe.Pointer)
	return p != nil && p == reflect.ValueOf(req.Questions).UnsafePointer()
}

// CountTokens counts the input tokens of the request as Validate does: the
// state once plus every question (name, instructions, criteria).
func (r Request) CountTokens(count TokenCounter) int {
	if count == nil {
		count = tokens.Default()
	}
	n := count.Count(ContentText(r.State))
	for name, q := range r.Questions {
		n += q.countTokens(count, name)
	}
	return n
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

// countTokens counts what a model sees of one question: its name,
// instructions and criteria, one piece per line.
func (q Question) countTokens(count TokenCounter, name string) int {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('\n')
	b.WriteString(ContentText(q.Instructions))
	if q.Noul != nil {
		b.WriteByte('\n')
		b.WriteString(q.Noul.True)
		b.WriteByte('\n')
		b.WriteString(q.Noul.False)
	}
	for _, o := range q.Options {
		b.WriteByte('\n')
		b.WriteString(o.Name)
		if o.Description != nil {
			b.WriteString(": ")
			b.WriteString(ContentText(o.Description))
		}
	}
	for _, l := range q.Levels {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	return count.Count(b.String())
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
