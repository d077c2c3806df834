package systemone

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// referenceJSON is the response's wire form written through encoding/json
// field by field, as MarshalJSON wrote it before AppendJSON.
func referenceJSON(r Response) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"model":`)
	m, _ := marshal(r.Model)
	b.Write(m)
	b.WriteString(`,"answers":{`)
	for i, name := range r.Names() {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshal(name)
		b.Write(k)
		b.WriteByte(':')
		a, err := marshal(r.Answers[name])
		if err != nil {
			return nil, err
		}
		b.Write(a)
	}
	b.WriteString(`},"usage":`)
	u, err := marshal(r.Usage)
	if err != nil {
		return nil, err
	}
	b.Write(u)
	b.WriteByte('}')
	return b.Bytes(), nil
}

func checkSameJSON(t *testing.T, r Response) {
	t.Helper()
	want, wantErr := referenceJSON(r)
	got, gotErr := r.AppendJSON([]byte("prefix"))
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("error %v, encoding/json's %v", gotErr, wantErr)
	}
	if wantErr != nil {
		if gotErr.Error() != wantErr.Error() {
			t.Fatalf("error %q, encoding/json's %q", gotErr, wantErr)
		}
		return
	}
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
		t.Fatalf("AppendJSON wrote\n%s\nencoding/json\n%s", got, want)
	}
	if m, _ := r.MarshalJSON(); !bytes.Equal(m, want) {
		t.Fatalf("MarshalJSON wrote\n%s\nencoding/json\n%s", m, want)
	}
}

func TestAppendJSONIsEncodingJSON(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	strs := []string{"", "plain", `say "hi"`, `back\slash`, "tab\tnew\nline\r\b\f\x00\x1f", "<b>&amp;</b>",
		"caf\u00e9 \U0001F600", "line\u2028para\u2029", "bad \xff utf-8", "\x7f del"}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1.0 / 3, 1e-6, 9.99e-7, 1e-7, 1e-9, 1.5e-10,
		5e-324, 1e20, 1e21, 1.2345e22, -2.5e-8, math.MaxFloat64, 123456789.125}
	for _, s := range strs {
		checkSameJSON(t, Response{Model: s, Answers: map[string]Answer{s: {Type: TypeChoice, Choice: s,
			Probabilities: map[string]float64{s: 0.5, "b": 0.25, "a": 0.25}}}, Order: []string{s}})
	}
	for _, x := range floats {
		checkSameJSON(t, Response{Model: "m", Answers: map[string]Answer{"q": {Type: TypeNoul, Noul: f(x), Confidence: f(x)}},
			Usage: Usage{InputTokens: 12, OutputTokens: -3, Cost: x}})
	}
	legend := map[string]json.RawMessage{"0": json.RawMessage(` "low" `), "1": json.RawMessage("{ \"a\" : [1, 2] }"), "10": nil, "2": json.RawMessage(`"<&>"`)}
	checkSameJSON(t, Response{Model: "m", Answers: map[string]Answer{"s": {Type: TypeScore, Score: f(0.75), Legend: legend}}})
	// Orders: the usual one, none, duplicates, names without answers,
	// answers without names, no answers at all.
	answers := map[string]Answer{"b": {Type: TypeNoul, Noul: f(0.1)}, "a": {Type: TypeNoul, Noul: f(0.2)}, "c": {Type: TypeNoul}}
	for _, order := range [][]string{{"c", "a", "b"}, nil, {"b", "b", "a"}, {"x", "a", "b"}, {"a"}, {"a", "b", "c", "d"}} {
		checkSameJSON(t, Response{Model: "m", Answers: answers, Order: order})
	}
	checkSameJSON(t, Response{})
	// encoding/json's errors: a value it cannot write.
	for _, bad := range []Answer{{Noul: f(math.NaN())}, {Score: f(math.Inf(1))}, {Probabilities: map[string]float64{"a": math.Inf(-1)}},
		{Confidence: f(math.NaN())}, {Legend: map[string]json.RawMessage{"0": json.RawMessage("{not json")}}} {
		checkSameJSON(t, Response{Answers: map[string]Answer{"q": bad}})
	}
	checkSameJSON(t, Response{Usage: Usage{Cost: math.NaN()}})
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("m", "q", "yes", 0.5, 1e-7, []byte(`"level"`))
	f.Add("\u2028", "\xff", "<>", math.Inf(1), math.Copysign(0, -1), []byte("{ }"))
	f.Fuzz(func(t *testing.T, model, name, choice string, x, y float64, raw []byte) {
		a := Answer{Type: QuestionType(choice), Choice: choice, Noul: &x, Score: &y, Confidence: &x,
			Probabilities: map[string]float64{choice: x, name: y}, Legend: map[string]json.RawMessage{name: raw}}
		checkSameJSON(t, Response{Model: model, Answers: map[string]Answer{name: a, choice: {Type: TypeNoul}},
			Order: []string{name}, Usage: Usage{InputTokens: len(raw), Cost: y}})
	})
}

// An answer's probabilities are written in its Order (a choice's options
// as the caller listed them), keys it leaves out after them, sorted; the
// values are those encoding/json writes.
func TestProbabilitiesInOrder(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	probs := map[string]float64{"b": 0.2, "a": 0.1, "c": 0.7}
	for _, tt := range []struct {
		order []string
		want  string
	}{
		{nil, `{"a":0.1,"b":0.2,"c":0.7}`},
		{[]string{"c", "a", "b"}, `{"c":0.7,"a":0.1,"b":0.2}`},
		{[]string{"b"}, `{"b":0.2,"a":0.1,"c":0.7}`},
		{[]string{"x", "c", "c", "b"}, `{"c":0.7,"b":0.2,"a":0.1}`},
	} {
		r := Response{Model: "m", Answers: map[string]Answer{"team": {Type: TypeChoice, Choice: "c", Probabilities: probs,
			Confidence: f(0.55), Order: tt.order}}}
		got, err := r.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"model":"m","answers":{"team":{"type":"choice","choice":"c","probabilities":` + tt.want +
			`,"confidence":0.55}},"usage":{"input_tokens":0,"output_tokens":0,"cost":0}}`
		if string(got) != want {
			t.Errorf("order %v:\n%s\nwant\n%s", tt.order, got, want)
		}
	}

	// Past the short lists checked in place: 40 options, reversed.
	many := map[string]float64{}
	var order []string
	for i := range 40 {
		name := fmt.Sprintf("o%02d", i)
		many[name] = float64(i) / 780
		order = append([]string{name}, order...)
	}
	got, err := (&Response{Answers: map[string]Answer{"q": {Type: TypeChoice, Probabilities: many, Order: order}}}).AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range strings.SplitSeq(string(got), `"o`) {
		if len(k) > 2 && k[2] == '"' {
			keys = append(keys, "o"+k[:2])
		}
	}
	if !slices.Equal(keys, order) {
		t.Errorf("40 options written in order %v, want %v", keys, order)
	}
}
