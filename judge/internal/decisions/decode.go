package decisions

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/judgeworks/shared/jsonscan"
	"github.com/judgeworks/shared/systemone"
)

// Decode reads a Decisions request of at most maxQuestions questions and
// translates it. Every problem is reported with its field path in the
// caller's terms, as a *systemone.ValidationError; a body that is not JSON
// at all is a *systemone.SyntaxError (a 400).
func Decode(body []byte, maxQuestions int) (*Translation, error) {
	d := &Translation{}
	p := &parser{}
	if !json.Valid(body) {
		return nil, &systemone.SyntaxError{Msg: "the body is not valid JSON"}
	}
	top := p.object(body, []string{"body"}, "input", "model", "questions",
		"prompt_cache_key", "safety_identifier", "prompt_cache_options")
	if top == nil {
		return nil, p.Err()
	}
	// prompt_cache_key, safety_identifier and prompt_cache_options are
	// accepted and ignored: the judge caches nothing across requests and
	// keeps no per-end-user record. Their shapes are still checked.
	p.str(top, "prompt_cache_key", []string{"body"}, false)
	p.str(top, "safety_identifier", []string{"body"}, false)
	if raw, ok := present(top, "prompt_cache_options"); ok {
		opts := p.object(raw, []string{"body", "prompt_cache_options"}, "mode", "ttl")
		p.str(opts, "mode", []string{"body", "prompt_cache_options"}, false)
		p.str(opts, "ttl", []string{"body", "prompt_cache_options"}, false)
	}
	d.Request.Model, _ = p.str(top, "model", []string{"body"}, true)
	d.Request.State = p.input(top["input"])
	d.Request.Questions = map[string]systemone.Question{}

	qloc := []string{"body", "questions"}
	raws, isArray := p.array(top, "questions", []string{"body"})
	switch n := len(raws); {
	case !isArray:
	case n == 0:
		p.Add("at least one question is required", "too_short", qloc...)
	case n > maxQuestions:
		p.Add(fmt.Sprintf("at most %d questions per request, got %d", maxQuestions, n), "too_long", qloc...)
		return nil, p.Err()
	}
	named := map[string]int{}
	asked := make([]systemone.Question, len(raws))
	refused := make([]bool, len(raws))
	for i, raw := range raws {
		var q question
		q, asked[i], refused[i] = p.question(raw, at(qloc, strconv.Itoa(i)))
		if q.name != nil {
			if j, dup := named[*q.name]; dup {
				p.Add(fmt.Sprintf("question name %q is also the name of question %d", *q.name, j), "value_error",
					at(qloc, strconv.Itoa(i), "name")...)
			}
			named[*q.name] = i
		}
		d.questions = append(d.questions, q)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	// The engine's keys: the caller's name, else a positional name that no
	// given name takes. Engines never show names to a model.
	for i := range d.questions {
		q := &d.questions[i]
		if refused[i] {
			continue
		}
		if q.name != nil {
			q.key = *q.name
		} else {
			q.key = "#" + strconv.Itoa(i)
			for _, taken := named[q.key]; taken; _, taken = named[q.key] {
				q.key += "#"
			}
		}
		d.Request.Questions[q.key] = asked[i]
	}
	return d, nil
}

// question reads one question. refused is true when the engines cannot
// answer it (its instructions hold an image); it is still checked.
func (p *parser) question(raw json.RawMessage, loc []string) (q question, sq systemone.Question, refused bool) {
	obj := p.object(raw, loc, "type", "name", "instructions", "choices", "levels")
	if obj == nil {
		return q, sq, true
	}
	if name, ok := p.str(obj, "name", loc, false); ok {
		if strings.TrimSpace(name) == "" {
			p.Add("name must not be empty; leave it out for an unnamed question", "string_too_short", at(loc, "name")...)
		}
		q.name = &name
	}
	q.kind, _ = p.str(obj, "type", loc, true)
	var images bool
	sq.Instructions, images = p.content(obj["instructions"], at(loc, "instructions"), questionParts)
	for _, f := range [][2]string{{"choices", "choice"}, {"levels", "score"}} {
		if field, kind := f[0], f[1]; !isAbsent(obj, field) && q.kind != kind {
			p.Add(fmt.Sprintf("%s belongs to %s questions only", field, kind), "extra_forbidden", at(loc, field)...)
		}
	}
	switch q.kind {
	case "predicate":
		sq.Type = systemone.TypeNoul
	case "choice":
		sq.Type = systemone.TypeChoice
		p.choices(obj, loc, &q, &sq)
	case "score":
		sq.Type = systemone.TypeScore
		p.levels(obj, loc, &q, &sq)
	case "":
	default:
		p.Add(fmt.Sprintf("unknown question type %q: predicate, choice or score", q.kind), "enum", at(loc, "type")...)
	}
	return q, sq, images
}

// bounded reads the array member key of obj (loc), a kind question's
// choices or levels, noting a count outside least to most; it returns the
// members and their path.
func (p *parser) bounded(obj map[string]json.RawMessage, key string, loc []string, kind string, least, most int) ([]json.RawMessage, []string, bool) {
	raws, ok := p.array(obj, key, loc)
	if !ok {
		return nil, nil, false
	}
	aloc := at(loc, key)
	if n := len(raws); n < least || n > most {
		p.Add(fmt.Sprintf("a %s question takes %d to %d %s, got %d", kind, least, most, key, n),
			map[bool]string{true: "too_short", false: "too_long"}[n < least], aloc...)
	}
	return raws, aloc, true
}

func (p *parser) choices(obj map[string]json.RawMessage, loc []string, q *question, sq *systemone.Question) {
	raws, cloc, ok := p.bounded(obj, "choices", loc, "choice", systemone.MinOptions, systemone.MaxOptions)
	if !ok {
		return
	}
	type first struct {
		j      int
		isBool bool
	}
	seen := map[string]first{}
	for j, raw := range raws {
		oloc := at(cloc, strconv.Itoa(j))
		obj := p.object(raw, oloc, "value", "description")
		if obj == nil {
			continue
		}
		var value any
		var name string
		switch v := obj["value"]; jsonscan.Kind(v) {
		case '"':
			_ = json.Unmarshal(v, &name)
			value = name
			if strings.TrimSpace(name) == "" {
				p.Add("a choice value must not be empty", "string_too_short", at(oloc, "value")...)
			}
		case 't', 'f':
			var b bool
			_ = json.Unmarshal(v, &b)
			value, name = b, strconv.FormatBool(b)
		case 0, 'n':
			p.Add("field required", "missing", at(oloc, "value")...)
			continue
		default:
			p.Add("a choice value must be a string or a boolean", "value_error", at(oloc, "value")...)
			continue
		}
		_, isBool := value.(bool)
		if f, dup := seen[name]; dup {
			msg := fmt.Sprintf("each choice must be unique: this repeats choice %d", f.j)
			if isBool != f.isBool {
				// Typed values are distinct to the API, but a model reads
				// only their text.
				msg = fmt.Sprintf("choice %d has the same text as choice %d, one a string and the other a boolean: a model cannot tell them apart", j, f.j)
			}
			p.Add(msg, "value_error", at(oloc, "value")...)
		} else {
			seen[name] = first{j, isBool}
		}
		desc, _ := p.str(obj, "description", oloc, false)
		o := systemone.Option{Name: name, Description: json.RawMessage("null")}
		if desc != "" {
			o.Description, _ = json.Marshal(desc)
		}
		q.values = append(q.values, value)
		q.options = append(q.options, name)
		sq.Options = append(sq.Options, o)
	}
}

func (p *parser) levels(obj map[string]json.RawMessage, loc []string, q *question, sq *systemone.Question) {
	raws, lloc, ok := p.bounded(obj, "levels", loc, "score", systemone.MinLevels, systemone.MaxLevels)
	if !ok {
		return
	}
	for j, raw := range raws {
		iloc := at(lloc, strconv.Itoa(j))
		obj := p.object(raw, iloc, "label", "description")
		label, _ := p.str(obj, "label", iloc, true)
		if obj != nil && strings.TrimSpace(label) == "" {
			p.Add("a level label must not be empty", "string_too_short", at(iloc, "label")...)
		}
		// The engine reads a level as one text: the label, then what it
		// means.
		text := label
		if desc, _ := p.str(obj, "description", iloc, false); strings.TrimSpace(desc) != "" {
			text += ": " + desc
		}
		q.labels = append(q.labels, label)
		sq.Levels = append(sq.Levels, systemone.Text(text))
	}
}

// partKinds say which content parts a place accepts, by type, with their
// fields beside "type".
type partKinds map[string][]string

var (
	// userParts: a user message's content and the input's.
	userParts = partKinds{
		"input_text":  {"text", "prompt_cache_breakpoint"},
		"input_image": {"image_url", "detail", "prompt_cache_breakpoint"},
		"input_json":  {"data"},
	}
	textParts      = partKinds{"input_text": {"text", "prompt_cache_breakpoint"}}
	assistantParts = partKinds{"output_text": {"text"}, "refusal": {"refusal"}}
	toolParts      = partKinds{
		"input_text":  {"text", "prompt_cache_breakpoint"},
		"input_image": {"image_url", "detail", "prompt_cache_breakpoint"},
	}
	questionParts = partKinds{
		"input_text":  {"text"},
		"input_image": {"image_url", "detail"},
		"input_json":  {"data"},
	}
)

// content reads a string or a list of parts, returning it as System One
// content: the string itself; parts that are all text as one string, one
// part per paragraph; otherwise a JSON array of the texts and the JSON
// data, in order. images reports whether an image part was given (its
// place decides what that means).
func (p *parser) content(raw json.RawMessage, loc []string, kinds partKinds) (out json.RawMessage, images bool) {
	switch jsonscan.Kind(raw) {
	case 0:
		p.Add("field required", "missing", loc...)
		return nil, false
	case '"':
		return jsonscan.Compact(raw), false
	case '[':
	default:
		p.Add("must be a string or an array of content parts", "value_error", loc...)
		return nil, false
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(raw, &raws)
	if len(raws) == 0 {
		p.Add("at least one content part is required", "too_short", loc...)
		return nil, false
	}
	var parts []any
	allText := true
	for j, part := range raws {
		ploc := at(loc, strconv.Itoa(j))
		typ := partType(part)
		fields, known := kinds[typ]
		if !known {
			p.Add(fmt.Sprintf("unknown or misplaced part type %q: here %s", typ, kinds.names()), "enum", at(ploc, "type")...)
			continue
		}
		obj := p.object(part, ploc, append([]string{"type"}, fields...)...)
		if obj == nil {
			continue
		}
		switch typ {
		case "input_text", "output_text":
			text, _ := p.str(obj, "text", ploc, true)
			parts = append(parts, text)
		case "refusal":
			text, _ := p.str(obj, "refusal", ploc, true)
			parts = append(parts, map[string]string{"refusal": text})
			allText = false
		case "input_json":
			data := obj["data"]
			if k := jsonscan.Kind(data); k != '{' && k != '[' {
				p.Add("data must be a JSON object or array", "value_error", at(ploc, "data")...)
				continue
			}
			parts = append(parts, jsonscan.Compact(data))
			allText = false
		case "input_image":
			p.str(obj, "image_url", ploc, true)
			images = true
		}
	}
	if allText {
		texts := make([]string, len(parts))
		for i, t := range parts {
			texts[i] = t.(string)
		}
		out, _ = json.Marshal(strings.Join(texts, "\n\n"))
		return out, images
	}
	out, _ = json.Marshal(parts)
	return out, images
}

func (k partKinds) names() string {
	var out []string
	for _, n := range []string{"input_text", "input_image", "input_json", "output_text", "refusal"} {
		if _, ok := k[n]; ok {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

func partType(raw json.RawMessage) string {
	var t struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &t)
	return t.Type
}

// imageMsg is what an image in the input is told: the input is every
// question's, so no question could be answered.
const imageMsg = "the models of this judge do not read images: send the text, or the data as input_json"

// input reads the input: a string, or a list of messages, function calls
// and tool outputs. It returns the System One state: the string; the text
// of a lone user message; otherwise a JSON array with one entry per item
// (messages as {role, content}, calls and outputs with their fields).
func (p *parser) input(raw json.RawMessage) json.RawMessage {
	loc := []string{"body", "input"}
	switch jsonscan.Kind(raw) {
	case 0:
		p.Add("field required", "missing", loc...)
		return nil
	case '"':
		return jsonscan.Compact(raw)
	case '[':
	default:
		p.Add("input must be a string or an array of messages", "value_error", loc...)
		return nil
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(raw, &raws)
	if len(raws) == 0 {
		p.Add("at least one input item is required", "too_short", loc...)
		return nil
	}
	items := make([]any, 0, len(raws))
	calls := map[string]bool{} // kind + call_id of the calls seen so far
	var lone json.RawMessage   // the content of a lone user message
	for i, r := range raws {
		iloc := at(loc, strconv.Itoa(i))
		switch typ := partType(r); typ {
		case "", "message":
			obj := p.object(r, iloc, "type", "role", "content", "phase")
			if obj == nil {
				continue
			}
			role, _ := p.str(obj, "role", iloc, true)
			p.str(obj, "phase", iloc, false)
			kinds := map[string]partKinds{"user": userParts, "developer": textParts, "system": textParts, "assistant": assistantParts}[role]
			if kinds == nil {
				if role != "" {
					p.Add(fmt.Sprintf("unknown role %q: user, developer, system or assistant", role), "enum", at(iloc, "role")...)
				}
				continue
			}
			content, images := p.content(obj["content"], at(iloc, "content"), kinds)
			if images {
				p.Add(imageMsg, "image_unsupported", at(iloc, "content")...)
			}
			if role == "user" && len(raws) == 1 && jsonscan.Kind(content) == '"' {
				lone = content
			}
			items = append(items, map[string]any{"role": role, "content": content})
		case "function_call", "custom_tool_call":
			arg := map[string]string{"function_call": "arguments", "custom_tool_call": "input"}[typ]
			obj := p.object(r, iloc, "type", "call_id", "name", arg, "id", "namespace", "status")
			if obj == nil {
				continue
			}
			id, _ := p.str(obj, "call_id", iloc, true)
			name, _ := p.str(obj, "name", iloc, true)
			val, _ := p.str(obj, arg, iloc, true)
			p.str(obj, "id", iloc, false)
			p.str(obj, "namespace", iloc, false)
			p.str(obj, "status", iloc, false)
			calls[typ+"\x00"+id] = true
			items = append(items, map[string]string{"type": typ, "call_id": id, "name": name, arg: val})
		case "function_call_output", "custom_tool_call_output":
			obj := p.object(r, iloc, "type", "call_id", "output", "id", "status")
			if obj == nil {
				continue
			}
			id, _ := p.str(obj, "call_id", iloc, true)
			p.str(obj, "id", iloc, false)
			p.str(obj, "status", iloc, false)
			if call := strings.TrimSuffix(typ, "_output"); id != "" && !calls[call+"\x00"+id] {
				p.Add(fmt.Sprintf("no earlier %s has call_id %q", call, id), "value_error", at(iloc, "call_id")...)
			}
			output, images := p.content(obj["output"], at(iloc, "output"), toolParts)
			if images {
				p.Add(imageMsg, "image_unsupported", at(iloc, "output")...)
			}
			items = append(items, map[string]any{"type": typ, "call_id": id, "output": output})
		default:
			p.Add(fmt.Sprintf("unknown input item type %q: message, function_call, function_call_output, custom_tool_call or custom_tool_call_output", typ),
				"enum", at(iloc, "type")...)
		}
	}
	if lone != nil {
		return lone
	}
	state, _ := json.Marshal(items)
	return state
}

// parser reads a request by hand, collecting every problem with its
// field path.
type parser struct {
	systemone.Problems
}

// object returns the members of raw, which must be an object with no keys
// but allowed; nil (with the problem noted) otherwise.
func (p *parser) object(raw json.RawMessage, loc []string, allowed ...string) map[string]json.RawMessage {
	if jsonscan.Kind(raw) != '{' {
		p.Add("must be an object", "dict_type", loc...)
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		p.Add("must be an object", "dict_type", loc...)
		return nil
	}
	// A repeated key is refused as /v1/systemone refuses it, rather than
	// letting the last one win.
	for _, k := range systemone.DuplicateKeys(raw) {
		p.Add("field given more than once", "value_error", at(loc, k)...)
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	// Sorted, so the same request always gets the same message.
	slices.Sort(unknown)
	for _, k := range unknown {
		p.Add("unknown field", "extra_forbidden", at(loc, k)...)
	}
	return m
}

func isAbsent(obj map[string]json.RawMessage, key string) bool {
	_, ok := present(obj, key)
	return !ok
}

// present reports the member key of obj unless it is absent or null.
func present(obj map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	raw, ok := obj[key]
	if !ok || jsonscan.Kind(raw) == 'n' {
		return nil, false
	}
	return raw, true
}

// str reads the string member key of obj (under loc); ok is false when it
// is absent or null, which is a problem only when required.
func (p *parser) str(obj map[string]json.RawMessage, key string, loc []string, required bool) (s string, ok bool) {
	if obj == nil {
		return "", false
	}
	raw, ok := present(obj, key)
	if !ok {
		if required {
			p.Add("field required", "missing", at(loc, key)...)
		}
		return "", false
	}
	if jsonscan.Kind(raw) != '"' || json.Unmarshal(raw, &s) != nil {
		p.Add("must be a string", "string_type", at(loc, key)...)
		return "", false
	}
	return s, true
}

// array reads the array member key of obj, which is required.
func (p *parser) array(obj map[string]json.RawMessage, key string, loc []string) ([]json.RawMessage, bool) {
	raw, ok := present(obj, key)
	if !ok {
		p.Add("field required", "missing", at(loc, key)...)
		return nil, false
	}
	var out []json.RawMessage
	if jsonscan.Kind(raw) != '[' || json.Unmarshal(raw, &out) != nil {
		p.Add("must be an array", "list_type", at(loc, key)...)
		return nil, false
	}
	return out, true
}

func at(loc []string, more ...string) []string {
	return append(append([]string(nil), loc...), more...)
}
