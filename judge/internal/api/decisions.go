package api

// POST /v1/decisions, OpenAI's Decisions API as openai-go's
// client.Decisions.New sends and reads it, translated to the judge's System
// One request on the way in and back to a decision on the way out. Between
// the two it takes the same path as /v1/systemone (keys, limits, models,
// engines, calibration). See docs/judge.md, "Two endpoints, one judge".

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/shared/systemone"
	"github.com/labstack/echo/v4"
)

const decisionsRoute = "/v1/decisions"

// DecisionsMaxQuestions is the Decisions API's own bound on the questions
// of a request; JUDGE_MAX_QUESTIONS applies too when it is lower.
const DecisionsMaxQuestions = 400

// decisions answers POST /v1/decisions.
func (h *handler) decisions(c echo.Context) error {
	key := c.Get(keyCtx).(auth.BearerKey)
	body, err := h.readBody(c)
	if err != nil {
		return err
	}
	d, err := decodeDecision(body, min(DecisionsMaxQuestions, h.MaxQuestions))
	if err != nil {
		return err
	}
	m, err := h.resolveModel(c, key, d.req.Model)
	if err != nil {
		return err
	}
	resp := &systemone.Response{Model: m.Name}
	if len(d.req.Questions) > 0 {
		if resp, err = h.ask(c, key, m, d.req); err != nil {
			return d.relocate(err)
		}
	} else {
		// Every question refused: no engine is asked and no token charged.
		setLimitHeaders(c.Response().Header(), "tokens", h.Limiter.PeekTokens(c.Request().Context(), key.ID))
	}
	return c.JSON(http.StatusOK, d.answer(resp))
}

// decision is a decisions request translated: the System One request the
// engine answers and what it takes to translate the answer back.
type decision struct {
	req       systemone.Request
	questions []decisionQuestion // in the caller's order
}

type decisionQuestion struct {
	// key names the question in req.Questions; empty for a question
	// refused without asking.
	key string
	// name is the caller's name, nil for an unnamed question.
	name *string
	kind string // predicate, choice or score
	// values are a choice's typed values (string or bool), in the caller's
	// order; options are the option names the engine answers by.
	values  []any
	options []string
	// labels are a score's level labels, lowest first.
	labels []string
}

// Wire shapes of the answer (openai-go: Decision, DecisionAnswerUnion,
// DecisionUsage).
type decisionResponse struct {
	Answers []decisionAnswer `json:"answers"`
	Model   string           `json:"model"`
	Usage   decisionUsage    `json:"usage"`
}

type decisionAnswer struct {
	Type string `json:"type"`
	// Name is null for an unnamed question, as OpenAI answers.
	Name        *string  `json:"name"`
	Probability *float64 `json:"probability,omitempty"`
	// Choice is the chosen value, typed as the caller gave it.
	Choice any      `json:"choice,omitempty"`
	Score  *float64 `json:"score,omitempty"`
	// Probabilities is []choiceProbability or []scoreProbability.
	Probabilities any      `json:"probabilities,omitempty"`
	Confidence    *float64 `json:"confidence,omitempty"`
}

type choiceProbability struct {
	Value       any     `json:"value"`
	Probability float64 `json:"probability"`
}

type scoreProbability struct {
	Value       int     `json:"value"`
	Label       string  `json:"label"`
	Probability float64 `json:"probability"`
}

type decisionUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CacheWriteTokens int `json:"cache_write_tokens"`
		CachedTokens     int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

// answer translates the engine's answers back, one per question in the
// caller's order; a refused question gets {"type": "refusal", "name"}.
func (d *decision) answer(resp *systemone.Response) decisionResponse {
	out := decisionResponse{Model: resp.Model, Answers: make([]decisionAnswer, len(d.questions))}
	for i, q := range d.questions {
		a, asked := resp.Answers[q.key]
		if q.key == "" || !asked {
			out.Answers[i] = decisionAnswer{Type: "refusal", Name: q.name}
			continue
		}
		da := decisionAnswer{Type: q.kind, Name: q.name, Confidence: a.Confidence}
		switch q.kind {
		case "predicate":
			p := 0.0
			if a.Noul != nil {
				p = *a.Noul
			}
			da.Probability = &p
		case "choice":
			probs := make([]choiceProbability, len(q.options))
			for j, o := range q.options {
				probs[j] = choiceProbability{Value: q.values[j], Probability: a.Probabilities[o]}
				if o == a.Choice {
					da.Choice = q.values[j]
				}
			}
			da.Probabilities = probs
		case "score":
			probs := make([]scoreProbability, len(q.labels))
			for j, l := range q.labels {
				probs[j] = scoreProbability{Value: j, Label: l, Probability: a.Probabilities[strconv.Itoa(j)]}
			}
			da.Score, da.Probabilities = a.Score, probs
		}
		out.Answers[i] = da
	}
	u := resp.Usage
	out.Usage.InputTokens, out.Usage.OutputTokens = u.InputTokens, u.OutputTokens
	out.Usage.TotalTokens = u.InputTokens + u.OutputTokens
	return out
}

