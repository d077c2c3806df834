package main_test

// The wire contract of POST /v1/systemone as the hosted System One
// service's OpenAPI document (version 0.2.0) publishes it: a table of
// request shapes drawn from its schemas (every optional field absent, null
// and in each type it allows; every bound at and past its edge) is sent to
// the built judge on each kind of engine (offline, the chat adapter in
// front of a fake model, a System One upstream), and every answer is
// checked against the document's response schemas (SystemOneResponse,
// HTTPValidationError) and against what the request asked.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// question is one named question of the table, its JSON as sent.
type question struct {
	name string
	body string
}

// instructionShapes are the values NoulQuestion, ChoiceQuestion and
// ScoreQuestion allow for instructions; "" leaves the field out.
var instructionShapes = []string{``, `null`, `"Is this about money?"`, `{"task":"Is this about money?","lang":"en"}`, `["Is this", "about money?"]`}

// conformanceQuestions lists the valid question shapes, deliberately not
// in name order, so that answers in name order would fail.
func conformanceQuestions() []question {
	var qs []question
	add := func(name, body string) { qs = append(qs, question{name, body}) }
	with := func(instructions, rest string) string {
		if instructions == "" {
			return rest
		}
		return `"instructions":` + instructions + `,` + rest
	}
	for i, ins := range instructionShapes {
		add(fmt.Sprintf("z%d_noul_instructions", i), `{`+with(ins, `"type":"noul"`)+`}`)
		add(fmt.Sprintf("m%d_choice_instructions", i), `{`+with(ins, `"type":"choice","criteria":{"billing":"money","technical":"bugs"}`)+`}`)
		add(fmt.Sprintf("a%d_score_instructions", i), `{`+with(ins, `"type":"score","criteria":["calm","angry"]`)+`}`)
	}
	// NoulCriteria: the object or null; each of true and false optional,
	// a string, object, array or null.
	for i, c := range []string{`null`, `{}`, `{"true":"a refund"}`, `{"false":"no refund"}`,
		`{"true":{"means":"refund"},"false":["no","refund"]}`, `{"true":null,"false":null}`,
		`{"true":"refund","false":"other","note":"ignored"}`} {
		add(fmt.Sprintf("y%d_noul_criteria", i), `{"type":"noul","instructions":"Refund?","criteria":`+c+`}`)
	}
	// ChoiceQuestion descriptions: string, object, array, null; 2 and 255 options.
	add("k_choice_descriptions", `{"type":"choice","instructions":"Which team?","criteria":{"technical":"bugs and crashes","billing":{"covers":["charges","refunds"]},"sales":["quotes","plans"],"other":null}}`)
	add("k_choice_2", `{"type":"choice","criteria":{"yes":null,"no":null}}`)
	add("k_choice_255", `{"type":"choice","instructions":"Which?","criteria":`+options(255)+`}`)
	// ScoreQuestion levels: strings, objects, arrays (null is refused, as
	// the service refuses it); 2 and 10 levels.
	add("b_score_levels", `{"type":"score","instructions":"How angry?","criteria":["calm",{"level":"annoyed","hint":"some heat"},["angry","furious"],""]}`)
	add("b_score_2", `{"type":"score","criteria":["",""]}`)
	add("b_score_10", `{"type":"score","instructions":"How angry?","criteria":`+levels(10)+`}`)
	return qs
}

func options(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"option %d":"what option %d means"`, i, i)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func levels(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"level %d"`, i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func requestOf(model, state string, qs []question) string {
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = fmt.Sprintf("%q:%s", q.name, q.body)
	}
	return `{"model":"` + model + `","state":` + state + `,"questions":{` + strings.Join(parts, ",") + `}}`
}

// engineUnderTest is a judge answering with one kind of engine; jev-latest,
// the SDKs' default model, names it.
type engineUnderTest struct {
	name  string
	j     *judge
	model string // the exact name an answer must start with
}

// fakeChatModel is an OpenAI-compatible chat endpoint answering the
// probabilities readout: for the labels of the strict schema it is asked
// for, the first label 0.6 and the rest sharing 0.4. It keeps every
// prompt it is shown.
type fakeChatModel struct {
	srv     *httptest.Server
	mu      sync.Mutex
	prompts []string
}

