package systemone

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const exampleBody = `{
  "model": "local/lexical-latest",
  "state": "My card was charged twice and nobody answers. This is unacceptable!",
  "questions": {
    "urgent": {"type": "noul", "instructions": "Does this need an answer today?",
               "criteria": {"true": "needs an answer today", "false": "can wait"}},
    "team":   {"type": "choice", "instructions": "Which team should handle it?",
               "criteria": {"technical": "bugs, outages", "billing": {"covers": ["charges", "refunds"]},
                            "sales": null, "accounts": ["login", "profile"]}},
    "anger":  {"type": "score", "instructions": ["How angry is the customer?"],
               "criteria": ["calm", "annoyed", "angry"]}
  }
}`

func TestDecodeRequestExample(t *testing.T) {
	req, err := DecodeRequest([]byte(exampleBody))
	if err != nil {
		t.Fatal(err)
	}
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	if req.Model != "local/lexical-latest" {
		t.Errorf("model = %q", req.Model)
	}
	if got := string(req.State); !strings.HasPrefix(got, `"My card`) {
		t.Errorf("state = %s", got)
	}
	urgent := req.Questions["urgent"]
	if urgent.Type != TypeNoul || urgent.Noul == nil || string(urgent.Noul.True) != `"needs an answer today"` || string(urgent.Noul.False) != `"can wait"` {
		t.Errorf("urgent = %+v", urgent)
	}
	team := req.Questions["team"]
	var names []string
	for _, o := range team.Options {
		names = append(names, o.Name)
	}
	// Deliberately not alphabetical: the caller's order must survive.
	if want := []string{"technical", "billing", "sales", "accounts"}; !slices.Equal(names, want) {
		t.Errorf("option order = %v, want %v", names, want)
	}
	if d := string(team.Options[1].Description); d != `{"covers":["charges","refunds"]}` {
		t.Errorf("billing description = %s", d)
	}
	if team.Options[2].Description != nil {
		t.Errorf("null description = %s, want nil", team.Options[2].Description)
	}
	anger := req.Questions["anger"]
	if !reflect.DeepEqual(anger.Levels, Texts("calm", "annoyed", "angry")) {
		t.Errorf("levels = %v", anger.Levels)
	}
}