// decisionsError is the error body of /v1/decisions, the shape OpenAI's
// SDKs read into their error type (openai-go: *openai.Error). type and code
// are the error_type /v1/systemone would give, so one list documents both;
// a validation error has type validation_error, its first problem's kind as
// code and that problem's path as param.
type decisionsError struct {
	Error decisionsErrorDetail `json:"error"`
}

type decisionsErrorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Code    string  `json:"code"`
	Param   *string `json:"param"`
}

// decisionsBodies are the route's error bodies, in OpenAI's shape.
type decisionsBodies struct{}

func (decisionsBodies) fault(kind, msg string) any {
	return decisionsError{decisionsErrorDetail{Message: msg, Type: kind, Code: kind}}
}

func (decisionsBodies) validation(ve *systemone.ValidationError) any {
	parts := make([]string, len(ve.Items))
	for i, it := range ve.Items {
		parts[i] = it.Msg
		if p := paramOf(it.Loc); p != "" {
			parts[i] = p + ": " + it.Msg
		}
	}
	d := decisionsErrorDetail{Message: strings.Join(parts, "; "), Type: systemone.TypeValidation, Code: "invalid"}
	if len(ve.Items) > 0 {
		d.Code = ve.Items[0].Type
		if p := paramOf(ve.Items[0].Loc); p != "" {
			d.Param = &p
		}
	}
	return decisionsError{d}
}

