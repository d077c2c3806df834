package systemone

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// A score level of null is refused (422 at the level's path), decoded
// or built in Go: answers echo every level in their legend, and the
// System One Go SDK refuses a legend holding a null as an invalid
// response, after the caller was charged. The hosted service refuses it
// too. Text and JSON levels stay accepted; descriptions and meanings may
// still be null.
func TestNullLevelRefused(t *testing.T) {
	for _, criteria := range []string{`["low",null]`, `[null,"high"]`, `[null,null]`} {
		_, err := DecodeRequest([]byte(body(`{"type":"score","instructions":"How upset?","criteria":` + criteria + `}`)))
		loc := "body.questions.q.score.criteria.1"
		if strings.HasPrefix(criteria, "[null") {
			loc = "body.questions.q.score.criteria.0"
		}
		assertItem(t, err, loc, "value_error")
	}
	if _, err := DecodeRequest([]byte(body(`{"type":"score","criteria":["calm",{"level":"annoyed"},["angry"],""]}`))); err != nil {
		t.Errorf("text and JSON levels: %v", err)
	}
	if _, err := DecodeRequest([]byte(body(`{"type":"choice","criteria":{"a":null,"b":null}}`))); err != nil {
		t.Errorf("null descriptions: %v", err)
	}
	for _, level := range []json.RawMessage{nil, json.RawMessage("null"), json.RawMessage(" null ")} {
		r := validRequest()
		r.Questions["q"] = Question{Type: TypeScore, Instructions: Text("How upset?"), Levels: []json.RawMessage{Text("calm"), level}}
		assertItem(t, r.Validate(), "body.questions.q.score.criteria.1", "value_error")
	}
}

// A body with thousands of problems is told the first MaxProblems and,
// last, that there are more; the decoder stops reading there.
func TestProblemsStopAtMaxProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"model":"m","state":"s","questions":{`)
	for i := range 5000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"q%d":[]`, i)
	}
	b.WriteString(`}}`)
	_, err := DecodeRequest([]byte(b.String()))
	ve, ok := err.(*ValidationError)
	if !ok || len(ve.Items) != MaxProblems+1 {
		t.Fatalf("%T with %d items, want a *ValidationError of %d", err, len(ve.Items), MaxProblems+1)
	}
	if last := ve.Items[MaxProblems]; last.Type != "too_many_problems" || strings.Join(last.Loc, ".") != "body" {
		t.Errorf("last item %+v, want too_many_problems at body", last)
	}
	if first := ve.Items[0]; strings.Join(first.Loc, ".") != "body.questions.q0" {
		t.Errorf("first item at %v, want body.questions.q0", first.Loc)
	}
}

// Counts past the bounds are refused, with the count, before the values
// past them are read: a server's question limit (Decoder.MaxQuestions),
// 255 options, 10 levels. Twice the members cost no more memory.
func TestCountsRefusedUnread(t *testing.T) {
	members := func(n int, format string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(format, i)
		}
		return strings.Join(parts, ",")
	}
	tests := []struct {
		name, loc, msg string
		body           func(n int) string
		max            int
	}{
		{"questions", "body.questions", "at most 1000 questions per request, got %d",
			func(n int) string {
				return `{"model":"m","state":"s","questions":{` + members(n, `"q%d":{"type":"noul"}`) + `}}`
			}, 1000},
		{"options", "body.questions.q.choice.criteria", "allows at most 255 options, got %d",
			func(n int) string { return body(`{"type":"choice","criteria":{` + members(n, `"o%d":null`) + `}}`) }, 0},
		{"levels", "body.questions.q.score.criteria", "allows at most 10 levels, got %d",
			func(n int) string { return body(`{"type":"score","criteria":[` + members(n, `"l%d"`) + `]}`) }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var allocated [2]uint64
			for i, n := range []int{20_000, 40_000} {
				d, body := Decoder{MaxQuestions: tt.max}, []byte(tt.body(n))
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				req, err := d.Decode(body)
				runtime.ReadMemStats(&after)
				allocated[i] = after.TotalAlloc - before.TotalAlloc
				assertItem(t, err, tt.loc, "too_long")
				if want := fmt.Sprintf(tt.msg, n); !strings.Contains(err.Error(), want) {
					t.Errorf("%v, want %q", err, want)
				}
				if len(req.Questions) > 1 {
					t.Errorf("%d questions decoded", len(req.Questions))
				}
			}
			if allocated[1] > allocated[0]+allocated[0]/10+4096 {
				t.Errorf("%d bytes allocated for 20,000 members, %d for 40,000: the members past the bound were read", allocated[0], allocated[1])
			}
		})
	}
}

// ShortInput quotes as it always has (the reference below is the way it
// compacted the whole value first) while reading only the start of a
// long value.
func TestShortInputReadsTheStart(t *testing.T) {
	long := func(unit string, n int) string { return strings.Repeat(unit, n) }
	values := []string{
		`"short"`, `null`, `{"a":1}`, ` [1, 2, 3] `, `"` + long("a", 255) + `"`, `"` + long("a", 257) + `"`,
		`"` + long(`\u00e9`, 200) + `"`, `"` + long(`\u00e9`, 300) + `"`, `"` + long(`\n`, 200) + `"`, `"` + long(`\"`, 2000) + `"`,
		`"` + long("é", 200) + `"`, `"` + long("€", 2000) + `"`, `"` + long(`\ud83d\ude00`, 500) + `"`, "\"" + long("\xff", 600) + "\"",
		`[` + long(" ", 5000) + `1]`, `{"k":` + long(" ", 3000) + `"v"}`, `[` + long(`"é",`, 3000) + `1]`, `{"a":"` + long("b", 3000) + `"}`,
		`[` + long("[", 300) + long("]", 300) + `]`, `"` + long("a", 1<<20) + `"`, `[` + long(`"\\",`, 1<<18) + `1]`,
	}
	for _, v := range values {
		if got, want := ShortInput(json.RawMessage(v)), referenceShortInput(json.RawMessage(v)); !bytes.Equal(got, want) {
			t.Errorf("ShortInput(%.60s…) = %.80s, want %.80s", v, got, want)
		}
	}
	big := json.RawMessage(`"` + long(`\\`, 1<<19) + `"`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ShortInput(big)
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 16<<10 {
		t.Errorf("quoting a 1 MiB string allocated %d bytes", allocated)
	}
}

// referenceShortInput is ShortInput as it was: the whole value compacted
// and decoded, then cut.
func referenceShortInput(raw json.RawMessage) json.RawMessage {
	if kindOf(raw) == kindNone || !json.Valid(raw) {
		return json.RawMessage("null")
	}
	var c bytes.Buffer
	_ = json.Compact(&c, raw)
	if c.Len() <= MaxInputBytes {
		return c.Bytes()
	}
	text := c.String()
	if kindOf(c.Bytes()) == kindString {
		_ = json.Unmarshal(c.Bytes(), &text)
	}
	if len(text) <= MaxInputBytes {
		return c.Bytes()
	}
	cut := MaxInputBytes
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	out, _ := json.Marshal(text[:cut] + "…")
	return out
}
