package systemone

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/judgeworks/shared/jsonscan"
)

// The wire form of a Question is {type, instructions, criteria}; criteria
// changes shape with the type, which is why Question has its own codec.
// Choice options are decoded token by token because the caller's order is
// part of the meaning (option order in a prompt, order in a UI) and a Go map
// would lose it.

// DocumentField is the name an earlier draft of the System One API gave
// state; a request may use either name, never both.
const DocumentField = "document"

// DecodeRequest decodes the body of POST /v1/systemone. Unknown top-level
// fields are ignored, as lenient JSON APIs do; every value of a known field
// must have its documented shape. State may come as document, its older
// name. A body that is not JSON at all is a *SyntaxError; any other problem
// is reported as a *ValidationError naming the field path, with every
// problem found (up to MaxProblems), not only the first. Counts past the
// bounds of options and levels are refused before their values are read;
// the other bounds are checked by Validate.
func DecodeRequest(body []byte) (Request, error) { return Decoder{}.Decode(body) }

// Decoder decodes request bodies as DecodeRequest does, within the bounds
// a server sets.
type Decoder struct {
	// MaxQuestions, when above zero, refuses a body of more questions, as
	// a *ValidationError naming questions, before any question is read.
	MaxQuestions int
}

// Decode decodes the body of POST /v1/systemone (DecodeRequest).
//
// Time and memory are linear in the body's size whatever it holds: each
// value is read at most once per level of the wire format, what is kept
// is bounded by the bounds of the format, and reading stops once the
// body is refused for too many problems.
func (d Decoder) Decode(body []byte) (Request, error) {
	var req Request
	var v Problems
	if kindOf(body) != kindObject {
		if err := checkSyntax(body); err != nil {
			return req, &SyntaxError{Msg: err.Error()}
		}
		v.AddInput("the body must be a JSON object", "dict_type", body, "body")
		return req, v.Err()
	}
	// The walk of the top level is the body's one syntax check; the
	// values it returns are valid JSON, which the walks below read again
	// (at most once per level of the wire format).
	var buf [4]entry
	top, dups, _, err := objectEntries(body, buf[:0], 0, "model", "state", DocumentField, "questions")
	if err != nil {
		return req, &SyntaxError{Msg: syntaxMessage(body, err)}
	}
	seen := make(map[string]bool, len(top))
	for _, e := range top {
		seen[e.key] = true
	}
	for _, k := range dups {
		v.Add("field given more than once", "value_error", "body", k)
	}
	for _, e := range top {
		switch e.key {
		case "model":
			model, ok := jsonscan.StringValue(e.val)
			if !ok {
				v.AddInput("model must be a string", "string_type", e.val, "body", "model")
			}
			req.Model = model
		case "state", DocumentField:
			if e.key == DocumentField && seen["state"] {
				v.AddInput("document is the older name of state: give one of them, not both", "value_error", e.val, "body", DocumentField)
				continue
			}
			if !isContent(e.val) {
				v.AddInput(e.key+" must be a JSON string, object or array", "value_error", e.val, "body", e.key)
				continue
			}
			req.State = jsonscan.CompactValid(e.val)
		case "questions":
			req.Questions, req.Order = decodeQuestions(&v, e.val, d.MaxQuestions)
		}
	}
	if !seen["model"] {
		v.AddInput("field required", "missing", body, "body", "model")
	}
	if !seen["state"] && !seen[DocumentField] {
		v.AddInput("field required", "missing", body, "body", "state")
	}
	if !seen["questions"] {
		v.AddInput("field required", "missing", body, "body", "questions")
	}
	return req, v.Err()
}

// UnmarshalJSON decodes strictly, as DecodeRequest does.
func (r *Request) UnmarshalJSON(b []byte) error {
	req, err := DecodeRequest(b)
	if err != nil {
		return err
	}
	*r = req
	return nil
}

