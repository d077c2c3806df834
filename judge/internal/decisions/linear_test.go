package decisions

import (
	"strings"
	"testing"

	"github.com/judgeworks/shared/jsonscan/hostile"
)

// Decoding a request whose input is 1 MiB shaped to make a reader work
// (escapes, deep nesting, numbers, many tiny values), as a string or as
// an input_json part, takes at most 20 times as long as an input of
// ordinary conversation (or an ordinary document) of the same size, and
// allocates at most 4 (6) times its size. A megabyte of "{},{}…" took 130 MB
// and seconds: a map and a copy per element, a problem per element.
func TestDecodeIsLinear(t *testing.T) {
	read := func(body []byte) { _, _ = Decode(body, MaxQuestions) }
	t.Run("input", func(t *testing.T) {
		wrap := func(v hostile.Value) []byte {
			return []byte(`{"model":"m","input":` + v.JSON + `,"questions":[{"type":"predicate","instructions":"Refund?"}]}`)
		}
		hostile.Check(t, conversation(1<<20), hostile.Bounds{TimeRatio: 50, Allocated: 4}, wrap, read)
	})
	t.Run("input_json", func(t *testing.T) {
		wrap := func(v hostile.Value) []byte {
			return []byte(`{"model":"m","input":[{"role":"user","content":[{"type":"input_json","data":` + v.JSON +
				`}]}],"questions":[{"type":"predicate","instructions":"Refund?"}]}`)
		}
		hostile.Check(t, hostile.Document(1<<20), hostile.Bounds{TimeRatio: 50, Allocated: 6}, wrap, read)
	})
}

// conversation is an input of ordinary messages, about size bytes.
func conversation(size int) hostile.Value {
	const turns = `{"role":"user","content":"I was charged twice for one order. Please refund the duplicate."},` +
		`{"role":"assistant","content":[{"type":"output_text","text":"I can see both charges: the second is refunded."}]},`
	b := strings.Repeat(turns, (size-2)/len(turns))
	return hostile.Value{Name: "plain conversation", JSON: "[" + strings.TrimSuffix(b, ",") + "]"}
}
