// Package decisions is OpenAI's Decisions API (POST /v1/decisions) as the
// judge speaks it, both ways: as a server, it decodes a request the way
// openai-go's client.Decisions.New sends it, with every problem at its
// field path, translates it into a System One request, and writes the
// answer and the error body OpenAI's SDKs read; as a client of an upstream
// Decisions service (judge/internal/engine/providers), it encodes System
// One questions into the same wire request and reads the decision back.
// One set of wire types serves both. See docs/judge.md, "Two endpoints,
// one judge".
package decisions

// MaxQuestions is the Decisions API's own bound on the questions of one
// request: the judge refuses more on /v1/decisions (JUDGE_MAX_QUESTIONS
// applies too when it is lower), and a provider sends a longer System One
// request upstream as consecutive calls of at most this many.
const MaxQuestions = 400

// Request is a Decisions request as the judge sends it upstream: the input
// as text and each question with text instructions. (The server reads the
// richer shapes a caller may send, content parts and message lists, by
// hand in Decode, to name each problem's field.)
type Request struct {
	Model     string     `json:"model"`
	Input     string     `json:"input"`
	Questions []Question `json:"questions"`
}

// Question is one question of a Request: Type is predicate, choice or
// score; Choices belong to a choice, Levels to a score.
type Question struct {
	Type         string   `json:"type"`
	Instructions string   `json:"instructions"`
	Choices      []Choice `json:"choices,omitempty"`
	Levels       []Level  `json:"levels,omitempty"`
}

// Choice is one option of a choice question: its value (a string or a
// boolean) and what it means.
type Choice struct {
	Value       any    `json:"value"`
	Description string `json:"description,omitempty"`
}

// Level is one level of a score question, lowest first.
type Level struct {
	Label string `json:"label"`
}

// Decision is the answer to a Decisions request (openai-go: Decision):
// one answer per question, in the request's order.
type Decision struct {
	Answers []Answer `json:"answers"`
	Model   string   `json:"model"`
	Usage   Usage    `json:"usage"`
}

// Answer is one answer of a Decision (openai-go: DecisionAnswerUnion). Type
// is predicate, choice, score or refusal.
type Answer struct {
	Type string `json:"type"`
	// Name is null for an unnamed question, as OpenAI answers.
	Name *string `json:"name"`
	// Probability is a predicate's probability of true.
	Probability *float64 `json:"probability,omitempty"`
	// Choice is the chosen value, typed as the caller gave it.
	Choice any      `json:"choice,omitempty"`
	Score  *float64 `json:"score,omitempty"`
	// Probabilities are a choice's (value, probability) per choice or a
	// score's (value, label, probability) per level.
	Probabilities []Probability `json:"probabilities,omitempty"`
	Confidence    *float64      `json:"confidence,omitempty"`
}

// Probability is one outcome of a choice or score answer: for a choice,
// Value is the choice's value and Label is empty; for a score, Value is
// the level's position (0 lowest) and Label its label.
type Probability struct {
	Value       any     `json:"value"`
	Label       string  `json:"label,omitempty"`
	Probability float64 `json:"probability"`
}

// Usage is a Decision's token usage (openai-go: DecisionUsage).
type Usage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CacheWriteTokens int `json:"cache_write_tokens"`
		CachedTokens     int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}
