package systemone

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/judgeworks/shared/internal/jsonscan"
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
// must have its documented shape. State may come as document, its older name. Any problem is reported as a
// *ValidationError naming the field path, with every problem found, not only
// the first. Bounds (counts, lengths, tokens) are checked by Validate.
func DecodeRequest(body []byte) (Request, error) {
	var req Request
	var v validator
	if err := checkSyntax(body); err != nil {
		v.add(err.Error(), "json_invalid", "body")
		return req, v.err()
	}
	if kindOf(body) != kindObject {
		v.add("the body must be a JSON object", "dict_type", "body")
		return req, v.err()
	}
	top, dups := objectEntries(body)
	seen := make(map[string]bool, len(top))
	for _, e := range top {
		seen[e.key] = true
	}
	for _, k := range dups {
		if k == "model" || k == "state" || k == DocumentField || k == "questions" {
			v.add("field given more than once", "value_error", "body", k)
		}
	}
	for _, e := range top {
		switch e.key {
		case "model":
			if err := json.Unmarshal(e.val, &req.Model); err != nil || kindOf(e.val) != kindString {
				v.add("model must be a string", "string_type", "body", "model")
			}
		case "state", DocumentField:
			if e.key == DocumentField && seen["state"] {
				v.add("document is the older name of state: give one of them, not both", "value_error", "body", DocumentField)
				continue
			}
			if !isContent(e.val) {
				v.add(e.key+" must be a JSON string, object or array", "value_error", "body", e.key)
				continue
			}
			req.State = compact(e.val)
		case "questions":
			req.Questions = decodeQuestions(&v, e.val)
		}
	}
	if !seen["model"] {
		v.add("field required", "missing", "body", "model")
	}
	if !seen["state"] && !seen[DocumentField] {
		v.add("field required", "missing", "body", "state")
	}
	if !seen["questions"] {
		v.add("field required", "missing", "body", "questions")
	}
	return req, v.err()
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

func decodeQuestions(v *validator, raw json.RawMessage) map[string]Question {
	if kindOf(raw) != kindObject {
		v.add("questions must be an object of question name to question", "dict_type", "body", "questions")
		return nil
	}
	entries, dups := objectEntries(raw)
	for _, k := range dups {
		v.add("question name given more than once", "value_error", "body", "questions", k)
	}
	qs := make(map[string]Question, len(entries))
	for _, e := range entries {
		qs[e.key] = decodeQuestion(v, e.val, "body", "questions", e.key)
	}
	return qs
}

// UnmarshalJSON decodes the wire form {type, instructions, criteria}.
func (q *Question) UnmarshalJSON(b []byte) error {
	var v validator
	if err := checkSyntax(b); err != nil {
		return err
	}
	dec := decodeQuestion(&v, b)
	if err := v.err(); err != nil {
		return err
	}
	*q = dec
	return nil
}

func decodeQuestion(v *validator, raw json.RawMessage, loc ...string) Question {
	var q Question
	if kindOf(raw) != kindObject {
		v.add("a question must be an object with type, instructions and criteria", "dict_type", loc...)
		return q
	}
	entries, _ := objectEntries(raw)
	var criteria json.RawMessage
	var haveType, typeOK, haveInstructions bool
	for _, e := range entries {
		switch e.key {
		case "type":
			haveType = true
			var s string
			if kindOf(e.val) != kindString || json.Unmarshal(e.val, &s) != nil {
				v.add("type must be a string", "string_type", at(loc, "type")...)
				continue
			}
			q.Type, typeOK = QuestionType(s), true
		case "instructions":
			haveInstructions = true
			if !isContent(e.val) {
				v.add("instructions must be a JSON string, object or array", "value_error", at(loc, "instructions")...)
				continue
			}
			q.Instructions = compact(e.val)
		case "criteria":
			criteria = e.val
		}
	}
	if !haveType {
		v.add("field required", "missing", at(loc, "type")...)
	}
	if !haveInstructions {
		v.add("field required", "missing", at(loc, "instructions")...)
	}
	cloc := at(loc, "criteria")
	switch q.Type {
	case TypeNoul:
		q.Noul = decodeNoulCriteria(v, criteria, cloc)
	case TypeChoice:
		q.Options = decodeOptions(v, criteria, cloc)
	case TypeScore:
		q.Levels = decodeLevels(v, criteria, cloc)
	default:
		if typeOK {
			v.add(unknownTypeMsg(q.Type), "enum", at(loc, "type")...)
		}
	}
	return q
}

func unknownTypeMsg(t QuestionType) string {
	return fmt.Sprintf("type must be one of noul, choice, score (got %q)", string(t))
}

func decodeNoulCriteria(v *validator, raw json.RawMessage, loc []string) *NoulCriteria {
	switch kindOf(raw) {
	case kindNone, kindNull:
		return nil
	case kindObject:
	default:
		v.add(`noul criteria must be an object with the keys "true" and "false"`, "dict_type", loc...)
		return nil
	}
	entries, dups := objectEntries(raw)
	for _, k := range dups {
		v.add("key given more than once", "value_error", at(loc, k)...)
	}
	var c NoulCriteria
	var haveTrue, haveFalse bool
	for _, e := range entries {
		var dst *string
		switch e.key {
		case "true":
			dst, haveTrue = &c.True, true
		case "false":
			dst, haveFalse = &c.False, true
		default:
			v.add(`noul criteria allow only the keys "true" and "false"`, "extra_forbidden", at(loc, e.key)...)
			continue
		}
		if kindOf(e.val) != kindString || json.Unmarshal(e.val, dst) != nil {
			v.add("the meaning must be a string", "string_type", at(loc, e.key)...)
		}
	}
	if !haveTrue {
		v.add("field required", "missing", at(loc, "true")...)
	}
	if !haveFalse {
		v.add("field required", "missing", at(loc, "false")...)
	}
	return &c
}

func decodeOptions(v *validator, raw json.RawMessage, loc []string) []Option {
	switch kindOf(raw) {
	case kindNone:
		v.add("field required", "missing", loc...)
		return nil
	case kindObject:
	default:
		v.add("choice criteria must be an object of option name to description", "dict_type", loc...)
		return nil
	}
	entries, dups := objectEntries(raw)
	for _, k := range dups {
		v.add("option name given more than once", "value_error", at(loc, k)...)
	}
	opts := make([]Option, 0, len(entries))
	for _, e := range entries {
		o := Option{Name: e.key}
		if kindOf(e.val) == kindNull {
			o.Description = nil
		} else if isContent(e.val) {
			o.Description = compact(e.val)
		} else {
			v.add("an option description must be a JSON string, object, array or null", "value_error", at(loc, e.key)...)
		}
		opts = append(opts, o)
	}
	return opts
}

func decodeLevels(v *validator, raw json.RawMessage, loc []string) []string {
	switch kindOf(raw) {
	case kindNone:
		v.add("field required", "missing", loc...)
		return nil
	case kindArray:
	default:
		v.add("score criteria must be an array of level texts, lowest first", "list_type", loc...)
		return nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		v.add("score criteria must be an array of level texts, lowest first", "list_type", loc...)
		return nil
	}
	levels := make([]string, len(elems))
	for i, e := range elems {
		if kindOf(e) != kindString || json.Unmarshal(e, &levels[i]) != nil {
			v.add("a level must be a string", "string_type", at(loc, strconv.Itoa(i))...)
		}
	}
	return levels
}

// MarshalJSON writes the wire form, keeping the order of options and levels.
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
			b.WriteString(`,"criteria":{"true":`)
			writeString(&b, q.Noul.True)
			b.WriteString(`,"false":`)
			writeString(&b, q.Noul.False)
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
			if o.Description == nil {
				b.WriteString("null")
			} else {
				b.Write(o.Description)
			}
		}
		b.WriteByte('}')
	case TypeScore:
		b.WriteString(`,"criteria":[`)
		for i, l := range q.Levels {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(&b, l)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // marshalling a string cannot fail
	b.Write(enc)
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
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return kindNone
	}
	switch raw[0] {
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

func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		// Only reached for values that passed a syntax check; keep them as they are.
		return append(json.RawMessage(nil), raw...)
	}
	return b.Bytes()
}

