package systemone

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
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"message"`
		Logprobs *struct {
			Content []struct {
				Token       string         `json:"token"`
				Logprob     float64        `json:"logprob"`
				TopLogprobs []tokenLogprob `json:"top_logprobs"`
			} `json:"content"`
		} `json:"logprobs"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

type tokenLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}
