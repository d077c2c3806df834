// Package systemone is what a Go caller of any System One service needs:
// the wire types and their JSON codec, request validation and token limits,
// the score and confidence math, typed answers, the wire error (Error) and
// an HTTP Client.
//
// Whatever answers requests implements Backend: the Client (a remote
// service), the chat-model adapter (shared/chatadapter) and the judge's
// engines (judge/internal/engine). Those depend on this package,
// never the reverse. See docs/client.md.
package systemone

import (
	"context"
	"encoding/json"
)

// QuestionType names the three kinds of question.
type QuestionType string

const (
	TypeNoul   QuestionType = "noul"
	TypeChoice QuestionType = "choice"
	TypeScore  QuestionType = "score"
)

// Request is the body of POST /v1/systemone.
type Request struct {
	Model string `json:"model"`
	// State is the text or JSON being judged: a JSON string, object or array.
	State json.RawMessage `json:"state"`
	// Questions maps the caller's question name to the question.
	Questions map[string]Question `json:"questions"`
	// Order lists the question names in the order the caller sent them
	// (DecodeRequest fills it). Answers come back in this order, and the
	// request goes upstream in it; names it leaves out follow, sorted.
	Order []string `json:"-"`
}

// QuestionNames returns the names of r's questions in the caller's order:
// those of Order that name a question, then any others sorted.
func (r Request) QuestionNames() []string {
	return orderedNames(r.Order, r.Questions)
}

// Question is one typed question. Exactly one of the criteria fields is used,
// according to Type: Noul (optional) for noul, Options for choice, Levels for score.
type Question struct {
	Type QuestionType
	// Instructions is a JSON string, object or array; nil when the caller
	// gave none (absent or null).
	Instructions json.RawMessage
	// Noul holds the optional meanings of yes and no for a noul question.
	Noul *NoulCriteria
	// Options are the choices of a choice question, in the caller's order.
	Options []Option
	// Levels are the levels of a score question, lowest first: each a
	// JSON string, object or array, or nil for a level given as null (read
	// by its position alone).
	Levels []json.RawMessage
}

// NoulCriteria says what true and false mean for a noul question: each a
// JSON string, object or array, or nil when not given (absent or null).
type NoulCriteria struct {
	True  json.RawMessage
	False json.RawMessage
}

// Text is s as a JSON string: instructions, a meaning, a description or
// a level given as plain text.
func Text(s string) json.RawMessage {
	b, _ := json.Marshal(s) // marshalling a string cannot fail
	return b
}

// Texts is Text of each of ss, for the levels of a score question.
func Texts(ss ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(ss))
	for i, s := range ss {
		out[i] = Text(s)
	}
	return out
}

// Option is one choice of a choice question.
type Option struct {
	Name string
	// Description is a JSON string, object, array or null.
	Description json.RawMessage
}

// Response is the 200 body of POST /v1/systemone.
type Response struct {
	Model   string            `json:"model"`
	Answers map[string]Answer `json:"answers"`
	Usage   Usage             `json:"usage"`
	// Order lists the answers' names in the order they are written (the
	// order of the questions as sent); names it leaves out follow, sorted.
	// Decoding a response fills it with the order the answers came in.
	Order []string `json:"-"`
}

// Names returns the names of r's answers in order (see Order). Ranging
// over it keeps the questions' order where a map would lose it, also
// when picking from the per-type views Nouls, Choices and Scores.
func (r *Response) Names() []string {
	if r == nil {
		return nil
	}
	return orderedNames(r.Order, r.Answers)
}

// Answer is the wire form of one question's answer; which fields are set
// depends on Type.
type Answer struct {
	Type   QuestionType `json:"type"`
	Noul   *float64     `json:"noul,omitempty"`
	Choice string       `json:"choice,omitempty"`
	Score  *float64     `json:"score,omitempty"`
	// Legend maps level indexes to the levels as the question gave them.
	Legend        map[string]json.RawMessage `json:"legend,omitempty"`
	Probabilities map[string]float64         `json:"probabilities,omitempty"`
	Confidence    *float64                   `json:"confidence,omitempty"`
	// Order lists the keys of Probabilities in the order Response's
	// MarshalJSON writes them: for a choice, its options as the caller
	// listed them (docs/api.md). Keys it leaves out follow, sorted, as
	// encoding/json writes a map; nil writes them all sorted.
	Order []string `json:"-"`
}

// Usage reports tokens and cost of one request.
type Usage struct {
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	Cost         float64 `json:"cost"`
}

// Backend answers System One requests. The HTTP Client implements it, as do
// shared/chatadapter's Adapter and the judge's engines, so a Go program can
// swap a remote service for a local engine.
type Backend interface {
	Ask(ctx context.Context, req Request) (*Response, error)
}
