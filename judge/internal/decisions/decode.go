package decisions

import (
	"bytes"
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
	if jsonscan.Kind(body) != '{' && !jsonscan.Valid(body) {
		return nil, &systemone.SyntaxError{Msg: "the body is not valid JSON"}
	}
	// The walk of the top level is the body's one syntax check: every
	// value read below it is valid JSON, and each is read once per level
	// of the wire format.
	obj := p.object(body, []string{"body"}, "input", "model", "questions",
		"prompt_cache_key", "safety_identifier", "prompt_cache_options")
	if p.syntax != nil {
		return nil, &systemone.SyntaxError{Msg: "the body is not valid JSON: " + p.syntax.Error()}
	}
	if !obj.ok {
		return nil, p.Err()
	}
	top := &obj
	// prompt_cache_key, safety_identifier and prompt_cache_options are
	// accepted and ignored: the judge caches nothing across requests and
	// keeps no per-end-user record. Their shapes are still checked.
	p.str(top, "prompt_cache_key", []string{"body"}, false)
	p.str(top, "safety_identifier", []string{"body"}, false)
	if raw, ok := present(top, "prompt_cache_options"); ok {
		opts := p.object(raw, []string{"body", "prompt_cache_options"}, "mode", "ttl")
		p.str(&opts, "mode", []string{"body", "prompt_cache_options"}, false)
		p.str(&opts, "ttl", []string{"body", "prompt_cache_options"}, false)
	}
	d.Request.Model, _ = p.str(top, "model", []string{"body"}, true)
	d.Request.State = p.input(top.get("input"))
	d.Request.Questions = map[string]systemone.Question{}

	qloc := []string{"body", "questions"}
	raws, n, isArray := p.array(top, "questions", []string{"body"})
	switch {
	case !isArray:
	case n == 0:
		p.Add("at least one question is required", "too_short", qloc...)
	case n > maxQuestions:
		p.Add(fmt.Sprintf("at most %d questions per request, got %d", maxQuestions, n), "too_long", qloc...)
		return nil, p.Err()
	}
	named := map[string]int{}
	asked := make([]systemone.Question, n)
	refused := make([]bool, n)
	for i, raw := range elements(raws) {
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
	if !obj.ok {
		return q, sq, true
	}
	if name, ok := p.str(&obj, "name", loc, false); ok {
		if strings.TrimSpace(name) == "" {
			p.Add("name must not be empty; leave it out for an unnamed question", "string_too_short", at(loc, "name")...)
		}
		q.name = &name
	}
	q.kind, _ = p.str(&obj, "type", loc, true)
	var images bool
	sq.Instructions, images = p.content(obj.get("instructions"), at(loc, "instructions"), questionParts)
	for _, f := range [][2]string{{"choices", "choice"}, {"levels", "score"}} {
		if field, kind := f[0], f[1]; !isAbsent(&obj, field) && q.kind != kind {
			p.Add(fmt.Sprintf("%s belongs to %s questions only", field, kind), "extra_forbidden", at(loc, field)...)
		}
	}
	switch q.kind {
	case "predicate":
		sq.Type = systemone.TypeNoul
	case "choice":
		sq.Type = systemone.TypeChoice
		p.choices(&obj, loc, &q, &sq)
	case "score":
		sq.Type = systemone.TypeScore
		p.levels(&obj, loc, &q, &sq)
	case "":
	default:
		p.Add(fmt.Sprintf("unknown question type %q: predicate, choice or score", q.kind), "enum", at(loc, "type")...)
	}
	return q, sq, images
}

// bounded reads the array member key of obj (loc), a kind question's
// choices or levels, noting a count outside least to most; it returns the
// members and their path.
func (p *parser) bounded(obj *fields, key string, loc []string, kind string, least, most int) (json.RawMessage, []string, bool) {
	raws, n, ok := p.array(obj, key, loc)
	if !ok {
		return nil, nil, false
	}
	aloc := at(loc, key)
	if n < least || n > most {
		p.Add(fmt.Sprintf("a %s question takes %d to %d %s, got %d", kind, least, most, key, n),
			map[bool]string{true: "too_short", false: "too_long"}[n < least], aloc...)
		if n > most {
			// Past the bound the request is refused: its members are
			// not read, however many there are.
			return nil, aloc, false
		}
	}
	return raws, aloc, true
}

func (p *parser) choices(obj *fields, loc []string, q *question, sq *systemone.Question) {
	raws, cloc, ok := p.bounded(obj, "choices", loc, "choice", systemone.MinOptions, systemone.MaxOptions)
	if !ok {
		return
	}
	type first struct {
		j      int
		isBool bool
	}
	seen := map[string]first{}
	for j, raw := range elements(raws) {
		oloc := at(cloc, strconv.Itoa(j))
		if p.Full() {
			break
		}
		obj := p.object(raw, oloc, "value", "description")
		if !obj.ok {
			continue
		}
		var value any
		var name string
		switch v := obj.get("value"); jsonscan.Kind(v) {
		case '"':
			name, _ = jsonscan.StringValue(v)
			value = name
			if strings.TrimSpace(name) == "" {
				p.Add("a choice value must not be empty", "string_too_short", at(oloc, "value")...)
			}
		case 't', 'f':
			b := jsonscan.Kind(v) == 't'
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
		desc, _ := p.str(&obj, "description", oloc, false)
		o := systemone.Option{Name: name, Description: json.RawMessage("null")}
		if desc != "" {
			o.Description, _ = json.Marshal(desc)
		}
		q.values = append(q.values, value)
		q.options = append(q.options, name)
		sq.Options = append(sq.Options, o)
	}
}

func (p *parser) levels(obj *fields, loc []string, q *question, sq *systemone.Question) {
	raws, lloc, ok := p.bounded(obj, "levels", loc, "score", systemone.MinLevels, systemone.MaxLevels)
	if !ok {
		return
	}
	for j, raw := range elements(raws) {
		iloc := at(lloc, strconv.Itoa(j))
		obj := p.object(raw, iloc, "label", "description")
		label, _ := p.str(&obj, "label", iloc, true)
		if obj.ok && strings.TrimSpace(label) == "" {
			p.Add("a level label must not be empty", "string_too_short", at(iloc, "label")...)
		}
		// The engine reads a level as one text: the label, then what it
		// means.
		text := label
		if desc, _ := p.str(&obj, "description", iloc, false); strings.TrimSpace(desc) != "" {
			text += ": " + desc
		}
		q.labels = append(q.labels, label)
		sq.Levels = append(sq.Levels, systemone.Text(text))
	}
}

// partKinds say which content parts a place accepts, by type, with their
// fields ("type" first).
type partKinds map[string][]string

var (
	// userParts: a user message's content and the input's.
	userParts = partKinds{
		"input_text":  {"type", "text", "prompt_cache_breakpoint"},
		"input_image": {"type", "image_url", "detail", "prompt_cache_breakpoint"},
		"input_json":  {"type", "data"},
	}
	textParts      = partKinds{"input_text": {"type", "text", "prompt_cache_breakpoint"}}
	assistantParts = partKinds{"output_text": {"type", "text"}, "refusal": {"type", "refusal"}}
	toolParts      = partKinds{
		"input_text":  {"type", "text", "prompt_cache_breakpoint"},
		"input_image": {"type", "image_url", "detail", "prompt_cache_breakpoint"},
	}
	questionParts = partKinds{
		"input_text":  {"type", "text"},
		"input_image": {"type", "image_url", "detail"},
		"input_json":  {"type", "data"},
	}
)

// partFields are the fields of every kind of content part.
var partFields = []string{"type", "text", "prompt_cache_breakpoint", "image_url", "detail", "data", "refusal"}

// content reads a string or a list of parts, returning it as System One
// content: the string itself; parts that are all text as one string, one
// part per paragraph; otherwise a JSON array of the texts, {"refusal":
// text} objects and JSON data, in order. images reports whether an image
// part was given (its place decides what that means). Both forms are
// written as the parts are read, as encoding/json writes them
// (HTML-escaped); nothing is kept per part.
func (p *parser) content(raw json.RawMessage, loc []string, kinds partKinds) (out json.RawMessage, images bool) {
	switch jsonscan.Kind(raw) {
	case 0:
		p.Add("field required", "missing", loc...)
		return nil, false
	case '"':
		return jsonscan.CompactValid(raw), false
	case '[':
	default:
		p.Add("must be a string or an array of content parts", "value_error", loc...)
		return nil, false
	}
	var joined, list bytes.Buffer
	joined.WriteByte('"')
	list.WriteByte('[')
	n, texts, allText := 0, 0, true
	for j, part := range elements(raw) {
		if n++; p.Full() {
			break // refused already: the rest is not read
		}
		ploc := at(loc, strconv.Itoa(j))
		obj := p.members(part, ploc, partFields...)
		if !obj.ok {
			continue
		}
		typ, _ := jsonscan.StringValue(obj.get("type"))
		fields, known := kinds[typ]
		if !known {
			p.Add(fmt.Sprintf("unknown or misplaced part type %q: here %s", typ, kinds.names()), "enum", at(ploc, "type")...)
			continue
		}
		p.allow(&obj, ploc, fields...)
		next := func() {
			if list.Len() > 1 {
				list.WriteByte(',')
			}
		}
		switch typ {
		case "input_text", "output_text":
			text, _ := p.str(&obj, "text", ploc, true)
			quoted, _ := json.Marshal(text)
			if texts++; texts > 1 {
				joined.WriteString(`\n\n`)
			}
			joined.Write(quoted[1 : len(quoted)-1])
			next()
			list.Write(quoted)
		case "refusal":
			text, _ := p.str(&obj, "refusal", ploc, true)
			quoted, _ := json.Marshal(text)
			next()
			list.WriteString(`{"refusal":`)
			list.Write(quoted)
			list.WriteByte('}')
			allText = false
		case "input_json":
			data := obj.get("data")
			if k := jsonscan.Kind(data); k != '{' && k != '[' {
				p.Add("data must be a JSON object or array", "value_error", at(ploc, "data")...)
				continue
			}
			next()
			json.HTMLEscape(&list, jsonscan.CompactValid(data))
			allText = false
		case "input_image":
			p.str(&obj, "image_url", ploc, true)
			images = true
		}
	}
	if n == 0 {
		p.Add("at least one content part is required", "too_short", loc...)
		return nil, false
	}
	if allText {
		joined.WriteByte('"')
		return joined.Bytes(), images
	}
	list.WriteByte(']')
	return list.Bytes(), images
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
		return jsonscan.CompactValid(raw)
	case '[':
	default:
		p.Add("input must be a string or an array of messages", "value_error", loc...)
		return nil
	}
	var state state
	calls := map[string]bool{} // kind + call_id of the calls seen so far
	var lone json.RawMessage   // the content of a first item that is a user's text
	n := 0
	for i, r := range elements(raw) {
		if n++; p.Full() {
			break // refused already: the rest is not read
		}
		iloc := at(loc, strconv.Itoa(i))
		obj := p.members(r, iloc, itemFields...)
		if !obj.ok {
			continue
		}
		switch typ, _ := jsonscan.StringValue(obj.get("type")); typ {
		case "", "message":
			p.allow(&obj, iloc, "type", "role", "content", "phase")
			role, _ := p.str(&obj, "role", iloc, true)
			p.str(&obj, "phase", iloc, false)
			kinds := roleParts(role)
			if kinds == nil {
				if role != "" {
					p.Add(fmt.Sprintf("unknown role %q: user, developer, system or assistant", role), "enum", at(iloc, "role")...)
				}
				continue
			}
			content, images := p.content(obj.get("content"), at(iloc, "content"), kinds)
			if images {
				p.Add(imageMsg, "image_unsupported", at(iloc, "content")...)
			}
			if role == "user" && i == 0 && jsonscan.Kind(content) == '"' {
				lone = content
			}
			state.item(jsonMember("content", content), textMember("role", role))
		case "function_call", "custom_tool_call":
			arg := "arguments"
			if typ == "custom_tool_call" {
				arg = "input"
			}
			p.allow(&obj, iloc, "type", "call_id", "name", arg, "id", "namespace", "status")
			id, _ := p.str(&obj, "call_id", iloc, true)
			name, _ := p.str(&obj, "name", iloc, true)
			val, _ := p.str(&obj, arg, iloc, true)
			p.str(&obj, "id", iloc, false)
			p.str(&obj, "namespace", iloc, false)
			p.str(&obj, "status", iloc, false)
			calls[typ+"\x00"+id] = true
			if typ == "function_call" {
				state.item(textMember("arguments", val), textMember("call_id", id), textMember("name", name), textMember("type", typ))
			} else {
				state.item(textMember("call_id", id), textMember("input", val), textMember("name", name), textMember("type", typ))
			}
		case "function_call_output", "custom_tool_call_output":
			p.allow(&obj, iloc, "type", "call_id", "output", "id", "status")
			id, _ := p.str(&obj, "call_id", iloc, true)
			p.str(&obj, "id", iloc, false)
			p.str(&obj, "status", iloc, false)
			if call := strings.TrimSuffix(typ, "_output"); id != "" && !calls[call+"\x00"+id] {
				p.Add(fmt.Sprintf("no earlier %s has call_id %q", call, id), "value_error", at(iloc, "call_id")...)
			}
			output, images := p.content(obj.get("output"), at(iloc, "output"), toolParts)
			if images {
				p.Add(imageMsg, "image_unsupported", at(iloc, "output")...)
			}
			state.item(textMember("call_id", id), jsonMember("output", output), textMember("type", typ))
		default:
			p.Add(fmt.Sprintf("unknown input item type %q: message, function_call, function_call_output, custom_tool_call or custom_tool_call_output", typ),
				"enum", at(iloc, "type")...)
		}
	}
	if n == 0 {
		p.Add("at least one input item is required", "too_short", loc...)
		return nil
	}
	if n == 1 && lone != nil {
		return lone
	}
	return state.end()
}

// itemFields are the fields of every kind of input item.
var itemFields = []string{"type", "role", "content", "phase", "call_id", "name", "arguments", "input", "id", "namespace", "status", "output"}

// roleParts are the content parts a message of role may hold; nil for
// an unknown role.
func roleParts(role string) partKinds {
	switch role {
	case "user":
		return userParts
	case "developer", "system":
		return textParts
	case "assistant":
		return assistantParts
	}
	return nil
}

// state is the System One state of an input list, written as it is read:
// a JSON array of one object per item, its members in name order, written
// as encoding/json writes a map of them (HTML-escaped), with no value
// kept per item.
type state struct {
	bytes.Buffer
	n int
}

// member is one member of an item: JSON (null when nil), or a text.
type member struct {
	name   string
	json   json.RawMessage
	text   string
	isJSON bool
}

func jsonMember(name string, v json.RawMessage) member {
	return member{name: name, json: v, isJSON: true}
}
func textMember(name, v string) member { return member{name: name, text: v} }

func (s *state) item(members ...member) {
	if s.n++; s.n == 1 {
		s.WriteByte('[')
	} else {
		s.WriteByte(',')
	}
	for i, m := range members {
		if i == 0 {
			s.WriteByte('{')
		} else {
			s.WriteByte(',')
		}
		s.WriteString(`"` + m.name + `":`)
		switch {
		case !m.isJSON:
			quoted, _ := json.Marshal(m.text)
			s.Write(quoted)
		case m.json != nil:
			json.HTMLEscape(&s.Buffer, m.json) // compact already
		default:
			s.WriteString("null")
		}
	}
	s.WriteByte('}')
}

func (s *state) end() json.RawMessage {
	if s.n == 0 {
		return json.RawMessage("null")
	}
	s.WriteByte(']')
	return s.Bytes()
}

// parser reads a request by hand, collecting every problem with its
// field path.
type parser struct {
	systemone.Problems
	syntax error // the body is not JSON
}

// object reads raw, which must be an object with no keys but allowed;
// fields not ok (with the problem noted) otherwise.
func (p *parser) object(raw json.RawMessage, loc []string, allowed ...string) fields {
	f := p.members(raw, loc, allowed...)
	p.allow(&f, loc, allowed...)
	return f
}

// members reads raw, which must be an object, keeping its values of names
// (at most 16) by position, with no map per object: a body of a hundred
// thousand small objects costs no memory for them. Other keys are kept
// for allow, up to the most problems a request lists. A syntax error
// (only the body's top level can have one) is kept in p.syntax.
func (p *parser) members(raw json.RawMessage, loc []string, names ...string) fields {
	var f fields
	f.n = copy(f.names[:], names)
	if jsonscan.Kind(raw) != '{' {
		p.Add("must be an object", "dict_type", loc...)
		return f
	}
	f.ok = true
	err := jsonscan.Scan(raw, func(s *jsonscan.Scanner) {
		s.Object("object", func(k []byte) {
			i := fieldIndex(k, names)
			switch {
			case i >= 0 && f.vals[i] == nil:
				f.vals[i] = s.Raw()
				return
			case i >= 0:
				f.dups = append(f.dups, names[i])
			case len(f.others) <= systemone.MaxProblems:
				// Past that many the request is refused without them.
				f.others = append(f.others, jsonscan.Unquote(k))
			}
			s.Skip()
		})
	})
	if err != nil && p.syntax == nil {
		p.syntax = err
	}
	return f
}

// allow notes the problems of f, read by members, as an object of the
// allowed keys: a key given twice (refused as /v1/systemone refuses it,
// rather than letting the last one win), a key not allowed.
func (p *parser) allow(f *fields, loc []string, allowed ...string) {
	if !f.ok {
		return
	}
	for _, k := range f.dups {
		if slices.Contains(allowed, k) {
			p.Add("field given more than once", "value_error", at(loc, k)...)
		}
	}
	unknown := f.others
	for i, v := range f.vals[:f.n] {
		if v != nil && !slices.Contains(allowed, f.names[i]) {
			unknown = append(unknown, f.names[i])
			if slices.Contains(f.dups, f.names[i]) {
				unknown = append(unknown, f.names[i])
			}
		}
	}
	// Sorted, so the same request always gets the same message.
	slices.Sort(unknown)
	for i, k := range unknown {
		if i > 0 && k == unknown[i-1] {
			p.Add("field given more than once", "value_error", at(loc, k)...)
			continue
		}
		p.Add("unknown field", "extra_forbidden", at(loc, k)...)
	}
}

// fields are the members of an object read by members: its value of each
// name, by the name's position (nil when absent), the names given twice,
// and the other keys. The names are copied, so that the caller's list
// stays on its stack.
type fields struct {
	names  [16]string
	vals   [16]json.RawMessage
	n      int
	dups   []string
	others []string
	ok     bool // false: the value was not an object
}

func (f *fields) get(key string) json.RawMessage {
	if i := slices.Index(f.names[:f.n], key); i >= 0 {
		return f.vals[i]
	}
	return nil
}

// fieldIndex is the position in names of the key k as the scanner passed
// it (escapes unresolved), or -1.
func fieldIndex(k []byte, names []string) int {
	if bytes.IndexByte(k, '\\') < 0 {
		for i, name := range names {
			if string(k) == name {
				return i
			}
		}
		return -1
	}
	return slices.Index(names, jsonscan.Unquote(k))
}

// elements yields each element of the valid JSON array raw with its
// index, in one pass; the elements alias raw. Nothing is kept per
// element: a body of a hundred thousand tiny elements costs no memory
// for them.
func elements(raw json.RawMessage) func(yield func(int, json.RawMessage) bool) {
	return func(yield func(int, json.RawMessage) bool) {
		i, more := 0, true
		_ = jsonscan.Scan(raw, func(s *jsonscan.Scanner) {
			s.Array("array", func() {
				if !more {
					s.Skip()
					return
				}
				more = yield(i, s.Raw())
				i++
			})
		})
	}
}

// count is the number of elements of the valid JSON array raw.
func count(raw json.RawMessage) int {
	n := 0
	for range elements(raw) {
		n++
	}
	return n
}

func isAbsent(obj *fields, key string) bool {
	_, ok := present(obj, key)
	return !ok
}

// present reports the member key of obj unless it is absent or null.
func present(obj *fields, key string) (json.RawMessage, bool) {
	raw := obj.get(key)
	if raw == nil || jsonscan.Kind(raw) == 'n' {
		return nil, false
	}
	return raw, true
}

// str reads the string member key of obj (under loc); ok is false when it
// is absent or null, which is a problem only when required.
func (p *parser) str(obj *fields, key string, loc []string, required bool) (s string, ok bool) {
	if !obj.ok {
		return "", false
	}
	raw, ok := present(obj, key)
	if !ok {
		if required {
			p.Add("field required", "missing", at(loc, key)...)
		}
		return "", false
	}
	s, ok = jsonscan.StringValue(raw)
	if !ok {
		p.Add("must be a string", "string_type", at(loc, key)...)
		return "", false
	}
	return s, true
}

// array reads the array member key of obj, which is required: the array
// and its length.
func (p *parser) array(obj *fields, key string, loc []string) (json.RawMessage, int, bool) {
	raw, ok := present(obj, key)
	if !ok {
		p.Add("field required", "missing", at(loc, key)...)
		return nil, 0, false
	}
	if jsonscan.Kind(raw) != '[' {
		p.Add("must be an array", "list_type", at(loc, key)...)
		return nil, 0, false
	}
	return raw, count(raw), true
}

// at is loc followed by more, in a new slice; with room for eight names
// on the caller's stack (systemone's at says why).
func at(loc []string, more ...string) []string {
	return append(append(make([]string, 0, 8), loc...), more...)
}
