package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/judgeworks/interview/internal/voice/voicetest"
)

const echoedKey = "gsk_live_9fQ2xW7mK4pL8vN3rT6yZ1aB5cD0eF"

// A provider that quotes the key and the Authorization header back in its
// error bodies, for every kind of failure: none of it may reach the log.
func TestProviderErrorBodiesAreRedacted(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 413, 429, 500, 503} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			f := voicetest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"error":{"message":"Invalid request with key %s (header %q); token sk-proj-abcdefghijklmnop","code":"x"},"padding":%q}`,
					echoedKey, r.Header.Get("Authorization"), strings.Repeat("p", 20_000))
			})
			cfg := remoteConfig(f)
			cfg.APIKey = echoedKey
			env := newEnv(t, cfg)
			for _, rec := range []int{
				env.upload(t, part{field: "file", fileName: "a.ogg", data: voicetest.Audio([]byte("OggS"), 100)}).Code,
				env.speak("What is a goroutine?").Code,
			} {
				if rec < 429 {
					t.Fatalf("provider %d became %d", status, rec)
				}
			}
			logs := env.logs.String()
			if !strings.Contains(logs, fmt.Sprintf("voice provider status %d", status)) {
				t.Fatalf("the failure is not logged:\n%s", logs)
			}
			for _, secret := range []string{echoedKey, echoedKey[:20], "sk-proj-abcdefghijklmnop"} {
				if strings.Contains(logs, secret) {
					t.Fatalf("log holds %q:\n%s", secret, logs)
				}
			}
			if status == 401 || status == 403 {
				if strings.Contains(logs, "Invalid request") {
					t.Fatalf("a %d body was logged:\n%s", status, logs)
				}
			} else if !strings.Contains(logs, "Invalid request with key [redacted]") {
				t.Fatalf("the redacted body is not in the log:\n%s", logs)
			}
			for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
				if len(line) > 2000 {
					t.Fatalf("a %d-byte log line: the body is not capped", len(line))
				}
			}
		})
	}
}