func TestOptionOrderRoundTrip(t *testing.T) {
	q := Question{Type: TypeChoice, Instructions: json.RawMessage(`"pick"`)}
	// 40 names in an order no sort would produce.
	for i := range 40 {
		q.Options = append(q.Options, Option{Name: fmt.Sprintf("opt-%02d", (i*17)%40), Description: json.RawMessage(`"d"`)})
	}
	b, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	var back Question
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(q, back) {
		t.Fatalf("round trip changed the question:\n got %+v\nwant %+v", back, q)
	}

	// Levels keep their order too, and a whole request survives.
	req, err := DecodeRequest([]byte(exampleBody))
	if err != nil {
		t.Fatal(err)
	}
	b, err = json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	req2, err := DecodeRequest(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(req, req2) {
		t.Fatalf("request round trip differs:\n got %+v\nwant %+v", req2, req)
	}
}

func TestQuestionMarshalWireForm(t *testing.T) {
	tests := []struct {
		q    Question
		want string
	}{
		{Question{Type: TypeNoul, Instructions: json.RawMessage(`"spam?"`)}, `{"type":"noul","instructions":"spam?"}`},
		{Question{Type: TypeNoul, Instructions: json.RawMessage(`"spam?"`), Noul: &NoulCriteria{True: Text("spam"), False: Text("ham")}},
			`{"type":"noul","instructions":"spam?","criteria":{"true":"spam","false":"ham"}}`},
		{Question{Type: TypeChoice, Instructions: json.RawMessage(`"team"`), Options: []Option{{Name: "z"}, {Name: "a", Description: json.RawMessage(`[1]`)}}},
			`{"type":"choice","instructions":"team","criteria":{"z":null,"a":[1]}}`},
		{Question{Type: TypeScore, Instructions: json.RawMessage(`{"q":"anger"}`), Levels: Texts("low", "high")},
			`{"type":"score","instructions":{"q":"anger"},"criteria":["low","high"]}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.q)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("Marshal = %s\n       want %s", b, tt.want)
		}
	}
}

// body builds a request body around one question named "q".
func body(question string) string {
	return `{"model":"m","state":"text","questions":{"q":` + question + `}}`
}

func TestDecodeRequestShapes(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		loc     string // the loc of the first item, joined by "."
		errType string
	}{
		{"array body", `[]`, "body", "dict_type"},
		{"number as state", `{"model":"m","state":42,"questions":{"q":{"type":"noul","instructions":"x"}}}`, "body.state", "value_error"},
		{"boolean as state", `{"model":"m","state":true,"questions":{"q":{"type":"noul","instructions":"x"}}}`, "body.state", "value_error"},
		{"null state", `{"model":"m","state":null,"questions":{"q":{"type":"noul","instructions":"x"}}}`, "body.state", "value_error"},
		{"missing state", `{"model":"m","questions":{"q":{"type":"noul","instructions":"x"}}}`, "body.state", "missing"},
		{"state and document", `{"model":"m","state":"s","document":"s","questions":{"q":{"type":"noul","instructions":"x"}}}`, "body.document", "value_error"},
		{"document before state", `{"model":"m","document":"s","state":"s","questions":{"q":{"type":"noul","instructions":"x"}}}`, "body.document", "value_error"},
		{"number as document", `{"model":"m","document":42,"questions":{"q":{"type":"noul","instructions":"x"}}}`, "body.document", "value_error"},
		{"document twice", `{"model":"m","document":"a","document":"b","questions":{"q":{"type":"noul","instructions":"x"}}}`, "body.document", "value_error"},
		{"missing model", `{"state":"s","questions":{"q":{"type":"noul","instructions":"x"}}}`, "body.model", "missing"},
		{"model not a string", `{"model":7,"state":"s","questions":{"q":{"type":"noul","instructions":"x"}}}`, "body.model", "string_type"},
		{"questions an array", `{"model":"m","state":"s","questions":[]}`, "body.questions", "dict_type"},
		{"duplicate question", `{"model":"m","state":"s","questions":{"q":{"type":"noul","instructions":"x"},"q":{"type":"noul","instructions":"y"}}}`, "body.questions.q", "value_error"},
		{"question a string", body(`"noul"`), "body.questions.q", "dict_type"},
		{"unknown type", body(`{"type":"rank","instructions":"x"}`), "body.questions.q.type", "enum"},
		{"type not a string", body(`{"type":1,"instructions":"x"}`), "body.questions.q.type", "string_type"},
		{"missing type", body(`{"instructions":"x"}`), "body.questions.q.type", "missing"},
		{"number instructions", body(`{"type":"noul","instructions":3}`), "body.questions.q.noul.instructions", "value_error"},
		{"noul criteria array", body(`{"type":"noul","instructions":"x","criteria":["yes","no"]}`), "body.questions.q.noul.criteria", "dict_type"},
		{"noul criteria string", body(`{"type":"noul","instructions":"x","criteria":"yes"}`), "body.questions.q.noul.criteria", "dict_type"},
		{"noul criteria not strings", body(`{"type":"noul","instructions":"x","criteria":{"true":1,"false":"b"}}`), "body.questions.q.noul.criteria.true", "value_error"},
		{"choice criteria array", body(`{"type":"choice","instructions":"x","criteria":["a","b"]}`), "body.questions.q.choice.criteria", "dict_type"},
		{"choice criteria missing", body(`{"type":"choice","instructions":"x"}`), "body.questions.q.choice.criteria", "missing"},
		{"choice description number", body(`{"type":"choice","instructions":"x","criteria":{"a":1,"b":"x"}}`), "body.questions.q.choice.criteria.a", "value_error"},
		{"choice description boolean", body(`{"type":"choice","instructions":"x","criteria":{"a":"x","b":false}}`), "body.questions.q.choice.criteria.b", "value_error"},
		{"duplicate option", body(`{"type":"choice","instructions":"x","criteria":{"a":"x","a":"y"}}`), "body.questions.q.choice.criteria.a", "value_error"},
		{"score criteria object", body(`{"type":"score","instructions":"x","criteria":{"0":"low","1":"high"}}`), "body.questions.q.score.criteria", "list_type"},
		{"score criteria missing", body(`{"type":"score","instructions":"x"}`), "body.questions.q.score.criteria", "missing"},
		{"score level number", body(`{"type":"score","instructions":"x","criteria":["low",2]}`), "body.questions.q.score.criteria.1", "value_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeRequest([]byte(tt.body))
			assertItem(t, err, tt.loc, tt.errType)
		})
	}
}

// A body that is not JSON at all has no field path to name: it is a
// *SyntaxError, not a list of problems.
func TestDecodeRequestNotJSON(t *testing.T) {
	for _, body := range []string{`{"model":`, ``, `{"a":1}x`} {
		_, err := DecodeRequest([]byte(body))
		if se, ok := err.(*SyntaxError); !ok || se.Msg == "" {
			t.Errorf("body %q: %v (%T), want a *SyntaxError", body, err, err)
		}
	}
}

// An earlier draft of the API called state document; such a request
// decodes to the same Request.
func TestDecodeRequestDocumentAlias(t *testing.T) {
	for _, state := range []string{`"My card was charged twice."`, `{"ticket":{"id":7,"text":"refund"}}`, `["a","b"]`} {
		viaState, err := DecodeRequest([]byte(`{"model":"m","state":` + state + `,"questions":{"q":{"type":"noul","instructions":"x"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		viaDocument, err := DecodeRequest([]byte(`{"model":"m","document":` + state + `,"questions":{"q":{"type":"noul","instructions":"x"}}}`))
		if err != nil {
			t.Fatalf("document %s: %v", state, err)
		}
		if string(viaDocument.State) != string(viaState.State) || viaDocument.State == nil {
			t.Errorf("document %s decoded to state %s, want %s", state, viaDocument.State, viaState.State)
		}
		if err := viaDocument.Validate(); err != nil {
			t.Errorf("document %s: %v", state, err)
		}
	}
	// Both names at once: one problem, on document, saying why.
	_, err := DecodeRequest([]byte(`{"model":"m","state":"a","document":"a","questions":{"q":{"type":"noul","instructions":"x"}}}`))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Items) != 1 {
		t.Fatalf("err = %v, want one validation item", err)
	}
	if it := ve.Items[0]; strings.Join(it.Loc, ".") != "body.document" || !strings.Contains(it.Msg, "state") {
		t.Errorf("item %+v, want loc body.document and a message naming state", it)
	}
}

func TestDecodeRequestIgnoresUnknownFields(t *testing.T) {
	req, err := DecodeRequest([]byte(`{"model":"m","state":{"a":1},"stream":false,"questions":{"q":{"type":"noul","instructions":"x","weight":2}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeRequestReportsEveryProblem(t *testing.T) {
	_, err := DecodeRequest([]byte(`{"model":1,"state":2,"questions":{"a":{"type":"x","instructions":"i"},"b":{"type":"score","instructions":"i","criteria":"low"}}}`))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want *ValidationError", err)
	}
	if len(ve.Items) != 4 {
		t.Fatalf("got %d items, want 4: %+v", len(ve.Items), ve.Items)
	}
	// The items render as FastAPI's detail list.
	b, _ := json.Marshal(ve.Items[0])
	if want := `{"loc":["body","model"],"msg":"model must be a string","type":"string_type","input":1}`; string(b) != want {
		t.Errorf("item JSON = %s, want %s", b, want)
	}
}

// assertItem checks that err is a *ValidationError whose items include one
// at loc with the given type.
func assertItem(t *testing.T, err error, loc, errType string) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want *ValidationError", err)
	}
	for _, it := range ve.Items {
		if strings.Join(it.Loc, ".") == loc && it.Type == errType {
			if it.Msg == "" {
				t.Errorf("item at %s has no message", loc)
			}
			return
		}
	}
	t.Errorf("no %s item at %s in %+v", errType, loc, ve.Items)
}

// decoderEntries is objectEntries done with encoding/json's token reader,
// the reference the hand-written scanner is held to.
func decoderEntries(raw []byte) (entries []entry, dups []string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, _ := dec.Token()
		key, _ := tok.(string)
		var val json.RawMessage
		_ = dec.Decode(&val)
		if seen[key] {
			dups = append(dups, key)
			continue
		}
		seen[key] = true
		entries = append(entries, entry{key, val})
	}
	return entries, dups
}

func FuzzObjectEntries(f *testing.F) {
	f.Add([]byte(exampleBody))
	f.Add([]byte(` { "a" : [1, {"b": "}\"]"}] , "a":null, "\u00e9\\":-1.5e3,"x":true } `))
	f.Add([]byte(`{}`))
	keys := make([]string, 40)
	for i := range keys {
		keys[i] = fmt.Sprintf(`"k%d":%d`, i%25, i)
	}
	f.Add([]byte("{" + strings.Join(keys, ",") + "}"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) || kindOf(raw) != kindObject {
			return
		}
		got, gotDups, _, err := objectEntries(raw, nil, 0)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		want, wantDups := decoderEntries(raw)
		if len(got) != len(want) || !slices.Equal(gotDups, wantDups) {
			t.Fatalf("%s: entries %v dups %v, want %v %v", raw, got, gotDups, want, wantDups)
		}
		for i := range got {
			if got[i].key != want[i].key || !bytes.Equal(bytes.TrimSpace(got[i].val), want[i].val) {
				t.Fatalf("%s: entry %d = %q:%s, want %q:%s", raw, i, got[i].key, got[i].val, want[i].key, want[i].val)
			}
		}
	})
}

// BenchmarkDecodeRequest is the decoding alone (the scanner's share of a
// request, no token counting) of the example body with a 2 KB state.
func BenchmarkDecodeRequest(b *testing.B) {
	state := strings.Repeat("My order #4411 arrived damaged and support has not replied in 3 days. ", 30)[:2048]
	stateJSON, _ := json.Marshal(state)
	reqBody := []byte(strings.Replace(exampleBody, `"My card was charged twice and nobody answers. This is unacceptable!"`, string(stateJSON), 1))
	b.SetBytes(int64(len(reqBody)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRequest(reqBody); err != nil {
			b.Fatal(err)
		}
	}
}

// The order of the questions survives decoding, encoding a request (the
// judge's call to a System One upstream) and a response both ways.
func TestOrderKeptEndToEnd(t *testing.T) {
	req, err := DecodeRequest([]byte(`{"model":"m","state":"s","questions":{
		"zeta":{"type":"noul"},"alpha":{"type":"noul","instructions":null},"mid":{"type":"noul","instructions":"x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"zeta", "alpha", "mid"}
	if got := req.QuestionNames(); !slices.Equal(got, want) {
		t.Fatalf("QuestionNames %v, want %v", got, want)
	}
	wire, _ := json.Marshal(req)
	if !strings.Contains(string(wire), `"questions":{"zeta":{"type":"noul"},"alpha":{"type":"noul"},"mid":`) {
		t.Errorf("request written as %s", wire)
	}
	p := 0.5
	resp := Response{Model: "m", Order: want, Answers: map[string]Answer{
		"alpha": {Type: TypeNoul, Noul: &p}, "mid": {Type: TypeNoul, Noul: &p}, "zeta": {Type: TypeNoul, Noul: &p}}}
	body, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(body), `{"model":"m","answers":{"zeta":`) || !strings.Contains(string(body), `"alpha":{"type":"noul","noul":0.5},"mid"`) {
		t.Errorf("response written as %s", body)
	}
	var back Response
	if err := json.Unmarshal(body, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Names(); !slices.Equal(got, want) {
		t.Errorf("decoded response names %v, want %v", got, want)
	}
	// Names left out of Order follow, sorted.
	resp.Order = []string{"mid"}
	if got := resp.Names(); !slices.Equal(got, []string{"mid", "alpha", "zeta"}) {
		t.Errorf("partial order: %v", got)
	}
}

// A body that is a string just over the bound is refused, not a panic.
func TestDecodeLongStringBody(t *testing.T) {
	for _, body := range []string{`"` + strings.Repeat("x", MaxInputBytes-1) + `"`, `"` + strings.Repeat(`\u00e9`, 100) + `"`} {
		_, err := DecodeRequest([]byte(body))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Items[0].Type != "dict_type" || string(ve.Items[0].Input) != body {
			t.Errorf("DecodeRequest(%.20s…) = %v, want a dict_type problem quoting the body", body, err)
		}
	}
}

func TestShortInput(t *testing.T) {
	long := strings.Repeat("é", 300)
	for _, tt := range []struct{ in, want string }{
		{``, `null`},
		{`{"a": 1}`, `{"a":1}`},
		{`"` + long + `"`, `"` + strings.Repeat("é", MaxInputBytes/2) + `…"`},
		{`[` + strings.Repeat(`"xx",`, 100) + `"x"]`, `"[` + strings.Repeat(`\"xx\",`, 51) + `…"`},
		// Longer than the bound only by its quotes, or by its escapes:
		// the text fits and is quoted whole.
		{`"` + strings.Repeat("x", MaxInputBytes-1) + `"`, `"` + strings.Repeat("x", MaxInputBytes-1) + `"`},
		{`"` + strings.Repeat(`\u00e9`, 100) + `"`, `"` + strings.Repeat(`\u00e9`, 100) + `"`},
	} {
		got := string(ShortInput(json.RawMessage(tt.in)))
		if got != tt.want {
			t.Errorf("ShortInput(%.40s…) = %.80s…, want %.80s…", tt.in, got, tt.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("ShortInput(%.40s…) is not JSON: %s", tt.in, got)
		}
	}
}
