package systemone

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
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

// decodeCompletion fills c from a chat-completion body in one pass,
// reading only the fields the adapter uses and skipping the rest unread
// (a reply's top logprobs carry byte arrays and ids nobody needs). Those
// fields must have their JSON types, null counting as absent. Keys match
// as the wire format spells them; a repeated key's last value wins, as in
// encoding/json.
func decodeCompletion(data []byte, c *chatCompletion) error {
	// Validated first, so the scanner below can trust the structure.
	if !gjson.ValidBytes(data) {
		return errors.New("error parsing response json: the reply is not valid JSON")
	}
	s := wireScanner{d: data}
	s.ws()
	if s.peek() != '{' {
		return errors.New("error parsing response json: the reply is not a JSON object")
	}
	s.object("reply", func(key []byte) {
		switch string(key) {
		case "model":
			c.Model = s.str("model")
		case "usage":
			s.object("usage", func(key []byte) {
				switch string(key) {
				case "prompt_tokens":
					c.Usage.PromptTokens = s.int("usage.prompt_tokens")
				case "completion_tokens":
					c.Usage.CompletionTokens = s.int("usage.completion_tokens")
				default:
					s.skip()
				}
			})
		case "choices":
			c.Choices = c.Choices[:0]
			s.array("choices", func() { c.Choices = append(c.Choices, s.choice()) })
		default:
			s.skip()
		}
	})
	return s.err
}

func (s *wireScanner) choice() choice {
	var out choice
	s.object("choices[]", func(key []byte) {
		switch string(key) {
		case "message":
			s.object("message", func(key []byte) {
				switch string(key) {
				case "content":
					out.Message.Content = s.str("message.content")
				case "refusal":
					out.Message.Refusal = s.str("message.refusal")
				default:
					s.skip()
				}
			})
		case "logprobs":
			if s.null() {
				out.Logprobs = nil
				return
			}
			out.Logprobs = &choiceLogprobs{}
			s.object("logprobs", func(key []byte) {
				if string(key) != "content" {
					s.skip()
					return
				}
				out.Logprobs.Content = out.Logprobs.Content[:0]
				s.array("logprobs.content", func() { out.Logprobs.Content = append(out.Logprobs.Content, s.token()) })
			})
		default:
			s.skip()
		}
	})
	return out
}

func (s *wireScanner) token() tokenLogprobs {
	var t tokenLogprobs
	s.object("logprobs.content[]", func(key []byte) {
		switch string(key) {
		case "token":
			t.Token = s.str("token")
		case "logprob":
			t.Logprob = s.num("logprob")
		case "top_logprobs":
			// Sized for the TopLogprobs the adapter asks for: one allocation.
			t.TopLogprobs = make([]tokenLogprob, 0, TopLogprobs)
			s.array("top_logprobs", func() {
				var top tokenLogprob
				s.object("top_logprobs[]", func(key []byte) {
					switch string(key) {
					case "token":
						top.Token = s.str("top_logprobs[].token")
					case "logprob":
						top.Logprob = s.num("top_logprobs[].logprob")
					default:
						s.skip()
					}
				})
				t.TopLogprobs = append(t.TopLogprobs, top)
			})
		default:
			s.skip()
		}
	})
	return t
}

// wireScanner walks a body already known to be valid JSON. Every method
// consumes exactly one value; a value of the wrong type is skipped and
// the first such mismatch kept as the error.
type wireScanner struct {
	d   []byte
	i   int
	err error
}

func (s *wireScanner) fail(field, want string) {
	if s.err == nil {
		s.err = fmt.Errorf("error parsing response json: %s is not %s", field, want)
	}
	s.skip()
}

func (s *wireScanner) ws() {
	for s.i < len(s.d) {
		switch s.d[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *wireScanner) peek() byte {
	s.ws()
	if s.i < len(s.d) {
		return s.d[s.i]
	}
	return 0
}

// null consumes a null and reports whether there was one.
func (s *wireScanner) null() bool {
	if s.peek() == 'n' {
		s.i += len("null")
		return true
	}
	return false
}

// object calls field for each key, positioned at its value, which field
// must consume. null is an absent object.
func (s *wireScanner) object(name string, field func(key []byte)) {
	if s.null() {
		return
	}
	if s.peek() != '{' {
		s.fail(name, "an object")
		return
	}
	s.i++
	for s.err == nil {
		switch s.peek() {
		case '}':
			s.i++
			return
		case ',':
			s.i++
			continue
		}
		start := s.i + 1
		s.skipString()
		key := s.d[start : s.i-1]
		s.ws()
		s.i++ // the colon
		field(key)
	}
}

// array calls elem once per element, positioned at it. null is an absent array.
func (s *wireScanner) array(name string, elem func()) {
	if s.null() {
		return
	}
	if s.peek() != '[' {
		s.fail(name, "an array")
		return
	}
	s.i++
	for s.err == nil {
		switch s.peek() {
		case ']':
			s.i++
			return
		case ',':
			s.i++
			continue
		}
		elem()
	}
}

func (s *wireScanner) str(name string) string {
	if s.null() {
		return ""
	}
	if s.peek() != '"' {
		s.fail(name, "a string")
		return ""
	}
	start := s.i
	escaped := s.skipString()
	raw := s.d[start:s.i]
	if !escaped {
		return string(raw[1 : len(raw)-1])
	}
	var out string
	if err := json.Unmarshal(raw, &out); err != nil && s.err == nil {
		s.err = fmt.Errorf("error parsing response json: %s: %w", name, err)
	}
	return out
}

func (s *wireScanner) num(name string) float64 {
	if s.null() {
		return 0
	}
	if c := s.peek(); c != '-' && (c < '0' || c > '9') {
		s.fail(name, "a number")
		return 0
	}
	start := s.i
	s.skipScalar()
	f, err := strconv.ParseFloat(string(s.d[start:s.i]), 64)
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("error parsing response json: %s: %w", name, err)
	}
	return f
}

func (s *wireScanner) int(name string) int64 {
	f := s.num(name)
	if f != float64(int64(f)) {
		if s.err == nil {
			s.err = fmt.Errorf("error parsing response json: %s is not an integer", name)
		}
		return 0
	}
	return int64(f)
}

// skipString consumes a string and reports whether it holds escapes.
func (s *wireScanner) skipString() (escaped bool) {
	s.i++ // the opening quote
	for s.i < len(s.d) {
		switch s.d[s.i] {
		case '\\':
			escaped = true
			s.i += 2
		case '"':
			s.i++
			return escaped
		default:
			s.i++
		}
	}
	return escaped
}

// skipScalar consumes a number, true, false or null.
func (s *wireScanner) skipScalar() {
	for s.i < len(s.d) {
		switch s.d[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return
		}
		s.i++
	}
}

// skip consumes one value of any type.
func (s *wireScanner) skip() {
	switch s.peek() {
	case '"':
		s.skipString()
	case '{', '[':
		depth := 0
		for s.i < len(s.d) {
			switch s.d[s.i] {
			case '"':
				s.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return
				}
			}
			s.i++
		}
	default:
		s.skipScalar()
	}
}
