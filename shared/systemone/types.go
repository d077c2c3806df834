// Package systemone is what a Go caller of any System One service needs:
// the wire types and their JSON codec, request validation and token limits,
// the score and confidence math, typed answers, the wire error (Error) and
// an HTTP Client.
//
// Whatever answers requests implements Backend: the Client (a remote
// service), the chat-model adapter (shared/chatadapter) and the judge's
// offline engine (judge/internal/engine/lexical). Those depend on this package,
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
}

// Question is one typed question. Exactly one of the criteria fields is used,
// according to Type: Noul (optional) for noul, Options for choice, Levels for score.
type Question struct {
	Type QuestionType
	// Instructions is a JSON string, object or array.
	Instructions json.RawMessage
	// Noul holds the optional meanings of yes and no for a noul question.
	Noul *NoulCriteria
	// Options are the choices of a choice question, in the caller's order.
	Options []Option
	// Levels are the levels of a score question, lowest first.
	Levels []string
}

// NoulCriteria says what true and false mean for a noul question.
type NoulCriteria struct {
	True  string `json:"true"`
	False string `json:"false"`
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
}

// Answer is the wire form of one question's answer; which fields are set
// depends on Type.
type Answer struct {
	Type          QuestionType       `json:"type"`
	Noul          *float64           `json:"noul,omitempty"`
	Choice        string             `json:"choice,omitempty"`
	Score         *float64           `json:"score,omitempty"`
	Legend        map[string]string  `json:"legend,omitempty"`
	Probabilities map[string]float64 `json:"probabilities,omitempty"`
	Confidence    *float64           `json:"confidence,omitempty"`
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
