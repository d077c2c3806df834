package decisions

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The state an input makes is the bytes encoding/json wrote when the
// decoder built maps and marshalled them (the reference below): answers,
// the cache and stored answers depend on it, byte for byte. It is now
// written as it is read.
func TestStateAsEncodingJSONWroteIt(t *testing.T) {
	inputs := []string{
		`"Refund <me> & my \"order\" \u00e9\u2028"`,
		`[{"role":"user","content":"one lone message <b>"}]`,
		`[{"role":"user","content":[{"type":"input_text","text":"a <x>"},{"type":"input_text","text":"b\nc"}]}]`,
		`[{"role":"system","content":"be brief"},{"role":"user","content":"I was charged twice & want it back"}]`,
		`[{"role":"user","content":[{"type":"input_text","text":"see"},{"type":"input_json","data":{"order": 7, "note": "<&>", "items": [1, 2]}}]}]`,
		`[{"role":"assistant","content":[{"type":"output_text","text":"ok"},{"type":"refusal","refusal":"no <thanks>"}]},{"role":"user","content":"why?"}]`,
		`[{"type":"function_call","call_id":"c1","name":"lookup","arguments":"{\"id\": \"<7>\"}"},` +
			`{"type":"function_call_output","call_id":"c1","output":"found & shipped"},` +
			`{"type":"custom_tool_call","call_id":"c2","name":"grep","input":"refund"},` +
			`{"type":"custom_tool_call_output","call_id":"c2","output":[{"type":"input_text","text":"2 hits"}]},` +
			`{"type":"message","role":"user","content":"thanks"}]`,
		`[{"role":"user","content":[{"type":"input_json","data":[ {"a" : "\u0041\/"} ]}]},{"role":"developer","content":[{"type":"input_text","text":"x"}]}]`,
	}
	for _, input := range inputs {
		body := `{"model":"m","input":` + input + `,"questions":[{"type":"predicate","instructions":"Refund?"}]}`
		tr, err := Decode([]byte(body), MaxQuestions)
		if err != nil {
			t.Fatalf("%s: %v", input, err)
		}
		if want := referenceState(t, json.RawMessage(input)); !bytes.Equal(tr.Request.State, want) {
			t.Errorf("input %s\n state %s\n  want %s", input, tr.Request.State, want)
		}
	}
}

// referenceState is the state as the decoder made it with encoding/json:
// a string compacted; a lone user message's text; otherwise the items as
// maps, marshalled.
func referenceState(t *testing.T, input json.RawMessage) json.RawMessage {
	if input[0] == '"' {
		var b bytes.Buffer
		_ = json.Compact(&b, input)
		return b.Bytes()
	}
	var raws []map[string]json.RawMessage
	if err := json.Unmarshal(input, &raws); err != nil {
		t.Fatal(err)
	}
	str := func(raw json.RawMessage) string {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	var items []any
	for _, r := range raws {
		switch typ := str(r["type"]); typ {
		case "", "message":
			content := referenceContent(t, r["content"])
			if len(raws) == 1 && str(r["role"]) == "user" && content[0] == '"' {
				return content
			}
			items = append(items, map[string]any{"role": str(r["role"]), "content": content})
		case "function_call":
			items = append(items, map[string]string{"type": typ, "call_id": str(r["call_id"]), "name": str(r["name"]), "arguments": str(r["arguments"])})
		case "custom_tool_call":
			items = append(items, map[string]string{"type": typ, "call_id": str(r["call_id"]), "name": str(r["name"]), "input": str(r["input"])})
		default:
			items = append(items, map[string]any{"type": typ, "call_id": str(r["call_id"]), "output": referenceContent(t, r["output"])})
		}
	}
	out, _ := json.Marshal(items)
	return out
}

func referenceContent(t *testing.T, raw json.RawMessage) json.RawMessage {
	if raw[0] == '"' {
		var b bytes.Buffer
		_ = json.Compact(&b, raw)
		return b.Bytes()
	}
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		t.Fatal(err)
	}
	var out []any
	var texts []string
	allText := true
	for _, p := range parts {
		var typ, text string
		_ = json.Unmarshal(p["type"], &typ)
		switch typ {
		case "input_text", "output_text":
			_ = json.Unmarshal(p["text"], &text)
			out, texts = append(out, text), append(texts, text)
		case "refusal":
			_ = json.Unmarshal(p["refusal"], &text)
			out, allText = append(out, map[string]string{"refusal": text}), false
		case "input_json":
			var b bytes.Buffer
			_ = json.Compact(&b, p["data"])
			out, allText = append(out, json.RawMessage(b.Bytes())), false
		}
	}
	if allText {
		b, _ := json.Marshal(strings.Join(texts, "\n\n"))
		return b
	}
	b, _ := json.Marshal(out)
	return b
}
