package chatadapter

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// wireReference is the reply shape decoded by encoding/json, the
// reference the lean decoder must agree with.
type wireReference struct {
	Model   string      `json:"model"`
	Choices []refChoice `json:"choices"`
	Usage   struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

type refChoice struct {
	Message struct {
		Content string `json:"content"`
		Refusal string `json:"refusal"`
	} `json:"message"`
	Logprobs *struct {
		Content []refToken `json:"content"`
	} `json:"logprobs"`
}

type refToken struct {
	Token       string         `json:"token"`
	Logprob     float64        `json:"logprob"`
	TopLogprobs []tokenLogprob `json:"top_logprobs"`
}

// logprobsReply is a provider's reply with fields the adapter skips
// (ids, byte arrays) around the ones it reads.
const logprobsReply = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"bench-model-2025",
 "choices":[{"index":0,"finish_reason":"length","message":{"role":"assistant","content":"yes"},
  "logprobs":{"content":[{"token":"yes","logprob":-0.2,"bytes":[121,101,115],
   "top_logprobs":[{"token":"yes","logprob":-0.2,"bytes":[121,101,115]},{"token":"A","logprob":-1.5,"bytes":[65]}]}]}}],
 "usage":{"prompt_tokens":120,"completion_tokens":1,"total_tokens":121}}`

func TestDecodeCompletion(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		wantErr string // "" means it decodes
		check   func(t *testing.T, c *chatCompletion)
	}{
		{"logprobs reply", logprobsReply, "", func(t *testing.T, c *chatCompletion) {
			if c.Model != "bench-model-2025" || c.Usage.PromptTokens != 120 || c.Usage.CompletionTokens != 1 {
				t.Fatalf("model/usage = %q %+v", c.Model, c.Usage)
			}
			lp := c.Choices[0].Logprobs
			if lp == nil || len(lp.Content) != 1 || len(lp.Content[0].TopLogprobs) != 2 || lp.Content[0].TopLogprobs[1] != (tokenLogprob{"A", -1.5}) {
				t.Fatalf("logprobs = %+v", lp)
			}
		}},
		{"escaped content", `{"choices":[{"message":{"content":"{\"A\": 0.5,\n \"B\": \"\u00e9\"}","refusal":null}}]}`, "", func(t *testing.T, c *chatCompletion) {
			if got := c.Choices[0].Message.Content; got != "{\"A\": 0.5,\n \"B\": \"é\"}" {
				t.Fatalf("content = %q", got)
			}
			if c.Choices[0].Logprobs != nil {
				t.Fatal("logprobs present in a reply without them")
			}
		}},
		{"null logprobs", `{"choices":[{"message":{"content":"yes"},"logprobs":null}]}`, "", func(t *testing.T, c *chatCompletion) {
			if c.Choices[0].Logprobs != nil {
				t.Fatal("null logprobs decoded as present")
			}
		}},
		{"empty logprobs content", `{"choices":[{"message":{"content":"yes"},"logprobs":{"content":[]}}]}`, "", func(t *testing.T, c *chatCompletion) {
			if lp := c.Choices[0].Logprobs; lp == nil || len(lp.Content) != 0 {
				t.Fatalf("logprobs = %+v", lp)
			}
		}},
		{"no choices", `{"model":"m","choices":[]}`, "", func(t *testing.T, c *chatCompletion) {
			if len(c.Choices) != 0 {
				t.Fatal("choices appeared")
			}
		}},
		{"repeated key", `{"model":"a","choices":[],"model":"b"}`, "", func(t *testing.T, c *chatCompletion) {
			if c.Model != "b" {
				t.Fatalf("model = %q, want the last value", c.Model)
			}
		}},
		{"truncated", `{"choices":[{"message":`, "not valid JSON", nil},
		{"array", `[1,2]`, "not a JSON object", nil},
		{"content a number", `{"choices":[{"message":{"content":5}}]}`, "message.content is not a string", nil},
		{"choices an object", `{"choices":{"0":{}}}`, "choices is not an array", nil},
		{"logprob a string", `{"choices":[{"logprobs":{"content":[{"token":"a","logprob":"x"}]}}]}`, "logprob is not a number", nil},
		{"fractional tokens", `{"usage":{"prompt_tokens":1.5}}`, "not an integer", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c chatCompletion
			err := decodeCompletion([]byte(tt.body), &c)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, &c)
		})
	}
}

// FuzzDecodeCompletion: provider replies are untrusted. The lean decoder
// must never panic on any body, and a reply encoded by encoding/json from
// any field values must decode to exactly those values. (Raw bodies are
// not compared with encoding/json: it matches keys case-insensitively,
// where the decoder reads keys as the wire format spells them.)
func FuzzDecodeCompletion(f *testing.F) {
	f.Add([]byte(logprobsReply), "m", "yes", "A", -0.5, int64(120))
	f.Add([]byte(`{"choices":null,"usage":null}`), "", "{\"A\": 1}", "\u00e9", 0.0, int64(0))
	f.Add([]byte(`{"choices":[{"message":{"content":5}}]}`), "snap\n", "<>&", "\x00", -1e300, int64(-3))
	f.Fuzz(func(t *testing.T, body []byte, model, content, token string, logprob float64, prompt int64) {
		var c chatCompletion
		_ = decodeCompletion(body, &c)

		if math.IsNaN(logprob) || math.IsInf(logprob, 0) || prompt > 1<<53 || prompt < -(1<<53) {
			return // not representable in a JSON reply
		}
		var ref wireReference
		ref.Model, ref.Usage.PromptTokens = model, prompt
		ref.Choices = make([]refChoice, 1)
		ref.Choices[0].Message.Content = content
		ref.Choices[0].Logprobs = &struct {
			Content []refToken `json:"content"`
		}{Content: []refToken{{token, logprob, []tokenLogprob{{token, logprob}, {content, logprob / 2}}}}}
		b, err := json.Marshal(ref)
		if err != nil {
			t.Fatal(err)
		}
		// encoding/json replaces invalid UTF-8; compare with what it sent.
		var sent wireReference
		if err := json.Unmarshal(b, &sent); err != nil {
			t.Fatal(err)
		}
		var got chatCompletion
		if err := decodeCompletion(b, &got); err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
		tok := got.Choices[0].Logprobs.Content[0]
		want := sent.Choices[0].Logprobs.Content[0]
		if got.Model != sent.Model || got.Usage.PromptTokens != sent.Usage.PromptTokens ||
			got.Choices[0].Message.Content != sent.Choices[0].Message.Content ||
			tok.Token != want.Token || tok.Logprob != want.Logprob ||
			len(tok.TopLogprobs) != 2 || tok.TopLogprobs[0] != want.TopLogprobs[0] || tok.TopLogprobs[1] != want.TopLogprobs[1] {
			t.Fatalf("decoded %+v from %s", got, b)
		}
	})
}
