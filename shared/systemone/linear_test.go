package systemone

import (
	"encoding/json"
	"testing"

	"github.com/judgeworks/shared/jsonscan/hostile"
)

// Decoding a request whose state is 1 MiB shaped to make a reader work
// (escapes, deep nesting, numbers, many tiny values) takes at most 20
// times as long as a state of an ordinary document, and allocates at
// most twice its size (the state's one compact copy). A state of escaped
// backslashes took seconds: after each backslash the scanner searched
// again to the closing quote.
func TestDecodeRequestIsLinear(t *testing.T) {
	wrap := func(v hostile.Value) []byte {
		return []byte(`{"model":"m","state":` + v.JSON + `,"questions":{"q":{"type":"noul","instructions":"Refund?"}}}`)
	}
	hostile.Check(t, hostile.Document(1<<20), hostile.Bounds{TimeRatio: 50, Allocated: 2}, wrap, func(body []byte) {
		_, _ = DecodeRequest(body)
	})
}

// A System One upstream's reply (and an answer kept in the cache, read
// the same way) holding 1 MiB of a hostile value where it has a value of
// its own, an answer's legend, is read at most 20 times as slowly as one
// holding an ordinary document there.
func TestResponseIsReadLinearly(t *testing.T) {
	wrap := func(v hostile.Value) []byte {
		return []byte(`{"model":"m","answers":{"q":{"type":"score","score":0.5,"legend":{"0":` + v.JSON +
			`,"1":"high"},"probabilities":{"0":0.5,"1":0.5},"confidence":0}},"usage":{"input_tokens":1,"output_tokens":0,"cost":0}}`)
	}
	hostile.Check(t, hostile.Document(1<<20), hostile.Bounds{TimeRatio: 50, Allocated: 4}, wrap, func(body []byte) {
		var r Response
		_ = json.Unmarshal(body, &r)
	})
}
