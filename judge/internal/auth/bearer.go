// Package auth holds the judge's bearer keys: parsing them from
// JUDGE_API_KEYS and the keys file (JUDGE_KEYS_FILE, keys by SHA-256 with
// their models, rates and budgets), checking their strength, matching a
// request's key in constant time, and each key's id, the name every limit,
// budget, stored answer and log line knows it by. The keys file is
// reloaded on SIGHUP and on change (watch.go), swapped whole.
package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
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

// BearerKey is one accepted key. The secret itself is never kept, only its
// SHA-256, so it cannot end up in a log line by accident; ID stands in for
// it.
type BearerKey struct {
	// ID is the key's identity, for rate-limit buckets, budgets, usage,
	// metrics, the upstream queues' turns and logs: the id a keys file
	// gives it (JUDGE_KEYS_FILE), or a keyed digest of a JUDGE_API_KEYS
	// key itself (see KeyID); never its position in the configuration, so
	// removing or reordering entries moves nothing from one key to
	// another.
	ID string
	// Name is the keys file's note on whom the key belongs to.
	Name string
	// Models lists the model names the key is limited to; empty means any.
	Models []string
	// RPM and TPM are the key's own requests and input tokens per
	// minute; zero means the judge's defaults.
	RPM, TPM int
	// BudgetPerDay and BudgetPerMonth cap what the key may spend in USD
	// per UTC day and month; nil means no cap.
	BudgetPerDay, BudgetPerMonth *float64
	digest                       [sha256.Size]byte
	// weak says why the key is too weak for a judge that can spend money;
	// empty for a strong key or one known only by its digest.
	weak string
	// derived is set for a JUDGE_API_KEYS key, whose ID is KeyID.
	derived bool
	// logName is what String returns, made once for the set (newKeys)
	// rather than on every request that logs it.
	logName string
}

// String names the key in logs by its ID (the start of a derived one); it
// never reveals the secret.
func (k BearerKey) String() string {
	if k.logName != "" {
		return k.logName
	}
	return k.name()
}

func (k BearerKey) name() string {
	if k.derived {
		return "key:" + k.ID[:12]
	}
	return "key:" + k.ID
}

// Scope names what is bound to this very secret rather than to the id:
// answers stored under an Idempotency-Key. An id given to a new secret
// (a rotated key) keeps its buckets, budget and usage but reaches none of
// the old secret's stored answers.
func (k BearerKey) Scope() string { return k.ID + "/" + KeyID(k.digest)[:16] }

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

// MinKeyLength is the shortest bearer key a judge accepts once it can spend
// money (a language model or a models file is configured) or runs in
// production.
const MinKeyLength = 32

// DevKey is the development key of the examples, refused where keys must
// be strong.
const DevKey = "dev-key"

// BearerKeys is the set of accepted keys. Replace swaps the whole set at
// once, so a request sees either the old keys or the new ones, never a mix,
// and requests in flight keep the key they matched.
type BearerKeys struct {
	set atomic.Pointer[[]BearerKey]
}

func newKeys(keys []BearerKey) *BearerKeys {
	for i := range keys {
		keys[i].logName = keys[i].name()
	}
	ks := &BearerKeys{}
	ks.set.Store(&keys)
	return ks
}

func (ks *BearerKeys) list() []BearerKey { return *ks.set.Load() }

// Replace makes next's keys the accepted ones.
func (ks *BearerKeys) Replace(next *BearerKeys) { ks.set.Store(next.set.Load()) }

// ParseBearerKeys reads the configuration syntax above. It refuses empty
// entries, malformed keys, empty model lists and duplicate keys, because
// each of these is a typo that would otherwise lock someone out silently.
// Error messages never quote a key.
func ParseBearerKeys(s string) (*BearerKeys, error) {
	var keys []BearerKey
	if strings.TrimSpace(s) == "" {
		return newKeys(nil), nil
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
		k := BearerKey{digest: sha256.Sum256([]byte(secret)), weak: weakness(secret), derived: true}
		k.ID = KeyID(k.digest)
		if k.weak != "" {
			k.weak = fmt.Sprintf("JUDGE_API_KEYS entry %d %s", id, k.weak)
		}
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
		keys = append(keys, k)
	}
	return newKeys(keys), nil
}

// weakness says why secret is too weak for a judge that can spend money,
// without quoting it; empty when it is strong enough.
func weakness(secret string) string {
	switch {
	case secret == DevKey:
		return fmt.Sprintf("is the development key %s: with a language model or a models file configured or APP_ENV=production every key must be a random string of at least %d characters", DevKey, MinKeyLength)
	case len(secret) < MinKeyLength:
		return fmt.Sprintf("is shorter than %d characters: with a language model or a models file configured or APP_ENV=production every key must be at least %d characters", MinKeyLength, MinKeyLength)
	}
	return ""
}

// Weak reports the first key too weak for a judge that can spend money or
// runs in production (see MinKeyLength), naming its entry, never the key;
// nil when every key is strong. Keys known only by their SHA-256 (a keys
// file) cannot be checked here: `judge keys new` makes them strong.
func (ks *BearerKeys) Weak() error {
	for _, k := range ks.list() {
		if k.weak != "" {
			return errors.New(k.weak)
		}
	}
	return nil
}

// Len is the number of keys.
func (ks *BearerKeys) Len() int { return len(ks.list()) }

// All returns the keys (without secrets), e.g. to create one rate-limit
// bucket each or to check their model lists at start-up.
func (ks *BearerKeys) All() []BearerKey { return append([]BearerKey(nil), ks.list()...) }

// Match finds the key equal to token. It hashes the token and compares the
// digest with every key's digest in constant time, never stopping early, so
// neither the position of a match nor the length of a key shows in timing.
func (ks *BearerKeys) Match(token string) (BearerKey, bool) {
	d := sha256.Sum256([]byte(token))
	keys := ks.list()
	found := -1
	for i := range keys {
		eq := subtle.ConstantTimeCompare(d[:], keys[i].digest[:])
		// Branch-free select keeps the loop's timing independent of i.
		found = subtle.ConstantTimeSelect(eq, i, found)
	}
	if found < 0 || token == "" {
		return BearerKey{}, false
	}
	return keys[found], true
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