// decodeQuestions returns the questions by name and their names in the
// order they were sent; more than max (when above zero) is refused
// unread.
func decodeQuestions(v *Problems, raw json.RawMessage, max int) (map[string]Question, []string) {
	if kindOf(raw) != kindObject {
		v.AddInput("questions must be an object of question name to question", "dict_type", raw, "body", "questions")
		return nil, nil
	}
	var buf [8]entry
	entries, dups, n, _ := objectEntries(raw, buf[:0], max)
	if max > 0 && n > max {
		v.Add(fmt.Sprintf("at most %d questions per request, got %d", max, n), "too_long", "body", "questions")
		return nil, nil
	}
	for _, k := range dups {
		v.Add("question name given more than once", "value_error", "body", "questions", k)
	}
	qs := make(map[string]Question, len(entries))
	order := make([]string, len(entries))
	for i, e := range entries {
		if v.Full() {
			// Refused already: the other questions are not decoded.
			return qs, order[:i]
		}
		qs[e.key] = decodeQuestion(v, e.val, "body", "questions", e.key)
		order[i] = e.key
	}
	return qs, order
}

// UnmarshalJSON decodes the wire form {type, instructions, criteria}.
func (q *Question) UnmarshalJSON(b []byte) error {
	var v Problems
	if err := checkSyntax(b); err != nil {
		return err
	}
	dec := decodeQuestion(&v, b)
	if err := v.Err(); err != nil {
		return err
	}
	*q = dec
	return nil
}

// decodeQuestion reads one question at loc. As the service's OpenAPI
// document has it, instructions may be absent or null on every type, and
// once the type is known the path of every later problem names it
// (body, questions, q, score, criteria), as a tagged union's does.
func decodeQuestion(v *Problems, raw json.RawMessage, loc ...string) Question {
	var q Question
	if kindOf(raw) != kindObject {
		v.AddInput("a question must be an object with type, instructions and criteria", "dict_type", raw, loc...)
		return q
	}
	var buf [4]entry
	entries, _, _, _ := objectEntries(raw, buf[:0], 0, "type", "instructions", "criteria")
	var criteria, instructions json.RawMessage
	var haveType, typeOK bool
	for _, e := range entries {
		switch e.key {
		case "type":
			haveType = true
			s, ok := jsonscan.StringValue(e.val)
			if !ok {
				v.AddInput("type must be a string", "string_type", e.val, at(loc, "type")...)
				continue
			}
			q.Type, typeOK = QuestionType(s), true
		case "instructions":
			instructions = e.val
		case "criteria":
			criteria = e.val
		}
	}
	if !haveType {
		v.AddInput("field required", "missing", raw, at(loc, "type")...)
	}
	tloc := loc
	if q.Type.Known() {
		tloc = at(loc, string(q.Type))
	}
	switch kindOf(instructions) {
	case kindNone, kindNull:
	case kindString, kindObject, kindArray:
		q.Instructions = jsonscan.CompactValid(instructions)
	default:
		v.AddInput("instructions must be a JSON string, object, array or null", "value_error", instructions, at(tloc, "instructions")...)
	}
	cloc := at(tloc, "criteria")
	switch q.Type {
	case TypeNoul:
		q.Noul = decodeNoulCriteria(v, criteria, cloc)
	case TypeChoice:
		q.Options = decodeOptions(v, criteria, cloc)
	case TypeScore:
		q.Levels = decodeLevels(v, criteria, cloc)
	default:
		if typeOK {
			v.AddInput(unknownTypeMsg(q.Type), "enum", []byte(strconv.Quote(string(q.Type))), at(loc, "type")...)
		}
	}
	return q
}

// Known reports whether t is noul, choice or score.
func (t QuestionType) Known() bool {
	return t == TypeNoul || t == TypeChoice || t == TypeScore
}

func unknownTypeMsg(t QuestionType) string {
	return fmt.Sprintf("type must be one of noul, choice, score (got %q)", string(t))
}

// decodeNoulCriteria reads a noul question's optional criteria: absent or
// null, or an object whose keys true and false are each optional and a
// string, object, array or null. Other keys are ignored, as the service
// ignores them.
func decodeNoulCriteria(v *Problems, raw json.RawMessage, loc []string) *NoulCriteria {
	switch kindOf(raw) {
	case kindNone, kindNull:
		return nil
	case kindObject:
	default:
		v.AddInput(`noul criteria must be an object with the keys "true" and "false", or null`, "dict_type", raw, loc...)
		return nil
	}
	var buf [2]entry
	entries, dups, _, _ := objectEntries(raw, buf[:0], 0, "true", "false")
	for _, k := range dups {
		v.Add("key given more than once", "value_error", at(loc, k)...)
	}
	var c NoulCriteria
	for _, e := range entries {
		dst := &c.False
		if e.key == "true" {
			dst = &c.True
		}
		*dst = decodeEntry(v, e.val, "the meaning", at(loc, e.key))
	}
	return &c
}