func checkSyntax(body []byte) error {
	if json.Valid(body) {
		return nil
	}
	var x any
	err := json.Unmarshal(body, &x)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON at byte %d: %s", se.Offset, se.Error())
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return errors.New("the body is empty")
	}
	return errors.New("malformed JSON")
}

type entry struct {
	key string
	val json.RawMessage
}

// objectEntries lists the members of a syntactically valid JSON object in
// their order, with the keys that occur more than once. The first
// occurrence of a key wins, so a value named in an error message is the one
// that is used. Values alias raw.
//
// It walks the bytes once with jsonscan instead of using json.Decoder's
// tokens: the body was checked once by checkSyntax, and re-scanning every
// nested value through the decoder cost most of the decoding time.
// DuplicateKeys lists the keys that occur more than once in the JSON
// object raw (raw must be valid JSON), after the first occurrence of each:
// the rule DecodeRequest refuses them by, for any other decoder of the
// judge's wire formats to refuse them by too.
func DuplicateKeys(raw []byte) []string {
	_, dups := objectEntries(raw)
	return dups
}

func objectEntries(raw []byte) (entries []entry, dups []string) {
	s := jsonscan.New(raw)
	var seen map[string]bool
	s.Object("body", func(k []byte) {
		key := jsonscan.Unquote(k)
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
	return entries, dups
}

func at(loc []string, more ...string) []string {
	out := make([]string, 0, len(loc)+len(more))
	return append(append(out, loc...), more...)
}
