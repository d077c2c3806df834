package chatadapter

import (
	"testing"

	"github.com/judgeworks/shared/jsonscan/hostile"
)

// A reply of 2 MiB (a quarter of the most a reply may be) shaped to make
// a reader work, in the places a provider writes (the message, a field
// the adapter does not read, the list of choices, the logprobs), is read
// at most 20 times as slowly as one with an ordinary document there, and
// allocates at most 3 times its size (the content decoded is kept): only
// the first choice, the first token and the top logprobs asked for are
// kept. The scanner searched again to the closing quote after every
// backslash, and every choice and token of the reply was kept.
func TestRepliesAreReadLinearly(t *testing.T) {
	const size = 2 << 20
	for _, place := range []struct{ name, before, after string }{
		{"message", `{"choices":[{"message":{"content":`, `}}],"usage":{"prompt_tokens":1}}`},
		{"unread field", `{"choices":[{"message":{"content":"{}"}}],"system_fingerprint":`, `}`},
		{"choices", `{"choices":`, `}`},
		{"logprobs", `{"choices":[{"message":{"content":"a"},"logprobs":{"content":`, `}}]}`},
	} {
		t.Run(place.name, func(t *testing.T) {
			wrap := func(v hostile.Value) []byte { return []byte(place.before + v.JSON + place.after) }
			hostile.Check(t, hostile.Document(size), hostile.Bounds{TimeRatio: 50, Allocated: 3}, wrap, func(body []byte) {
				var c chatCompletion
				_ = decodeCompletion(body, &c)
			})
		})
	}
}
