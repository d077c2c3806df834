package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"strings"
)

// Bearer keys are configured as one string (JUDGE_API_KEYS):
//
//	key1,key2:local/lexical-latest|llm-latest
//
// Entries are separated by commas. An entry is a key, optionally followed by
// a colon and the models it may use, separated by "|". A key without a list
// may use every model. Keys must be RFC 6750 token68 strings (letters,
// digits and - . _ ~ + / with trailing =), which cannot contain ",", ":" or
// "|", so the separators never collide with a key.

// BearerKey is one accepted key. The secret itself is kept unexported so it
// cannot end up in a log line by accident; ID stands in for it.
type BearerKey struct {
	// ID is the key's identity, for rate-limit buckets, stored answers,
	// the upstream queues' turns and logs: a keyed digest of the key
	// itself (see KeyID), never its position in the configuration, so
	// removing or reordering entries moves nothing from one key to
	// another.
	ID string
	// Models lists the model names the key is limited to; empty means any.
	Models []string
	digest [sha256.Size]byte
}

// String names the key in logs by the start of its ID; it never reveals
// the secret.
func (k BearerKey) String() string { return "key:" + k.ID[:12] }

// keyIDLabel keys the digest that names a key, so the name of a key is
// not the plain SHA-256 a key list might hold elsewhere.
const keyIDLabel = "judgeworks judge key id v1"

// KeyID is the identity of the key whose SHA-256 is digest: 32 hex digits
// of HMAC-SHA256 under a fixed label. The same key has the same ID in every
// replica and after any edit of the key list; the ID cannot be turned back
// into the key.
func KeyID(digest [sha256.Size]byte) string {
	m := hmac.New(sha256.New, []byte(keyIDLabel))
	m.Write(digest[:])
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// BearerKeys is the set of accepted keys.
type BearerKeys struct {
	keys []BearerKey
}

// ParseBearerKeys reads the configuration syntax above. It refuses empty
// entries, malformed keys, empty model lists and duplicate keys, because
// each of these is a typo that would otherwise lock someone out silently.
// Error messages never quote a key.
func ParseBearerKeys(s string) (*BearerKeys, error) {
	var ks BearerKeys
	if strings.TrimSpace(s) == "" {
		return &ks, nil
	}
	seen := map[[sha256.Size]byte]int{}
	for i, entry := range strings.Split(s, ",") {
		id := i + 1
		entry = strings.TrimSpace(entry)
		secret, models, limited := strings.Cut(entry, ":")
		secret = strings.TrimSpace(secret)
		if secret == "" {
			return nil, fmt.Errorf("bearer key entry %d is empty", id)
		}
		if !isToken68(secret) {
			return nil, fmt.Errorf("bearer key entry %d: a key may hold only letters, digits and - . _ ~ + / (with trailing =)", id)
		}
		k := BearerKey{digest: sha256.Sum256([]byte(secret))}
		k.ID = KeyID(k.digest)
		if limited {
			for m := range strings.SplitSeq(models, "|") {
				m = strings.TrimSpace(m)
				if m == "" {
					return nil, fmt.Errorf("bearer key entry %d: empty model name in its model list", id)
				}
				k.Models = append(k.Models, m)
			}
		}
		if prev, dup := seen[k.digest]; dup {
			return nil, fmt.Errorf("bearer key entries %d and %d hold the same key", prev, id)
		}
		seen[k.digest] = id
		ks.keys = append(ks.keys, k)
	}
	return &ks, nil
}

// Len is the number of keys.
func (ks *BearerKeys) Len() int { return len(ks.keys) }

// All returns the keys (without secrets), e.g. to create one rate-limit
// bucket each or to check their model lists at start-up.
func (ks *BearerKeys) All() []BearerKey { return append([]BearerKey(nil), ks.keys...) }

// Match finds the key equal to token. It hashes the token and compares the
// digest with every key's digest in constant time, never stopping early, so
// neither the position of a match nor the length of a key shows in timing.
func (ks *BearerKeys) Match(token string) (BearerKey, bool) {
	d := sha256.Sum256([]byte(token))
	found := -1
	for i := range ks.keys {
		eq := subtle.ConstantTimeCompare(d[:], ks.keys[i].digest[:])
		// Branch-free select keeps the loop's timing independent of i.
		found = subtle.ConstantTimeSelect(eq, i, found)
	}
	if found < 0 || token == "" {
		return BearerKey{}, false
	}
	return ks.keys[found], true
}

// BearerToken extracts the token of an "Authorization: Bearer <token>"
// header. The scheme is case-insensitive (RFC 7235).
func BearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

func isToken68(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/'
		if !ok {
			break
		}
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}