// decodeEntry reads a value that may be a string, object, array or null
// (a meaning, a description, a level): compacted, or nil for null.
func decodeEntry(v *Problems, raw json.RawMessage, what string, loc []string) json.RawMessage {
	switch kindOf(raw) {
	case kindNull:
		return nil
	case kindString, kindObject, kindArray:
		return jsonscan.CompactValid(raw)
	}
	v.AddInput(what+" must be a JSON string, object, array or null", "value_error", raw, loc...)
	return nil
}

// decodeLevel reads a score level: a string, object or array, compacted.
// Unlike a description or a meaning, a level may not be null (levelMsg).
func decodeLevel(v *Problems, raw json.RawMessage, loc []string) json.RawMessage {
	if isContent(raw) {
		return jsonscan.CompactValid(raw)
	}
	v.AddInput(levelMsg, "value_error", raw, loc...)
	return nil
}

// levelMsg refuses a level that is not text: an answer's legend echoes
// every level, and the System One SDKs refuse a legend holding a null as
// an invalid response, after the caller was charged for it. The hosted
// service refuses a null level too.
const levelMsg = "a level must be a JSON string, object or array (null is not a level)"

func decodeOptions(v *Problems, raw json.RawMessage, loc []string) []Option {
	switch kindOf(raw) {
	case kindNone:
		v.Add("field required", "missing", loc...)
		return nil
	case kindObject:
	default:
		v.AddInput("choice criteria must be an object of option name to description", "dict_type", raw, loc...)
		return nil
	}
	var buf [8]entry
	entries, dups, n, _ := objectEntries(raw, buf[:0], MaxOptions)
	if n > MaxOptions {
		optionCount(v, n, raw, loc)
		return nil
	}
	for _, k := range dups {
		v.Add("option name given more than once", "value_error", at(loc, k)...)
	}
	opts := make([]Option, 0, len(entries))
	for _, e := range entries {
		if v.Full() {
			break
		}
		opts = append(opts, Option{Name: e.key, Description: decodeEntry(v, e.val, "an option description", at(loc, e.key))})
	}
	return opts
}

func decodeLevels(v *Problems, raw json.RawMessage, loc []string) []json.RawMessage {
	switch kindOf(raw) {
	case kindNone:
		v.Add("field required", "missing", loc...)
		return nil
	case kindArray:
	default:
		v.AddInput("score criteria must be an array of levels, lowest first", "list_type", raw, loc...)
		return nil
	}
	levels := []json.RawMessage{}
	n := 0
	_ = jsonscan.Scan(raw, func(s *jsonscan.Scanner) { // raw is valid JSON
		s.Array("criteria", func() {
			if n++; n > MaxLevels {
				s.Skip() // counted, not read: the question is refused
				return
			}
			levels = append(levels, decodeLevel(v, s.Raw(), at(loc, strconv.Itoa(len(levels)))))
		})
	})
	if n > MaxLevels {
		levelCount(v, n, raw, loc)
		return nil
	}
	return levels
}

