package main_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/judgeworks/shared/proctest"
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

// LLM_BASE_URL's credentials and query string, the model's name and the
// provider's own error text never reach a caller, and the URL's secrets
// never reach the log: messages name the setting to check.
func TestProviderDetailsStayOutOfAnswers(t *testing.T) {
	port, err := proctest.FreePort() // nothing listens there
	if err != nil {
		t.Fatal(err)
	}
	talkative := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error": {"message": "model secret-model-7 rejected: internal note zebra-42", "type": "invalid_request_error", "code": null}}`))
	}))
	t.Cleanup(talkative.Close)
	for _, tt := range []struct{ name, baseURL, model string }{
		{"unreachable", fmt.Sprintf("http://svc-user:s3cretpw@127.0.0.1:%d/v1?api-key=abc123xyz", port), "fake-model"},
		{"provider text", talkative.URL + "/v1", "secret-model-7"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := start(t, "JUDGE_API_KEYS="+strongKey, "JUDGE_RATE_LIMIT_RPM=100000", "LLM_BASE_URL="+tt.baseURL,
				"LLM_API_KEY=sk-test", "LLM_MODEL="+tt.model, "JUDGE_LLM_TIMEOUT=3s")
			r := j.ask(t, strongKey, withModel("llm-latest"))
			if r.status < 500 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			for _, secret := range []string{"s3cretpw", "abc123xyz", "svc-user", "secret-model-7", "zebra-42"} {
				if strings.Contains(string(r.body), secret) {
					t.Errorf("the answer quotes %q: %s", secret, r.body)
				}
			}
			_ = j.proc.Stop(syscall.SIGTERM, 5*time.Second)
			for _, secret := range []string{"s3cretpw", "abc123xyz"} {
				if strings.Contains(j.proc.Output(), secret) {
					t.Errorf("the log quotes %q", secret)
				}
			}
		})
	}
}
