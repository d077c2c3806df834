package voice

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

const echoedKey = "gsk_live_9fQ2xW7mK4pL8vN3rT6yZ1aB5cD0eF"

// A provider that quotes the key and the Authorization header back in its
// error bodies, for every kind of failure: none of it may reach the log.
func TestProviderErrorBodiesAreRedacted(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 413, 429, 500, 503} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			f := newFakeProvider(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"error":{"message":"Invalid request with key %s (header %q); token sk-proj-abcdefghijklmnop","code":"x"},"padding":%q}`,
					echoedKey, r.Header.Get("Authorization"), strings.Repeat("p", 20_000))
			})
			cfg := remoteConfig(f)
			cfg.APIKey = echoedKey
			env := newEnv(t, cfg)
			for _, rec := range []int{
				env.upload(t, part{field: "file", fileName: "a.ogg", data: audioOf([]byte("OggS"), 100)}).Code,
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

func TestProviderDetail(t *testing.T) {
	key := "sk-test-0123456789abcdef"
	cases := []struct {
		name, body string
		status     int
		want, not  string
	}{
		{"key verbatim", `bad key ` + key + ` given`, 400, "bad key [redacted] given", key},
		{"bearer header", `Authorization: Bearer abc.def-ghi`, 500, "Bearer [redacted]", "abc.def"},
		{"other provider's key shape", `key gsk_ABCDEFGH12345678 refused`, 500, "key [redacted] refused", "gsk_ABCD"},
		{"long token", `token ` + strings.Repeat("Zx9", 15) + ` end`, 500, "token [redacted] end", "Zx9Zx9"},
		{"plain words stay", `model whisper-1 is overloaded`, 503, "model whisper-1 is overloaded", "[redacted]"},
		{"401 dropped", `{"error":"invalid key"}`, 401, "body not logged", "invalid"},
		{"403 dropped", `forbidden`, 403, "body not logged", "forbidden"},
		{"newlines flattened", "line one\nforged=entry", 500, "line one forged=entry", "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := providerDetail(c.status, []byte(c.body), key)
			if !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
				t.Fatalf("providerDetail(%q) = %q; want it to hold %q and not %q", c.body, got, c.want, c.not)
			}
		})
	}
	long := providerDetail(500, []byte(strings.Repeat("é", 1000)), key)
	if len(long) > maxLoggedBody+len("…") || !strings.HasSuffix(long, "…") || !strings.HasPrefix(long, "é") {
		t.Fatalf("a long body is kept as %d bytes: %q", len(long), long[:20])
	}
}