// MarshalJSON writes the wire form, keeping the order of options and
// levels; values given as null are written as null, instructions left out.
func (q Question) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	writeString(&b, string(q.Type))
	if q.Instructions != nil {
		b.WriteString(`,"instructions":`)
		b.Write(q.Instructions)
	}
	switch q.Type {
	case TypeNoul:
		if q.Noul != nil {
			b.WriteString(`,"criteria":{`)
			sep := ""
			for _, kv := range [2]struct {
				k string
				v json.RawMessage
			}{{"true", q.Noul.True}, {"false", q.Noul.False}} {
				if kv.v != nil {
					b.WriteString(sep + `"` + kv.k + `":`)
					b.Write(kv.v)
					sep = ","
				}
			}
			b.WriteByte('}')
		}
	case TypeChoice:
		b.WriteString(`,"criteria":{`)
		for i, o := range q.Options {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(&b, o.Name)
			b.WriteByte(':')
			writeEntry(&b, o.Description)
		}
		b.WriteByte('}')
	case TypeScore:
		b.WriteString(`,"criteria":[`)
		for i, l := range q.Levels {
			if i > 0 {
				b.WriteByte(',')
			}
			writeEntry(&b, l)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeEntry writes a value that may be null (nil).
func writeEntry(b *bytes.Buffer, raw json.RawMessage) {
	if raw == nil {
		b.WriteString("null")
		return
	}
	b.Write(raw)
}

// MarshalJSON writes the request with its questions in the caller's order
// (QuestionNames), which a Go map would sort.
func (r Request) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"model":`)
	writeString(&b, r.Model)
	b.WriteString(`,"state":`)
	writeEntry(&b, r.State)
	b.WriteString(`,"questions":`)
	if err := writeObject(&b, r.QuestionNames(), r.Questions, Question.MarshalJSON); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// MarshalJSON writes the response with its answers in order (Names).
func (r Response) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil) }

// AppendJSON appends MarshalJSON's bytes to b: a server renders an answer
// into a buffer it reuses, instead of a new one per field through
// encoding/json. The bytes are encoding/json's, without HTML escaping
// (see marshal), down to the float formatting and the sorted map keys;
// TestAppendJSONIsEncodingJSON holds them to it.
func (r *Response) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"model":`...)
	b = appendString(b, r.Model)
	b = append(b, `,"answers":{`...)
	for i, name := range r.order() {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, name)
		b = append(b, ':')
		var err error
		if b, err = appendAnswer(b, r.Answers[name]); err != nil {
			return nil, err
		}
	}
	b = append(b, `},"usage":{"input_tokens":`...)
	b = strconv.AppendInt(b, int64(r.Usage.InputTokens), 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, int64(r.Usage.OutputTokens), 10)
	b = append(b, `,"cost":`...)
	b, err := appendFloat(b, r.Usage.Cost)
	if err != nil {
		return nil, err
	}
	return append(b, "}}"...), nil
}

// order is Names without its allocations in the usual case.
func (r *Response) order() []string { return inOrder(r.Order, r.Answers) }

// inOrder is orderedNames(order, m) without its allocations in the usual
// case, where order names every key of m once; the check is quadratic, so
// only short lists take it.
func inOrder[V any](order []string, m map[string]V) []string {
	if len(order) != len(m) || len(order) > 32 {
		return orderedNames(order, m)
	}
	for i, n := range order {
		if _, ok := m[n]; !ok || slices.Contains(order[:i], n) {
			return orderedNames(order, m)
		}
	}
	return order
}

