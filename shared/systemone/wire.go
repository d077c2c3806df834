package systemone

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// The chat-completion wire format, only the fields the adapter sends and
// reads. The openai-go client still builds and sends every call (base URL,
// key, timeouts, error types); the adapter encodes the body and decodes
// the reply itself because the SDK's general-purpose parameter and reply
// types cost more CPU per call than the rest of a question's work, and a
// 100-question request makes 100 calls.

type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []chatMessage   `json:"messages"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	Logprobs       bool            `json:"logprobs,omitempty"`
	TopLogprobs    int             `json:"top_logprobs,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFormat struct {
	Type       string     `json:"type"`
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string         `json:"name"`
	Strict bool           `json:"strict"`
	Schema map[string]any `json:"schema"`
}

type chatCompletion struct {
	Model   string
	Choices []choice
	Usage   struct {
		PromptTokens     int64
		CompletionTokens int64
	}
}

type choice struct {
	Message struct {
		Content string
		Refusal string
	}
	Logprobs *choiceLogprobs
}

type choiceLogprobs struct {
	Content []tokenLogprobs
}

type tokenLogprobs struct {
	Token       string
	Logprob     float64
	TopLogprobs []tokenLogprob
}

type tokenLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// replyBuffers holds the buffers replies are read into; a 100-question
// request reads 100 replies at once, and each would otherwise grow a
// fresh buffer from 512 bytes.
var replyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxReply bounds a reply body: a one-token or one-object completion is a
// few kilobytes, and a provider streaming without end must not exhaust memory.
const maxReply = 8 << 20

// readReply reads and decodes a successful reply into c and closes its
// body. It takes the place of the SDK's decoding, which reads the body
// into a fresh slice, copies it again into a decoder and walks every field
// by reflection (top_logprobs carry byte arrays the adapter never reads).
func readReply(res *http.Response, c *chatCompletion) error {
	defer res.Body.Close()
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); !strings.Contains(mt, "application/json") && !strings.HasSuffix(mt, "+json") {
		return fmt.Errorf("the reply is not JSON (content type %q)", res.Header.Get("Content-Type"))
	}
	buf := replyBuffers.Get().(*bytes.Buffer)
	defer replyBuffers.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(io.LimitReader(res.Body, maxReply+1)); err != nil {
		return fmt.Errorf("error reading response body: %w", err)
	}
	if buf.Len() > maxReply {
		return fmt.Errorf("the reply is larger than %d bytes", maxReply)
	}
	return decodeCompletion(buf.Bytes(), c)
}

// decodeCompletion fills c from a chat-completion body, reading only the
// fields the adapter uses. Those fields must have their JSON types (null
// counts as absent); anything else in the body is skipped unread.
func decodeCompletion(data []byte, c *chatCompletion) error {
	if !gjson.ValidBytes(data) {
		return errors.New("error parsing response json: the reply is not valid JSON")
	}
	// One copy: the strings taken from root share it, not the pooled buffer.
	root := gjson.Parse(string(data))
	if !root.IsObject() {
		return errors.New("error parsing response json: the reply is not a JSON object")
	}
	d := wireDecoder{}
	c.Model = d.str(root.Get("model"), "model")
	if usage := root.Get("usage"); d.kind(usage, "usage", gjson.JSON, '{') {
		c.Usage.PromptTokens = d.int(usage.Get("prompt_tokens"), "usage.prompt_tokens")
		c.Usage.CompletionTokens = d.int(usage.Get("completion_tokens"), "usage.completion_tokens")
	}
	choices := root.Get("choices")
	if d.kind(choices, "choices", gjson.JSON, '[') {
		choices.ForEach(func(_, ch gjson.Result) bool {
			if !d.kind(ch, "choices[]", gjson.JSON, '{') {
				return false
			}
			c.Choices = append(c.Choices, d.choice(ch))
			return d.err == nil
		})
	}
	return d.err
}

// wireDecoder keeps the first type error met while reading a reply.
type wireDecoder struct{ err error }

func (d *wireDecoder) fail(field, want string) {
	if d.err == nil {
		d.err = fmt.Errorf("error parsing response json: %s is not %s", field, want)
	}
}

// kind reports whether r is present and of type t (for JSON values, an
// object when open is '{' or an array when '['); a wrong type is an error.
func (d *wireDecoder) kind(r gjson.Result, field string, t gjson.Type, open byte) bool {
	if !r.Exists() || r.Type == gjson.Null {
		return false
	}
	if r.Type != t || (t == gjson.JSON && r.Raw[0] != open) {
		switch {
		case t == gjson.String:
			d.fail(field, "a string")
		case t == gjson.Number:
			d.fail(field, "a number")
		case open == '{':
			d.fail(field, "an object")
		default:
			d.fail(field, "an array")
		}
		return false
	}
	return true
}

func (d *wireDecoder) str(r gjson.Result, field string) string {
	if d.kind(r, field, gjson.String, 0) {
		return r.Str
	}
	return ""
}

func (d *wireDecoder) num(r gjson.Result, field string) float64 {
	if d.kind(r, field, gjson.Number, 0) {
		return r.Num
	}
	return 0
}

func (d *wireDecoder) int(r gjson.Result, field string) int64 {
	if d.kind(r, field, gjson.Number, 0) {
		if r.Num != float64(int64(r.Num)) {
			d.fail(field, "an integer")
			return 0
		}
		return int64(r.Num)
	}
	return 0
}

func (d *wireDecoder) choice(ch gjson.Result) choice {
	var out choice
	if msg := ch.Get("message"); d.kind(msg, "message", gjson.JSON, '{') {
		out.Message.Content = d.str(msg.Get("content"), "message.content")
		out.Message.Refusal = d.str(msg.Get("refusal"), "message.refusal")
	}
	lp := ch.Get("logprobs")
	if !d.kind(lp, "logprobs", gjson.JSON, '{') {
		return out
	}
	out.Logprobs = &choiceLogprobs{}
	content := lp.Get("content")
	if !d.kind(content, "logprobs.content", gjson.JSON, '[') {
		return out
	}
	content.ForEach(func(_, tok gjson.Result) bool {
		if !d.kind(tok, "logprobs.content[]", gjson.JSON, '{') {
			return false
		}
		var t tokenLogprobs
		t.Token = d.str(tok.Get("token"), "token")
		t.Logprob = d.num(tok.Get("logprob"), "logprob")
		if tops := tok.Get("top_logprobs"); d.kind(tops, "top_logprobs", gjson.JSON, '[') {
			tops.ForEach(func(_, top gjson.Result) bool {
				if !d.kind(top, "top_logprobs[]", gjson.JSON, '{') {
					return false
				}
				t.TopLogprobs = append(t.TopLogprobs, tokenLogprob{
					Token:   d.str(top.Get("token"), "top_logprobs[].token"),
					Logprob: d.num(top.Get("logprob"), "top_logprobs[].logprob"),
				})
				return d.err == nil
			})
		}
		out.Logprobs.Content = append(out.Logprobs.Content, t)
		return d.err == nil
	})
	return out
}
