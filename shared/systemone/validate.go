package systemone

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/judgeworks/shared/jsonscan"
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
// (for example body, questions, team, choice, criteria: a question's path
// names its type once the type is known), Msg a human sentence, Type a
// stable machine-readable kind (missing, string_type, too_short…) and
// Input the offending value, cut short (ShortInput); null when the problem
// is not one value's (a token limit).
type ValidationItem struct {
	Loc   []string        `json:"loc"`
	Msg   string          `json:"msg"`
	Type  string          `json:"type"`
	Input json.RawMessage `json:"input"`
}

// MaxInputBytes bounds the offending value a ValidationItem quotes.
const MaxInputBytes = 256

// ShortInput is raw as a ValidationItem quotes it: as it is when its
// compact JSON takes at most MaxInputBytes, else cut to about that many
// bytes and ended with "…": a string stays a string; an object or array
// becomes a string of the start of its JSON text. A value that is not
// valid JSON (or none) is null. Past the check of raw, its cost does not
// depend on raw's size: only the start of a long value is read.
func ShortInput(raw json.RawMessage) json.RawMessage {
	if kindOf(raw) == kindNone || !jsonscan.Valid(raw) {
		return json.RawMessage("null")
	}
	raw = bytes.TrimSpace(raw)
	if kindOf(raw) == kindString {
		return shortString(raw)
	}
	c, whole := jsonscan.CompactStart(raw, MaxInputBytes+utf8.UTFMax)
	if whole && len(c) <= MaxInputBytes {
		return c
	}
	return cutText(string(c))
}

// quotedStart is how much of a long value ShortInput reads: enough for
// MaxInputBytes of text however it is written (an escape is at most six
// bytes a character), with room for a cut inside a character.
const quotedStart = 6*(MaxInputBytes+8) + 2

// shortString is ShortInput of a valid JSON string: as it is when it is
// short, or when its text is (its escapes made it long); else its text
// cut. A long string is decoded from its start only, cut where no escape
// is split.
func shortString(raw json.RawMessage) json.RawMessage {
	if len(raw) <= MaxInputBytes {
		return raw
	}
	head := raw
	if len(raw) > quotedStart {
		i := 1
		for i < quotedStart {
			switch {
			case raw[i] != '\\':
				i++
			case raw[i+1] == 'u':
				i += 6
			default:
				i += 2
			}
		}
		head = append(raw[:i:i], '"')
	}
	var text string
	_ = json.Unmarshal(head, &text) // valid: a start of a valid string
	if len(raw) <= quotedStart && len(text) <= MaxInputBytes {
		return raw
	}
	return cutText(text)
}

// cutText is text cut at MaxInputBytes, at the start of a character, and
// ended with "…", as a JSON string.
func cutText(text string) json.RawMessage {
	cut := min(MaxInputBytes, len(text))
	for cut > 0 && cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut--
	}
	out, _ := json.Marshal(text[:cut] + "…")
	return out
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Items))
	for i, it := range e.Items {
		parts[i] = strings.Join(it.Loc, ".") + ": " + it.Msg
	}
	return "invalid request: " + strings.Join(parts, "; ")
}

// Problems collects the problems of a request, each with its field path,
// so that a decoder reports every problem at once instead of the first,
// up to MaxProblems; Err is nil when there are none. The zero value is
// ready to use. Every decoder of the judge's wire formats collects with it
// (the System One codec, judge/internal/decisions, the token limits).
type Problems struct {
	items []ValidationItem
}

// MaxProblems bounds the problems one error lists. Past it a last item
// (type too_many_problems) says the list stops there, and a decoder may
// stop reading (Full): a body of a hundred thousand wrong values would
// otherwise cost memory and time in proportion to list them, and an
// answer of megabytes.
const MaxProblems = 100

// Add adds a problem at loc that quotes no value.
func (v *Problems) Add(msg, typ string, loc ...string) {
	v.AddInput(msg, typ, nil, loc...)
}

// AddInput adds a problem at loc with the value it concerns (ShortInput).
// loc is copied.
func (v *Problems) AddInput(msg, typ string, input json.RawMessage, loc ...string) {
	switch {
	case v.Full():
		return
	case len(v.items) == MaxProblems:
		v.items = append(v.items, ValidationItem{Loc: []string{"body"}, Type: "too_many_problems", Input: json.RawMessage("null"),
			Msg: fmt.Sprintf("more than %d problems: the first %d are listed", MaxProblems, MaxProblems)})
		return
	}
	v.items = append(v.items, ValidationItem{Loc: append([]string(nil), loc...), Msg: msg, Type: typ, Input: ShortInput(input)})
}

// Full reports whether the list has reached MaxProblems and said so: more
// problems are not kept, and a decoder may stop reading.
func (v *Problems) Full() bool { return len(v.items) > MaxProblems }

// Err is the problems as a *ValidationError, or nil when there are none.
func (v *Problems) Err() error {
	if len(v.items) == 0 {
		return nil
	}
	return &ValidationError{Items: v.items}
}

