package voice

import (
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxLoggedBody caps how much of a provider's error body reaches the log.
const maxLoggedBody = 300

// secretLike matches what a provider may echo back of a credential: an
// Authorization value, or a token in the shapes providers issue (sk-…,
// gsk_…, key-…), or a long unbroken run of key characters.
var secretLike = regexp.MustCompile(`(?i)(bearer|basic)\s+[^\s"',;]+` +
	`|\b(sk|gsk|pk|rk|xai|key|api[-_]?key)[-_][A-Za-z0-9_\-]{6,}` +
	`|[A-Za-z0-9_\-+/=]{32,}`)

// providerDetail is what the log keeps of a provider's failed answer. A
// 401 or 403 body is dropped whole: it is about the credential, and some
// providers quote it. Otherwise the key and anything that looks like a
// credential are replaced, control characters go, and the rest is cut to
// maxLoggedBody bytes.
func providerDetail(status int, body []byte, apiKey string) string {
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return "body not logged"
	}
	s := strings.ToValidUTF8(string(body), "?")
	if len(apiKey) >= 4 {
		s = strings.ReplaceAll(s, apiKey, "[redacted]")
	}
	s = secretLike.ReplaceAllStringFunc(s, func(m string) string {
		if f := strings.Fields(m); len(f) == 2 {
			return f[0] + " [redacted]" // keep "Bearer": it says what was there
		}
		return "[redacted]"
	})
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return cut(s, maxLoggedBody)
}

// cut shortens s to at most n bytes without splitting a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