func newFakeChatModel(t *testing.T) *fakeChatModel {
	f := &fakeChatModel{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
			ResponseFormat struct {
				JSONSchema struct {
					Schema struct {
						Required []string `json:"required"`
					} `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		for _, m := range req.Messages {
			f.prompts = append(f.prompts, m.Content)
		}
		f.mu.Unlock()
		labels := req.ResponseFormat.JSONSchema.Schema.Required
		probs := map[string]float64{}
		for i, l := range labels {
			probs[l] = 0.4 / float64(len(labels)-1)
			if i == 0 {
				probs[l] = 0.6
			}
		}
		content, _ := json.Marshal(probs)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": time.Now().Unix(), "model": "fake-model-2026-01-01",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": string(content)}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
		})
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeChatModel) sawPrompt(s string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.ContainsFunc(f.prompts, func(p string) bool { return strings.Contains(p, s) })
}

const conformanceMaxQuestions = 60

func TestWireConformance(t *testing.T) {
	limits := []string{"JUDGE_RATE_LIMIT_RPM=100000", fmt.Sprintf("JUDGE_MAX_QUESTIONS=%d", conformanceMaxQuestions)}
	offline := start(t, append([]string{"JUDGE_API_KEYS=" + strongKey}, limits...)...)
	fake := newFakeChatModel(t)
	chat := start(t, append([]string{"JUDGE_API_KEYS=" + strongKey, "LLM_BASE_URL=" + fake.srv.URL + "/v1",
		"LLM_API_KEY=sk-test", "LLM_MODEL=fake-model", "JUDGE_LLM_READOUT=probabilities"}, limits...)...)
	upstream := start(t, append([]string{"JUDGE_API_KEYS=" + strongKey, "LLM_API=systemone", "LLM_BASE_URL=" + offline.url,
		"LLM_API_KEY=" + strongKey, "LLM_MODEL=local/lexical-latest"}, limits...)...)
	engines := []engineUnderTest{
		{"offline", offline, "local/semantic-1.0"},
		{"chat adapter", chat, "llm-1.0/fake-model-2026-01-01"},
		{"System One upstream", upstream, "llm-1.0/local/lexical-1.0"},
	}
	qs := conformanceQuestions()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			// Every state shape, every question shape, with the SDKs' default model.
			for _, state := range []string{`"I was charged twice. Please refund me, I am furious!"`,
				`{"message":"I was charged twice.","subject":"Duplicate charge"}`, `["I was charged twice.", {"mood":"furious"}]`} {
				body := requestOf("jev-latest", state, qs)
				r := e.j.ask(t, strongKey, body)
				if r.status != http.StatusOK {
					t.Fatalf("state %s: %d %s", state, r.status, r.body)
				}
				checkResponse(t, body, r.body, e.model)
			}
			// The bounds at their edge pass; past it they are refused
			// with the list form.
			for _, n := range []int{1, conformanceMaxQuestions} {
				many := make([]question, n)
				for i := range many {
					many[i] = question{fmt.Sprintf("q%03d", n-i), `{"type":"noul","instructions":"Refund?"}`}
				}
				body := requestOf("jev-latest", `"refund"`, many)
				r := e.j.ask(t, strongKey, body)
				if r.status != http.StatusOK {
					t.Fatalf("%d questions: %d %s", n, r.status, r.body)
				}
				checkResponse(t, body, r.body, e.model)
			}
			for _, tc := range refusedShapes() {
				r := e.j.ask(t, strongKey, tc.body)
				checkValidationError(t, tc.name, r, tc.loc, tc.typ)
			}
			// A replay of an Idempotency-Key gives the same bytes, in the same order.
			body := requestOf("jev-latest", `"refund"`, qs[:6])
			first := e.j.doWith(t, "/v1/systemone", strongKey, body, "conformance-1")
			again := e.j.doWith(t, "/v1/systemone", strongKey, body, "conformance-1")
			if first.status != http.StatusOK || again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.body, again.body) {
				t.Errorf("replay: %d %s, then %q %s", first.status, first.body, again.header.Get("Idempotent-Replayed"), again.body)
			}
		})
	}
	// The chat adapter shows structured values as compact JSON.
	for _, want := range []string{`{"task":"Is this about money?","lang":"en"}`, `{"level":"annoyed","hint":"some heat"}`,
		`["angry","furious"]`, `{"covers":["charges","refunds"]}`, `yes means: {"means":"refund"}`, `no means: ["no","refund"]`} {
		if !fake.sawPrompt(want) {
			t.Errorf("no prompt shows %s", want)
		}
	}
}

type refusedShape struct {
	name, body string
	loc        string // the first item's loc, joined by "."
	typ        string
}

func refusedShapes() []refusedShape {
	one := func(q string) string { return requestOf("jev-latest", `"x"`, []question{{"q", q}}) }
	many := make([]question, conformanceMaxQuestions+1)
	for i := range many {
		many[i] = question{fmt.Sprintf("q%03d", i), `{"type":"noul"}`}
	}
	return []refusedShape{
		{"no questions", `{"model":"jev-latest","state":"x","questions":{}}`, "body.questions", "too_short"},
		{"too many questions", requestOf("jev-latest", `"x"`, many), "body.questions", "too_long"},
		{"missing state", `{"model":"jev-latest","questions":{"q":{"type":"noul"}}}`, "body.state", "missing"},
		{"null state", `{"model":"jev-latest","state":null,"questions":{"q":{"type":"noul"}}}`, "body.state", "value_error"},
		{"number state", `{"model":"jev-latest","state":4,"questions":{"q":{"type":"noul"}}}`, "body.state", "value_error"},
		{"missing model", `{"state":"x","questions":{"q":{"type":"noul"}}}`, "body.model", "missing"},
		{"unknown type", one(`{"type":"rank"}`), "body.questions.q.type", "enum"},
		{"number instructions", one(`{"type":"noul","instructions":3}`), "body.questions.q.noul.instructions", "value_error"},
		{"noul criteria string", one(`{"type":"noul","criteria":"yes"}`), "body.questions.q.noul.criteria", "dict_type"},
		{"noul meaning number", one(`{"type":"noul","criteria":{"true":1}}`), "body.questions.q.noul.criteria.true", "value_error"},
		{"1 option", one(`{"type":"choice","criteria":{"only":null}}`), "body.questions.q.choice.criteria", "too_short"},
		{"256 options", one(`{"type":"choice","criteria":` + options(256) + `}`), "body.questions.q.choice.criteria", "too_long"},
		{"missing choice criteria", one(`{"type":"choice"}`), "body.questions.q.choice.criteria", "missing"},
		{"description number", one(`{"type":"choice","criteria":{"a":1,"b":null}}`), "body.questions.q.choice.criteria.a", "value_error"},
		{"1 level", one(`{"type":"score","criteria":["only"]}`), "body.questions.q.score.criteria", "too_short"},
		{"11 levels", one(`{"type":"score","criteria":` + levels(11) + `}`), "body.questions.q.score.criteria", "too_long"},
		{"level number", one(`{"type":"score","criteria":["low",2]}`), "body.questions.q.score.criteria.1", "value_error"},
		{"null level", one(`{"type":"score","criteria":["low",null]}`), "body.questions.q.score.criteria.1", "value_error"},
		{"state past the token bound", requestOf("jev-latest", `"`+strings.Repeat("refund ", 40_000)+`"`, []question{{"q", `{"type":"noul"}`}}), "body.state", "too_long"},
	}
}

// checkResponse checks a 200 body against SystemOneResponse and the request:
// model, answers (one per question, in the order sent, each of its
// question's type and criteria) and usage.
func checkResponse(t *testing.T, reqBody string, body []byte, model string) {
	t.Helper()
	var resp struct {
		Model   *string                    `json:"model"`
		Answers map[string]json.RawMessage `json:"answers"`
		Usage   *struct {
			InputTokens  *json.Number `json:"input_tokens"`
			OutputTokens *json.Number `json:"output_tokens"`
		} `json:"usage"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&resp); err != nil || resp.Model == nil || resp.Usage == nil ||
		resp.Usage.InputTokens == nil || resp.Usage.OutputTokens == nil || len(resp.Answers) == 0 {
		t.Fatalf("not a SystemOneResponse (%v): %.300s", err, body)
	}
	for _, n := range []*json.Number{resp.Usage.InputTokens, resp.Usage.OutputTokens} {
		if i, err := n.Int64(); err != nil || i < 0 {
			t.Errorf("usage token count %s is not a whole number", *n)
		}
	}
	if *resp.Model != model {
		t.Errorf("model %q, want %q (the engine that answered, never the alias)", *resp.Model, model)
	}
	var req struct {
		Questions map[string]struct {
			Type     string          `json:"type"`
			Criteria json.RawMessage `json:"criteria"`
		} `json:"questions"`
	}
	if err := json.Unmarshal([]byte(reqBody), &req); err != nil {
		t.Fatal(err)
	}
	if sent, got := keysInOrder(t, []byte(reqBody), "questions"), keysInOrder(t, body, "answers"); !slices.Equal(sent, got) {
		t.Errorf("answers in order %v, want the questions' order %v", got, sent)
	}
	for name, raw := range resp.Answers {
		q := req.Questions[name]
		if err := checkAnswer(q.Type, q.Criteria, raw); err != nil {
			t.Errorf("answer %s: %v: %.300s", name, err, raw)
		}
	}
}

// checkAnswer checks one answer against NoulAnswer, ChoiceAnswer or
// ScoreAnswer (every required field, of its type) and its question.
func checkAnswer(typ string, criteria, raw json.RawMessage) error {
	var a struct {
		Type          string                     `json:"type"`
		Noul          *float64                   `json:"noul"`
		Choice        *string                    `json:"choice"`
		Score         *float64                   `json:"score"`
		Confidence    *float64                   `json:"confidence"`
		Probabilities map[string]float64         `json:"probabilities"`
		Legend        map[string]json.RawMessage `json:"legend"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return err
	}
	if a.Type != typ {
		return fmt.Errorf("type %q for a %s question", a.Type, typ)
	}
	unit := func(p *float64) bool { return p != nil && *p >= 0 && *p <= 1 }
	sumsToOne := func() bool {
		s := 0.0
		for _, p := range a.Probabilities {
			s += p
		}
		return math.Abs(s-1) < 1e-9
	}
	switch typ {
	case "noul":
		if !unit(a.Noul) {
			return fmt.Errorf("noul %v", a.Noul)
		}
	case "choice":
		var opts map[string]json.RawMessage
		_ = json.Unmarshal(criteria, &opts)
		if a.Choice == nil || opts[*a.Choice] == nil || !unit(a.Confidence) || len(a.Probabilities) != len(opts) || !sumsToOne() {
			return fmt.Errorf("not a choice answer among %d options", len(opts))
		}
		for o := range opts {
			if _, ok := a.Probabilities[o]; !ok {
				return fmt.Errorf("no probability for %q", o)
			}
		}
	case "score":
		var levels []json.RawMessage
		_ = json.Unmarshal(criteria, &levels)
		if a.Score == nil || !unit(a.Confidence) || len(a.Probabilities) != len(levels) || len(a.Legend) != len(levels) || !sumsToOne() {
			return fmt.Errorf("not a score answer over %d levels", len(levels))
		}
		expected := 0.0
		for i, l := range levels {
			key := fmt.Sprint(i)
			expected += float64(i) * a.Probabilities[key]
			// The legend echoes each level as it was sent.
			if got, want := compactJSON(a.Legend[key]), compactJSON(l); got != want {
				return fmt.Errorf("legend %s is %s, want %s as sent", key, got, want)
			}
		}
		if math.Abs(*a.Score-expected) > 1e-9 {
			return fmt.Errorf("score %v, want Σ i·pᵢ = %v", *a.Score, expected)
		}
	}
	return nil
}

// checkValidationError checks a 422 against HTTPValidationError: detail a
// list of {loc, msg, type}, each loc a list of strings and numbers, plus
// the input the judge quotes; the first item at loc with kind typ.
func checkValidationError(t *testing.T, name string, r result, loc, typ string) {
	t.Helper()
	if r.status != http.StatusUnprocessableEntity {
		t.Errorf("%s: status %d, want 422: %.300s", name, r.status, r.body)
		return
	}
	var body struct {
		Detail []map[string]json.RawMessage `json:"detail"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || len(body.Detail) == 0 {
		t.Errorf("%s: not an HTTPValidationError (%v): %.300s", name, err, r.body)
		return
	}
	for _, it := range body.Detail {
		var l []any
		var msg, kind string
		if json.Unmarshal(it["loc"], &l) != nil || json.Unmarshal(it["msg"], &msg) != nil || json.Unmarshal(it["type"], &kind) != nil ||
			len(l) == 0 || msg == "" || kind == "" || it["input"] == nil || len(it["input"]) > 300 {
			t.Errorf("%s: item %v is not {loc, msg, type, input}", name, it)
		}
	}
	var first []string
	_ = json.Unmarshal(body.Detail[0]["loc"], &first)
	var kind string
	_ = json.Unmarshal(body.Detail[0]["type"], &kind)
	if got := strings.Join(first, "."); got != loc || kind != typ {
		t.Errorf("%s: first item at %s (%s), want %s (%s): %.300s", name, got, kind, loc, typ, r.body)
	}
}

// keysInOrder lists the keys of the object at field of a JSON object, in
// the order they are written.
func keysInOrder(t *testing.T, doc []byte, field string) []string {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(top[field]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s is not an object", field)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// doWith posts body to path with an Idempotency-Key.
func (j *judge) doWith(t *testing.T, path, key, body, idempotencyKey string) result {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, j.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", idempotencyKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return result{resp.StatusCode, resp.Header, b.Bytes()}
}
