package chatadapter

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/judgeworks/shared/jsonscan"
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

// readReply reads and decodes a successful reply into c and closes its
// body. It takes the place of the SDK's decoding, which reads the body
// into a fresh slice, copies it again into a decoder and walks every field
// by reflection (top_logprobs carry byte arrays the adapter never reads).
// The body is the client's (chatmodel.NewClient), which refuses a reply
// past chatmodel.MaxReplyBytes.
func readReply(res *http.Response, c *chatCompletion) error {
	defer res.Body.Close()
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); !strings.Contains(mt, "application/json") && !strings.HasSuffix(mt, "+json") {
		return fmt.Errorf("the reply is not JSON (content type %q)", res.Header.Get("Content-Type"))
	}
	buf := replyBuffers.Get().(*bytes.Buffer)
	defer replyBuffers.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(res.Body); err != nil {
		return fmt.Errorf("error reading response body: %w", err)
	}
	return decodeCompletion(buf.Bytes(), c)
}

// decodeCompletion fills c from a chat-completion body in one pass,
// reading only the fields the adapter uses and skipping the rest unread
// (a reply's top logprobs carry byte arrays and ids nobody needs). Those
// fields must have their JSON types, null counting as absent. Keys match
// as the wire format spells them; a repeated key's last value wins, as in
// encoding/json. The scanner checks the whole reply as it reads, in time
// linear in its size, and only what the adapter reads is kept: the first
// choice, the first token's logprobs and at most TopLogprobs of its top
// logprobs, so a reply of millions of them costs no memory for them.
func decodeCompletion(data []byte, c *chatCompletion) error {
	if jsonscan.Kind(data) != '{' {
		if !jsonscan.Valid(data) {
			return errors.New("error parsing response json: the reply is not valid JSON")
		}
		return errors.New("error parsing response json: the reply is not a JSON object")
	}
	err := jsonscan.Scan(data, func(s *jsonscan.Scanner) {
		s.Object("reply", func(key []byte) {
			switch string(key) {
			case "model":
				c.Model = s.String("model")
			case "usage":
				s.Object("usage", func(key []byte) {
					switch string(key) {
					case "prompt_tokens":
						c.Usage.PromptTokens = s.Int("usage.prompt_tokens")
					case "completion_tokens":
						c.Usage.CompletionTokens = s.Int("usage.completion_tokens")
					default:
						s.Skip()
					}
				})
			case "choices":
				c.Choices = c.Choices[:0]
				s.Array("choices", func() {
					if len(c.Choices) == 0 {
						c.Choices = append(c.Choices, decodeChoice(s))
					} else {
						s.Skip()
					}
				})
			default:
				s.Skip()
			}
		})
	})
	var se *jsonscan.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("error parsing response json: the reply is not valid JSON: %w", err)
	}
	if err != nil {
		return fmt.Errorf("error parsing response json: %w", err)
	}
	return nil
}

func decodeChoice(s *jsonscan.Scanner) choice {
	var out choice
	s.Object("choices[]", func(key []byte) {
		switch string(key) {
		case "message":
			s.Object("message", func(key []byte) {
				switch string(key) {
				case "content":
					out.Message.Content = s.String("message.content")
				case "refusal":
					out.Message.Refusal = s.String("message.refusal")
				default:
					s.Skip()
				}
			})
		case "logprobs":
			if s.Null() {
				out.Logprobs = nil
				return
			}
			out.Logprobs = &choiceLogprobs{}
			s.Object("logprobs", func(key []byte) {
				if string(key) != "content" {
					s.Skip()
					return
				}
				out.Logprobs.Content = out.Logprobs.Content[:0]
				s.Array("logprobs.content", func() {
					if len(out.Logprobs.Content) == 0 {
						out.Logprobs.Content = append(out.Logprobs.Content, decodeToken(s))
					} else {
						s.Skip()
					}
				})
			})
		default:
			s.Skip()
		}
	})
	return out
}

func decodeToken(s *jsonscan.Scanner) tokenLogprobs {
	var t tokenLogprobs
	s.Object("logprobs.content[]", func(key []byte) {
		switch string(key) {
		case "token":
			t.Token = s.String("token")
		case "logprob":
			t.Logprob = s.Float("logprob")
		case "top_logprobs":
			// Sized for the TopLogprobs the adapter asks for: one allocation.
			t.TopLogprobs = make([]tokenLogprob, 0, TopLogprobs)
			s.Array("top_logprobs", func() {
				if len(t.TopLogprobs) == TopLogprobs {
					s.Skip() // more than asked for
					return
				}
				var top tokenLogprob
				s.Object("top_logprobs[]", func(key []byte) {
					switch string(key) {
					case "token":
						top.Token = s.String("top_logprobs[].token")
					case "logprob":
						top.Logprob = s.Float("top_logprobs[].logprob")
					default:
						s.Skip()
					}
				})
				t.TopLogprobs = append(t.TopLogprobs, top)
			})
		default:
			s.Skip()
		}
	})
	return t
}
