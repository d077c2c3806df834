package systemone

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func options(n int) []Option {
	opts := make([]Option, n)
	for i := range opts {
		opts[i] = Option{Name: fmt.Sprintf("o%d", i)}
	}
	return opts
}

func levels(n int) []json.RawMessage {
	ls := make([]json.RawMessage, n)
	for i := range ls {
		ls[i] = Text(fmt.Sprintf("level %d", i))
	}
	return ls
}

func validRequest() Request {
	return Request{
		Model: "local/lexical-latest",
		State: json.RawMessage(`"the invoice was charged twice"`),
		Questions: map[string]Question{
			"urgent": {Type: TypeNoul, Instructions: json.RawMessage(`"urgent?"`)},
			"team":   {Type: TypeChoice, Instructions: json.RawMessage(`"team?"`), Options: options(2)},
			"anger":  {Type: TypeScore, Instructions: json.RawMessage(`"anger?"`), Levels: levels(2)},
		},
	}
}

func TestValidateBounds(t *testing.T) {
	withQuestion := func(q Question) func(*Request) {
		return func(r *Request) { r.Questions["x"] = q }
	}
	ins := json.RawMessage(`"i"`)
	tests := []struct {
		name    string
		edit    func(*Request)
		loc     string // "" means valid
		errType string
	}{
		{"valid", func(*Request) {}, "", ""},
		{"2 options", withQuestion(Question{Type: TypeChoice, Instructions: ins, Options: options(2)}), "", ""},
		{"255 options", withQuestion(Question{Type: TypeChoice, Instructions: ins, Options: options(255)}), "", ""},
		{"1 option", withQuestion(Question{Type: TypeChoice, Instructions: ins, Options: options(1)}), "body.questions.x.choice.criteria", "too_short"},
		{"0 options", withQuestion(Question{Type: TypeChoice, Instructions: ins}), "body.questions.x.choice.criteria", "too_short"},
		{"256 options", withQuestion(Question{Type: TypeChoice, Instructions: ins, Options: options(256)}), "body.questions.x.choice.criteria", "too_long"},
		{"10 levels", withQuestion(Question{Type: TypeScore, Instructions: ins, Levels: levels(10)}), "", ""},
		{"1 level", withQuestion(Question{Type: TypeScore, Instructions: ins, Levels: levels(1)}), "body.questions.x.score.criteria", "too_short"},
		{"11 levels", withQuestion(Question{Type: TypeScore, Instructions: ins, Levels: levels(11)}), "body.questions.x.score.criteria", "too_long"},
		{"blank level: read by its position", withQuestion(Question{Type: TypeScore, Instructions: ins, Levels: Texts("low", " ")}), "", ""},
		{"empty option name", withQuestion(Question{Type: TypeChoice, Instructions: ins, Options: []Option{{Name: "a"}, {Name: ""}}}), "body.questions.x.choice.criteria.", "string_too_short"},
		{"duplicate option name", withQuestion(Question{Type: TypeChoice, Instructions: ins, Options: []Option{{Name: "a"}, {Name: "a"}}}), "body.questions.x.choice.criteria.a", "value_error"},
		{"number description", withQuestion(Question{Type: TypeChoice, Instructions: ins, Options: []Option{{Name: "a", Description: json.RawMessage(`1`)}, {Name: "b"}}}), "body.questions.x.choice.criteria.a", "value_error"},
		{"noul with levels", withQuestion(Question{Type: TypeNoul, Instructions: ins, Levels: levels(2)}), "body.questions.x.noul.criteria", "dict_type"},
		{"choice with levels", withQuestion(Question{Type: TypeChoice, Instructions: ins, Options: options(2), Levels: levels(2)}), "body.questions.x.choice.criteria", "dict_type"},
		{"score with options", withQuestion(Question{Type: TypeScore, Instructions: ins, Levels: levels(2), Options: options(2)}), "body.questions.x.score.criteria", "list_type"},
		{"unknown type", withQuestion(Question{Type: "rank", Instructions: ins}), "body.questions.x.type", "enum"},
		{"empty type", withQuestion(Question{Instructions: ins}), "body.questions.x.type", "enum"},
		{"no instructions", withQuestion(Question{Type: TypeNoul}), "", ""},
		{"number instructions", withQuestion(Question{Type: TypeNoul, Instructions: json.RawMessage(`5`)}), "body.questions.x.noul.instructions", "value_error"},
		{"empty question name", func(r *Request) { r.Questions[""] = Question{Type: TypeNoul, Instructions: ins} }, "body.questions.", "string_too_short"},
		{"blank question name", func(r *Request) { r.Questions["  "] = Question{Type: TypeNoul, Instructions: ins} }, "body.questions.  ", "string_too_short"},
		{"no questions", func(r *Request) { r.Questions = nil }, "body.questions", "too_short"},
		{"empty model", func(r *Request) { r.Model = "" }, "body.model", "string_too_short"},
		{"number as state", func(r *Request) { r.State = json.RawMessage(`42`) }, "body.state", "value_error"},
		{"boolean as state", func(r *Request) { r.State = json.RawMessage(`false`) }, "body.state", "value_error"},
		{"null state", func(r *Request) { r.State = json.RawMessage(`null`) }, "body.state", "value_error"},
		{"missing state", func(r *Request) { r.State = nil }, "body.state", "missing"},
		{"object state", func(r *Request) { r.State = json.RawMessage(`{"ticket":{"body":"hi"}}`) }, "", ""},
		{"array state", func(r *Request) { r.State = json.RawMessage(`["hi","there"]`) }, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRequest()
			tt.edit(&r)
			err := r.Validate()
			if tt.loc == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			assertItem(t, err, tt.loc, tt.errType)
		})
	}
}

func TestValidateDecodedBounds(t *testing.T) {
	// The same bounds hold for requests that arrive as JSON: past the
	// upper bound the decoder refuses them itself, before reading the
	// options.
	crit := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`"o%d":null`, i)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	for _, tt := range []struct {
		n       int
		errType string
	}{{1, "too_short"}, {2, ""}, {255, ""}, {256, "too_long"}} {
		req, err := DecodeRequest([]byte(body(`{"type":"choice","instructions":"x","criteria":` + crit(tt.n) + `}`)))
		if err == nil {
			err = req.Validate()
		}
		if tt.errType == "" {
			if err != nil {
				t.Errorf("%d options: %v", tt.n, err)
			}
			continue
		}
		assertItem(t, err, "body.questions.q.choice.criteria", tt.errType)
	}
}

func BenchmarkDecodeValidate(b *testing.B) {
	state := strings.Repeat("My order #4411 arrived damaged and support has not replied in 3 days. ", 30)[:2048]
	stateJSON, _ := json.Marshal(state)
	reqBody := []byte(strings.Replace(exampleBody, `"My card was charged twice and nobody answers. This is unacceptable!"`, string(stateJSON), 1))
	b.SetBytes(int64(len(reqBody)))
	for b.Loop() {
		req, err := DecodeRequest(reqBody)
		if err != nil {
			b.Fatal(err)
		}
		if err := req.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}