// Validate checks the shape docs/api.md, "Judge: POST /v1/systemone",
// asks of a request: a model, at least one question, non-empty question
// names, known types, 2–255 options with non-empty unique names and 2–10
// levels, and the shape of state, instructions, meanings, descriptions
// and levels. The error is a *ValidationError listing every problem. A
// server adds its own limits (the judge's token limits,
// judge/internal/limits).
func (r Request) Validate() error {
	var v Problems
	if strings.TrimSpace(r.Model) == "" {
		v.Add("model must not be empty", "string_too_short", "body", "model")
	}
	switch {
	case r.State == nil:
		v.Add("field required", "missing", "body", "state")
	case !isContent(r.State) || !jsonscan.Valid(r.State):
		v.AddInput("state must be a JSON string, object or array", "value_error", r.State, "body", "state")
	}
	if len(r.Questions) == 0 {
		v.AddInput("at least one question is required", "too_short", json.RawMessage("{}"), "body", "questions")
	}
	// In the caller's order, so problems are listed as the questions were.
	names := r.QuestionNames()
	for _, name := range names {
		if v.Full() {
			break
		}
		r.Questions[name].validate(&v, name)
	}
	return v.Err()
}

func (q Question) validate(v *Problems, name string) {
	loc := []string{"body", "questions", name}
	if strings.TrimSpace(name) == "" {
		v.AddInput("question name must not be empty", "string_too_short", Text(name), loc...)
	}
	tloc := loc
	if q.Type.Known() {
		tloc = at(loc, string(q.Type))
	}
	if q.Instructions != nil && (!isContent(q.Instructions) || !jsonscan.Valid(q.Instructions)) {
		v.AddInput("instructions must be a JSON string, object, array or null", "value_error", q.Instructions, at(tloc, "instructions")...)
	}
	cloc := at(tloc, "criteria")
	criteria := func() json.RawMessage { return q.criteriaJSON() }
	switch q.Type {
	case TypeNoul:
		if q.Options != nil || q.Levels != nil {
			v.AddInput(`noul criteria must be an object with the keys "true" and "false", or null`, "dict_type", criteria(), cloc...)
		}
		if q.Noul != nil {
			validEntry(v, q.Noul.True, "the meaning", at(cloc, "true"))
			validEntry(v, q.Noul.False, "the meaning", at(cloc, "false"))
		}
	case TypeChoice:
		if q.Noul != nil || q.Levels != nil {
			v.AddInput("choice criteria must be an object of option name to description", "dict_type", criteria(), cloc...)
		}
		if n := len(q.Options); n < MinOptions || n > MaxOptions {
			optionCount(v, n, criteria(), cloc)
		}
		seen := make(map[string]bool, len(q.Options))
		for _, o := range q.Options {
			oloc := at(cloc, o.Name)
			if strings.TrimSpace(o.Name) == "" {
				v.AddInput("option name must not be empty", "string_too_short", Text(o.Name), oloc...)
			}
			if seen[o.Name] {
				v.AddInput("option name given more than once", "value_error", Text(o.Name), oloc...)
			}
			seen[o.Name] = true
			validEntry(v, o.Description, "an option description", oloc)
		}
	case TypeScore:
		if q.Noul != nil || q.Options != nil {
			v.AddInput("score criteria must be an array of levels, lowest first", "list_type", criteria(), cloc...)
		}
		if n := len(q.Levels); n < MinLevels || n > MaxLevels {
			levelCount(v, n, criteria(), cloc)
		}
		for i, l := range q.Levels {
			if !isContent(l) || !jsonscan.Valid(l) {
				v.AddInput(levelMsg, "value_error", l, at(cloc, strconv.Itoa(i))...)
			}
		}
	default:
		v.AddInput(unknownTypeMsg(q.Type), "enum", Text(string(q.Type)), at(loc, "type")...)
	}
}

// optionCount adds the problem of a choice question with n options,
// outside the bounds; criteria is quoted.
func optionCount(v *Problems, n int, criteria json.RawMessage, loc []string) {
	if n < MinOptions {
		v.AddInput(fmt.Sprintf("a choice question needs at least %d options, got %d", MinOptions, n), "too_short", criteria, loc...)
	} else {
		v.AddInput(fmt.Sprintf("a choice question allows at most %d options, got %d", MaxOptions, n), "too_long", criteria, loc...)
	}
}

// levelCount adds the problem of a score question with n levels, outside
// the bounds; criteria is quoted.
func levelCount(v *Problems, n int, criteria json.RawMessage, loc []string) {
	if n < MinLevels {
		v.AddInput(fmt.Sprintf("a score question needs at least %d levels, got %d", MinLevels, n), "too_short", criteria, loc...)
	} else {
		v.AddInput(fmt.Sprintf("a score question allows at most %d levels, got %d", MaxLevels, n), "too_long", criteria, loc...)
	}
}

// validEntry checks a value that may be a string, object, array or null
// (nil): one built in Go rather than decoded may hold anything.
func validEntry(v *Problems, raw json.RawMessage, what string, loc []string) {
	if raw != nil && kindOf(raw) != kindNull && (!isContent(raw) || !jsonscan.Valid(raw)) {
		v.AddInput(what+" must be a JSON string, object, array or null", "value_error", raw, loc...)
	}
}

// criteriaJSON is q's criteria as the wire has them, for error messages.
func (q Question) criteriaJSON() json.RawMessage {
	wire, _ := q.MarshalJSON()
	var w struct {
		Criteria json.RawMessage `json:"criteria"`
	}
	if json.Unmarshal(wire, &w) != nil {
		return nil
	}
	return w.Criteria
}

// ContentText is the text a model is shown for a content value (state,
// instructions, a meaning, an option's description, a level): a JSON
// string without its quotes and escapes, null or nothing as "", anything
// else as compact JSON. The judge's token limits count it, and every
// engine reads it.
func ContentText(raw json.RawMessage) string {
	if kindOf(raw) == kindNull {
		return ""
	}
	if s, ok := jsonscan.StringValue(raw); ok {
		return s
	}
	return string(raw)
}