// paramOf writes a field path as OpenAI names parameters:
// ["body", "questions", "2", "choices"] is questions[2].choices.
func paramOf(loc []string) string {
	var b strings.Builder
	for i, part := range loc {
		if i == 0 && part == "body" {
			continue
		}
		if _, err := strconv.Atoi(part); err == nil && b.Len() > 0 {
			b.WriteString("[" + part + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(part)
	}
	return b.String()
}

// relocate rewrites the field paths of a validation error found on the
// translated request (token bounds, the model) into the caller's: the
// question's position for its key, input for state.
func (d *decision) relocate(err error) error {
	var ve *systemone.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	pos := make(map[string]int, len(d.questions))
	for i, q := range d.questions {
		if q.key != "" {
			pos[q.key] = i
		}
	}
	items := make([]systemone.ValidationItem, len(ve.Items))
	for i, it := range ve.Items {
		loc := append([]string(nil), it.Loc...)
		// The System One path names a question's type after its key
		// (questions, key, score, criteria); the Decisions path does not.
		if len(loc) >= 4 && loc[1] == "questions" && systemone.QuestionType(loc[3]).Known() {
			loc = append(loc[:3], loc[4:]...)
		}
		switch {
		case len(loc) >= 2 && loc[1] == "state":
			loc[1] = "input"
		case len(loc) >= 3 && loc[1] == "questions":
			if p, ok := pos[loc[2]]; ok {
				q := d.questions[p]
				loc[2] = strconv.Itoa(p)
				if len(loc) >= 4 && loc[3] == "criteria" {
					loc[3] = map[string]string{"choice": "choices", "score": "levels"}[q.kind]
					if len(loc) >= 5 && q.kind == "choice" {
						for j, o := range q.options {
							if o == loc[4] {
								loc[4] = strconv.Itoa(j)
							}
						}
					}
				}
			}
		}
		items[i] = systemone.ValidationItem{Loc: loc, Msg: it.Msg, Type: it.Type, Input: it.Input}
	}
	return &systemone.ValidationError{Items: items}
}

// decodeDecision reads a decisions request and translates it. Every
// problem is reported with its field path in the caller's terms, as a
// *systemone.ValidationError; a body that is not JSON at all is a
// *systemone.SyntaxError (a 400).
func decodeDecision(body []byte, maxQuestions int) (decision, error) {
	var d decision
	p := &parser{}
	if !json.Valid(body) {
		return d, &systemone.SyntaxError{Msg: "the body is not valid JSON"}
	}
	top := p.object(body, []string{"body"}, "input", "model", "questions",
		"prompt_cache_key", "safety_identifier", "prompt_cache_options")
	if top == nil {
		return d, p.err()
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
	d.req.Model, _ = p.str(top, "model", []string{"body"}, true)
	d.req.State = p.input(top["input"])
	d.req.Questions = map[string]systemone.Question{}

	qloc := []string{"body", "questions"}
	raws, isArray := p.array(top, "questions", []string{"body"})
	switch n := len(raws); {
	case !isArray:
	case n == 0:
		p.add("at least one question is required", "too_short", qloc...)
	case n > maxQuestions:
		p.add(fmt.Sprintf("at most %d questions per request, got %d", maxQuestions, n), "too_long", qloc...)
		return d, p.err()
	}
	named := map[string]int{}
	asked := make([]systemone.Question, len(raws))
	refused := make([]bool, len(raws))
	for i, raw := range raws {
		var q decisionQuestion
		q, asked[i], refused[i] = p.question(raw, at(qloc, strconv.Itoa(i)))
		if q.name != nil {
			if j, dup := named[*q.name]; dup {
				p.add(fmt.Sprintf("question name %q is also the name of question %d", *q.name, j), "value_error",
					at(qloc, strconv.Itoa(i), "name")...)
			}
			named[*q.name] = i
		}
		d.questions = append(d.questions, q)
	}
	if err := p.err(); err != nil {
		return d, err
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
		d.req.Questions[q.key] = asked[i]
	}
	return d, nil
}

// question reads one question. refused is true when the engines cannot
// answer it (its instructions hold an image); it is still checked.
func (p *parser) question(raw json.RawMessage, loc []string) (q decisionQuestion, sq systemone.Question, refused bool) {
	obj := p.object(raw, loc, "type", "name", "instructions", "choices", "levels")
	if obj == nil {
		return q, sq, true
	}
	if name, ok := p.str(obj, "name", loc, false); ok {
		if strings.TrimSpace(name) == "" {
			p.add("name must not be empty; leave it out for an unnamed question", "string_too_short", at(loc, "name")...)
		}
		q.name = &name
	}
	q.kind, _ = p.str(obj, "type", loc, true)
	var images bool
	sq.Instructions, images = p.content(obj["instructions"], at(loc, "instructions"), questionParts)
	for _, f := range [][2]string{{"choices", "choice"}, {"levels", "score"}} {
		if field, kind := f[0], f[1]; !isAbsent(obj, field) && q.kind != kind {
			p.add(fmt.Sprintf("%s belongs to %s questions only", field, kind), "extra_forbidden", at(loc, field)...)
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
		p.add(fmt.Sprintf("unknown question type %q: predicate, choice or score", q.kind), "enum", at(loc, "type")...)
	}
	return q, sq, images
}

func (p *parser) choices(obj map[string]json.RawMessage, loc []string, q *decisionQuestion, sq *systemone.Question) {
	raws, ok := p.array(obj, "choices", loc)
	if !ok {
		return
	}
	cloc := at(loc, "choices")
	if n := len(raws); n < systemone.MinOptions || n > systemone.MaxOptions {
		p.add(fmt.Sprintf("a choice question takes %d to %d choices, got %d", systemone.MinOptions, systemone.MaxOptions, n),
			map[bool]string{true: "too_short", false: "too_long"}[n < systemone.MinOptions], cloc...)
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
		switch v := obj["value"]; kindOf(v) {
		case '"':
			_ = json.Unmarshal(v, &name)
			value = name
			if strings.TrimSpace(name) == "" {
				p.add("a choice value must not be empty", "string_too_short", at(oloc, "value")...)
			}
		case 't', 'f':
			var b bool
			_ = json.Unmarshal(v, &b)
			value, name = b, strconv.FormatBool(b)
		case 0, 'n':
			p.add("field required", "missing", at(oloc, "value")...)
			continue
		default:
			p.add("a choice value must be a string or a boolean", "value_error", at(oloc, "value")...)
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
			p.add(msg, "value_error", at(oloc, "value")...)
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

func (p *parser) levels(obj map[string]json.RawMessage, loc []string, q *decisionQuestion, sq *systemone.Question) {
	raws, ok := p.array(obj, "levels", loc)
	if !ok {
		return
	}
	lloc := at(loc, "levels")
	if n := len(raws); n < systemone.MinLevels || n > systemone.MaxLevels {
		p.add(fmt.Sprintf("a score question takes %d to %d levels, got %d", systemone.MinLevels, systemone.MaxLevels, n),
			map[bool]string{true: "too_short", false: "too_long"}[n < systemone.MinLevels], lloc...)
	}
	for j, raw := range raws {
		iloc := at(lloc, strconv.Itoa(j))
		obj := p.object(raw, iloc, "label", "description")
		label, _ := p.str(obj, "label", iloc, true)
		if obj != nil && strings.TrimSpace(label) == "" {
			p.add("a level label must not be empty", "string_too_short", at(iloc, "label")...)
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
	switch kindOf(raw) {
	case 0:
		p.add("field required", "missing", loc...)
		return nil, false
	case '"':
		return compact(raw), false
	case '[':
	default:
		p.add("must be a string or an array of content parts", "value_error", loc...)
		return nil, false
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(raw, &raws)
	if len(raws) == 0 {
		p.add("at least one content part is required", "too_short", loc...)
		return nil, false
	}
	var parts []any
	allText := true
	for j, part := range raws {
		ploc := at(loc, strconv.Itoa(j))
		typ := partType(part)
		fields, known := kinds[typ]
		if !known {
			p.add(fmt.Sprintf("unknown or misplaced part type %q: here %s", typ, kinds.names()), "enum", at(ploc, "type")...)
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
			if k := kindOf(data); k != '{' && k != '[' {
				p.add("data must be a JSON object or array", "value_error", at(ploc, "data")...)
				continue
			}
			parts = append(parts, compact(data))
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
	switch kindOf(raw) {
	case 0:
		p.add("field required", "missing", loc...)
		return nil
	case '"':
		return compact(raw)
	case '[':
	default:
		p.add("input must be a string or an array of messages", "value_error", loc...)
		return nil
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(raw, &raws)
	if len(raws) == 0 {
		p.add("at least one input item is required", "too_short", loc...)
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
					p.add(fmt.Sprintf("unknown role %q: user, developer, system or assistant", role), "enum", at(iloc, "role")...)
				}
				continue
			}
			content, images := p.content(obj["content"], at(iloc, "content"), kinds)
			if images {
				p.add(imageMsg, "image_unsupported", at(iloc, "content")...)
			}
			if role == "user" && len(raws) == 1 && kindOf(content) == '"' {
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
				p.add(fmt.Sprintf("no earlier %s has call_id %q", call, id), "value_error", at(iloc, "call_id")...)
			}
			output, images := p.content(obj["output"], at(iloc, "output"), toolParts)
			if images {
				p.add(imageMsg, "image_unsupported", at(iloc, "output")...)
			}
			items = append(items, map[string]any{"type": typ, "call_id": id, "output": output})
		default:
			p.add(fmt.Sprintf("unknown input item type %q: message, function_call, function_call_output, custom_tool_call or custom_tool_call_output", typ),
				"enum", at(iloc, "type")...)
		}
	}
	if lone != nil {
		return lone
	}
	state, _ := json.Marshal(items)
	return state
}

// parser collects every problem of a request, each with its field path.
type parser struct {
	items []systemone.ValidationItem
}

func (p *parser) add(msg, typ string, loc ...string) {
	p.items = append(p.items, systemone.ValidationItem{Loc: append([]string(nil), loc...), Msg: msg, Type: typ})
}

func (p *parser) err() error {
	if len(p.items) == 0 {
		return nil
	}
	return &systemone.ValidationError{Items: p.items}
}

// object returns the members of raw, which must be an object with no keys
// but allowed; nil (with the problem noted) otherwise.
func (p *parser) object(raw json.RawMessage, loc []string, allowed ...string) map[string]json.RawMessage {
	if kindOf(raw) != '{' {
		p.add("must be an object", "dict_type", loc...)
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		p.add("must be an object", "dict_type", loc...)
		return nil
	}
	// A repeated key is refused as /v1/systemone refuses it, rather than
	// letting the last one win.
	for _, k := range systemone.DuplicateKeys(raw) {
		p.add("field given more than once", "value_error", at(loc, k)...)
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
		p.add("unknown field", "extra_forbidden", at(loc, k)...)
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
	if !ok || kindOf(raw) == 'n' {
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
			p.add("field required", "missing", at(loc, key)...)
		}
		return "", false
	}
	if kindOf(raw) != '"' || json.Unmarshal(raw, &s) != nil {
		p.add("must be a string", "string_type", at(loc, key)...)
		return "", false
	}
	return s, true
}

// array reads the array member key of obj, which is required.
func (p *parser) array(obj map[string]json.RawMessage, key string, loc []string) ([]json.RawMessage, bool) {
	raw, ok := present(obj, key)
	if !ok {
		p.add("field required", "missing", at(loc, key)...)
		return nil, false
	}
	var out []json.RawMessage
	if kindOf(raw) != '[' || json.Unmarshal(raw, &out) != nil {
		p.add("must be an array", "list_type", at(loc, key)...)
		return nil, false
	}
	return out, true
}

// kindOf is the first byte of a JSON value (0 when absent): '"', '{', '[',
// 'n' (null), 't' or 'f' (booleans), or a digit or '-' (numbers).
func kindOf(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return b.Bytes()
}

func at(loc []string, more ...string) []string {
	return append(append([]string(nil), loc...), more...)
}
