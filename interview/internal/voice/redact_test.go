package voice

import (
	"strings"
	"testing"
)

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