// appendAnswer appends a's wire form: its fields in declaration order,
// empty ones left out (the struct tags' omitempty).
func appendAnswer(b []byte, a Answer) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = appendString(b, string(a.Type))
	var err error
	if a.Noul != nil {
		b = append(b, `,"noul":`...)
		if b, err = appendFloat(b, *a.Noul); err != nil {
			return nil, err
		}
	}
	if a.Choice != "" {
		b = append(b, `,"choice":`...)
		b = appendString(b, a.Choice)
	}
	if a.Score != nil {
		b = append(b, `,"score":`...)
		if b, err = appendFloat(b, *a.Score); err != nil {
			return nil, err
		}
	}
	if len(a.Legend) > 0 {
		b = append(b, `,"legend":`...)
		if b, err = appendMap(b, a.Legend, appendRaw); err != nil {
			return nil, err
		}
	}
	if len(a.Probabilities) > 0 {
		b = append(b, `,"probabilities":`...)
		if a.Order == nil {
			b, err = appendMap(b, a.Probabilities, appendFloat)
		} else {
			b, err = appendObject(b, inOrder(a.Order, a.Probabilities), a.Probabilities, appendFloat)
		}
		if err != nil {
			return nil, err
		}
	}
	if a.Confidence != nil {
		b = append(b, `,"confidence":`...)
		if b, err = appendFloat(b, *a.Confidence); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendMap appends m as an object, its keys in encoding/json's order
// (byte-wise), each value written by value.
func appendMap[V any](b []byte, m map[string]V, value func([]byte, V) ([]byte, error)) ([]byte, error) {
	// The keys sort in an array on the stack for the few options of a
	// question.
	var buf [8]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return appendObject(b, keys, m, value)
}

// appendObject appends the members of m that keys names, in that order,
// each value written by value.
func appendObject[V any](b []byte, keys []string, m map[string]V, value func([]byte, V) ([]byte, error)) ([]byte, error) {
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = value(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendString appends s as encoding/json quotes it without HTML
// escaping. Plain text (printable ASCII without quote or backslash, and
// valid UTF-8 other than U+2028 and U+2029, which encoding/json escapes)
// is copied as it is; anything else goes through marshal.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' {
				return appendMarshalled(b, s)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return appendMarshalled(b, s)
		}
		i += size
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendMarshalled(b []byte, s string) []byte {
	enc, _ := marshal(s) // marshalling a string cannot fail
	return append(b, enc...)
}

// appendFloat appends f as encoding/json writes a float64: the shortest
// decimal, in exponent form below 1e-6 and from 1e21, with a one-digit
// negative exponent written without its leading zero. NaN and infinities
// are encoding/json's error.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		_, err := marshal(f)
		return nil, err
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendRaw appends a json.RawMessage as encoding/json does: compacted,
// null when nil, an error when it is not JSON.
func appendRaw(b []byte, raw json.RawMessage) ([]byte, error) {
	if raw == nil {
		return append(b, "null"...), nil
	}
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, raw); err != nil {
		_, err := marshal(raw) // encoding/json's error for it
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeObject writes the members of m that names names, in that order,
// each value encoded by enc.
func writeObject[V any](b *bytes.Buffer, names []string, m map[string]V, enc func(V) ([]byte, error)) error {
	b.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, name)
		b.WriteByte(':')
		v, err := enc(m[name])
		if err != nil {
			return err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return nil
}

// UnmarshalJSON reads a response and the order its answers came in.
func (r *Response) UnmarshalJSON(data []byte) error {
	type plain Response // without these methods
	var p struct {
		plain
		Answers json.RawMessage `json:"answers"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*r = Response(p.plain)
	if kindOf(p.Answers) != kindObject {
		return json.Unmarshal(p.Answers, &r.Answers) // null, or the type error
	}
	if err := json.Unmarshal(p.Answers, &r.Answers); err != nil {
		return err
	}
	entries, _, _, _ := objectEntries(p.Answers, nil, 0) // checked by json.Unmarshal
	r.Order = make([]string, len(entries))
	for i, e := range entries {
		r.Order[i] = e.key
	}
	return nil
}

// orderedNames lists the keys of m: those of order first, as they come
// (each once), then the rest sorted.
func orderedNames[V any](order []string, m map[string]V) []string {
	out := make([]string, 0, len(m))
	// For the usual few names, a linear search of out finds repeats
	// without building a map per call; a map keeps many from taking
	// quadratic time.
	var seen map[string]bool
	if len(order) > 16 {
		seen = make(map[string]bool, len(m))
	}
	for _, n := range order {
		if _, ok := m[n]; !ok {
			continue
		}
		if seen != nil {
			if seen[n] {
				continue
			}
			seen[n] = true
		} else if slices.Contains(out, n) {
			continue
		}
		out = append(out, n)
	}
	if len(out) == len(m) {
		return out
	}
	if seen == nil {
		seen = make(map[string]bool, len(out))
		for _, n := range out {
			seen[n] = true
		}
	}
	rest := make([]string, 0, len(m)-len(out))
	for n := range m {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func writeString(b *bytes.Buffer, s string) {
	b.Write(appendString(b.AvailableBuffer(), s))
}

// marshal is json.Marshal without HTML escaping: a body that is JSON, not
// HTML, keeps "<", ">" and "&" as one byte each instead of six, and so
// does every copy kept of it (a stored answer is the bytes sent).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// jsonKind is the kind of a JSON value, from its first byte.
type jsonKind int

const (
	kindNone jsonKind = iota // absent
	kindNull
	kindString
	kindObject
	kindArray
	kindOther // number or boolean
)

func kindOf(raw []byte) jsonKind {
	switch jsonscan.Kind(raw) {
	case 0:
		return kindNone
	case 'n':
		return kindNull
	case '"':
		return kindString
	case '{':
		return kindObject
	case '[':
		return kindArray
	}
	return kindOther
}

// isContent reports whether raw is a string, object or array: the shapes
// the API accepts for state, instructions and descriptions.
func isContent(raw []byte) bool {
	switch kindOf(raw) {
	case kindString, kindObject, kindArray:
		return true
	}
	return false
}

// checkSyntax says what is wrong with a body that is not JSON, or nil.
func checkSyntax(body []byte) error {
	err := jsonscan.Scan(body, func(s *jsonscan.Scanner) { s.Skip() })
	if err == nil {
		return nil
	}
	return errors.New(syntaxMessage(body, err))
}

// syntaxMessage is the message of a body that is not JSON, read from the
// scanner's error.
func syntaxMessage(body []byte, err error) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return "the body is empty"
	}
	var se *jsonscan.SyntaxError
	if errors.As(err, &se) {
		return se.Error()
	}
	return "malformed JSON"
}

type entry struct {
	key string
	val json.RawMessage
}

// DuplicateKeys lists the keys that occur more than once in the JSON
// object raw (raw must be valid JSON), after the first occurrence of each:
// the rule DecodeRequest refuses them by, for any other decoder of the
// judge's wire formats to refuse them by too.
func DuplicateKeys(raw []byte) []string {
	_, dups, _, _ := objectEntries(raw, nil, 0)
	return dups
}

// objectEntries lists the members of a JSON object in their order, with
// the keys that occur more than once; err is the scanner's when raw is not
// JSON (the entries found before it are returned). The first occurrence
// of a key wins, so a value named in an error message is the one that is
// used. Values alias raw. The entries are appended to buf, which a caller
// may give as a small array of its own so that the usual few members need
// no allocation.
//
// With names given, only the members of those names are kept, and the
// others are skipped unread (a body's unknown fields cost nothing kept,
// however many). With limit above zero, at most limit members are kept
// and the rest are only counted: n counts every member kept or not.
func objectEntries(raw []byte, buf []entry, limit int, names ...string) (entries []entry, dups []string, n int, err error) {
	entries = buf[:0]
	var seen map[string]bool
	err = jsonscan.Scan(raw, func(s *jsonscan.Scanner) {
		s.Object("body", func(k []byte) {
			key, ok := "", true
			if len(names) > 0 {
				key, ok = namedKey(k, names)
			}
			if !ok {
				s.Skip()
				return
			}
			if n++; limit > 0 && n > limit {
				s.Skip() // counted, not kept
				return
			}
			if len(names) == 0 {
				key = wireKey(k)
			}
			val := s.Raw()
			// A linear search is fastest for the usual handful of keys; a map
			// keeps a body with a hundred thousand keys from taking quadratic time.
			var dup bool
			if seen != nil {
				dup = seen[key]
			} else {
				dup = slices.ContainsFunc(entries, func(e entry) bool { return e.key == key })
			}
			if dup {
				dups = append(dups, key)
				return
			}
			entries = append(entries, entry{key, val})
			if seen != nil {
				seen[key] = true
			} else if len(entries) == 16 {
				seen = make(map[string]bool)
				for _, e := range entries {
					seen[e.key] = true
				}
			}
		})
	})
	return entries, dups, n, err
}

// namedKey is the key of a member as Object passed it, unquoted, and
// whether it is one of names; a key of names is returned as the
// constant, without an allocation.
func namedKey(k []byte, names []string) (string, bool) {
	if bytes.IndexByte(k, '\\') < 0 {
		for _, name := range names {
			if string(k) == name {
				return name, true
			}
		}
		return "", false
	}
	key := jsonscan.Unquote(k)
	return key, slices.Contains(names, key)
}

// wireKey is an object key as Object passed it, unquoted: the names of the
// wire format itself come as constants, without the allocation of a
// string per key of every request.
func wireKey(k []byte) string {
	switch string(k) {
	case "model":
		return "model"
	case "state":
		return "state"
	case "questions":
		return "questions"
	case "type":
		return "type"
	case "instructions":
		return "instructions"
	case "criteria":
		return "criteria"
	case "true":
		return "true"
	case "false":
		return "false"
	}
	return jsonscan.Unquote(k)
}

// at is loc followed by more, in a new slice. It is small enough to be
// inlined, and its room for eight names is a constant: a path that does
// not outlive its caller (every path a decoder builds is copied when a
// problem is added) then lives on the caller's stack, not the heap.
func at(loc []string, more ...string) []string {
	return append(append(make([]string, 0, 8), loc...), more...)
}
