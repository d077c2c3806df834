package main_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// A request whose own tokens fit a key's minute but whose calls upstream
// do not is refused with 422 tokens_exceeded before any call, on the
// LLM_* model and on a models-file model over chat providers alike: the
// file's fallback is charged its providers' plan, not the request's body.
func TestModelsFileChatIsChargedWhatItSends(t *testing.T) {
	u := newChatUpstream(t, 0, 0)
	models := writeFile(t, "models.yaml", `models:
  - name: chats-1.0
    aliases: [chats-latest]
    providers:
      - {api: chat, base_url: "`+u.srv.URL+`/v1", api_key_env: CHAT_KEY, model: fake-model}
      - {api: chat, base_url: "`+u.srv.URL+`/v1", api_key_env: CHAT_KEY, model: fake-model}
`)
	j := start(t, llmEnv(u, "JUDGE_MODELS_FILE="+models, "CHAT_KEY=local", "JUDGE_RATE_LIMIT_TPM=20000")...)
	questions := map[string]any{}
	for i := range 50 {
		questions[fmt.Sprintf("q%02d", i)] = map[string]any{"type": "noul", "instructions": fmt.Sprintf("Does the customer mention item %d?", i)}
	}
	for _, model := range []string{"llm-latest", "chats-latest"} {
		body, _ := json.Marshal(map[string]any{"model": model,
			"state":     strings.Repeat("The customer wrote again about the refund. ", 250),
			"questions": questions})
		wantError(t, j.ask(t, strongKey, string(body)), http.StatusUnprocessableEntity, "tokens_exceeded")
	}
	if n := u.calls.Load(); n != 0 {
		t.Errorf("the upstream saw %d calls for requests refused by their plan", n)
	}
}
