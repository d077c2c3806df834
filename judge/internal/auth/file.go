package auth

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"

	"go.yaml.in/yaml/v3"
)

// A keys file (JUDGE_KEYS_FILE) lists keys by the SHA-256 of the secret, so
// the file holds nothing a reader could call the judge with:
//
//	keys:
//	  - id: billing-bot
//	    sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
//	    name: Billing team's triage bot
//	    models: [llm-latest]
//	    rpm: 600
//	    tpm: 2000000
//	    budget_usd_per_day: 5
//	    budget_usd_per_month: 100
//
// Every field but id and sha256 may be left out. The file is read strictly:
// an unknown field is refused (a misspelt budget would otherwise be no
// budget at all).

type keysFile struct {
	Keys []fileKey `yaml:"keys"`
}

type fileKey struct {
	ID     string   `yaml:"id"`
	SHA256 string   `yaml:"sha256"`
	Name   string   `yaml:"name"`
	Models []string `yaml:"models"`
	// Read as numbers, so that a fraction is refused rather than cut.
	RPM            *float64 `yaml:"rpm"`
	TPM            *float64 `yaml:"tpm"`
	BudgetPerDay   *float64 `yaml:"budget_usd_per_day"`
	BudgetPerMonth *float64 `yaml:"budget_usd_per_month"`
}

// MaxKeysFile bounds the keys file read: a megabyte holds thousands of keys.
const MaxKeysFile = 1 << 20

// validID is the shape of a key's id: it goes into logs, metrics labels and
// Redis keys as it is.
var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ParseKeysFile reads a keys file. Errors name the entry and the field,
// never a digest.
func ParseKeysFile(data []byte) ([]BearerKey, error) {
	if len(data) > MaxKeysFile {
		return nil, fmt.Errorf("the file is larger than %d bytes", MaxKeysFile)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f keysFile
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the file is empty; it must list keys: (an empty list is keys: [])")
		}
		return nil, err
	}
	if err := dec.Decode(new(yaml.Node)); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document; the file holds one")
	}
	if f.Keys == nil {
		return nil, errors.New("no keys: list them under keys: (an empty list is keys: [])")
	}
	ids := map[string]int{}
	digests := map[[sha256.Size]byte]int{}
	out := make([]BearerKey, 0, len(f.Keys))
	for i, e := range f.Keys {
		where := fmt.Sprintf("keys[%d]", i)
		if !validID.MatchString(e.ID) {
			return nil, fmt.Errorf("%s: id %q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", where, e.ID)
		}
		where += " (" + e.ID + ")"
		if prev, dup := ids[e.ID]; dup {
			return nil, fmt.Errorf("%s: id is already used by keys[%d]", where, prev)
		}
		ids[e.ID] = i
		raw, err := hex.DecodeString(e.SHA256)
		if err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("%s: sha256: want the 64 hex digits of the key's SHA-256 (judge keys new prints them)", where)
		}
		k := BearerKey{ID: e.ID, Name: e.Name, BudgetPerDay: e.BudgetPerDay, BudgetPerMonth: e.BudgetPerMonth}
		copy(k.digest[:], raw)
		if prev, dup := digests[k.digest]; dup {
			return nil, fmt.Errorf("%s: the same key as keys[%d]", where, prev)
		}
		digests[k.digest] = i
		for _, m := range e.Models {
			if m == "" {
				return nil, fmt.Errorf("%s: models: an empty model name", where)
			}
		}
		if e.Models != nil && len(e.Models) == 0 {
			return nil, fmt.Errorf("%s: models: an empty list allows no model; leave models out to allow every model", where)
		}
		k.Models = e.Models
		for _, n := range []struct {
			field string
			v     *float64
			dst   *int
		}{{"rpm", e.RPM, &k.RPM}, {"tpm", e.TPM, &k.TPM}} {
			if n.v == nil {
				continue
			}
			if !(*n.v >= 1 && *n.v <= math.MaxInt32 && *n.v == math.Trunc(*n.v)) {
				return nil, fmt.Errorf("%s: %s %v: want a whole number, at least 1 (leave it out for the judge's default)", where, n.field, *n.v)
			}
			*n.dst = int(*n.v)
		}
		for _, b := range []struct {
			field string
			v     *float64
		}{{"budget_usd_per_day", e.BudgetPerDay}, {"budget_usd_per_month", e.BudgetPerMonth}} {
			if b.v != nil && (*b.v < 0 || math.IsInf(*b.v, 0) || math.IsNaN(*b.v)) {
				return nil, fmt.Errorf("%s: %s %v: want USD, at least 0", where, b.field, *b.v)
			}
		}
		out = append(out, k)
	}
	return out, nil
}

// Join is the accepted set of JUDGE_API_KEYS' keys and a keys file's. A key
// in both, or an id in both, is refused: each secret has one identity.
func Join(env *BearerKeys, file []BearerKey) (*BearerKeys, error) {
	all := env.All()
	ids := map[string]bool{}
	digests := map[[sha256.Size]byte]bool{}
	for _, k := range all {
		ids[k.ID], digests[k.digest] = true, true
	}
	for _, k := range file {
		switch {
		case ids[k.ID]:
			return nil, fmt.Errorf("id %q is also the id of a JUDGE_API_KEYS key", k.ID)
		case digests[k.digest]:
			return nil, fmt.Errorf("key %q is also in JUDGE_API_KEYS", k.ID)
		}
		all = append(all, k)
	}
	return newKeys(all), nil
}

// NewKey returns a fresh random key of 43 characters (256 bits, URL-safe
// base64) and the hex SHA-256 a keys file lists it by.
func NewKey() (secret, digest string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	secret = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(secret))
	return secret, hex.EncodeToString(sum[:]), nil
}

// ValidID reports whether id may name a key in a keys file.
func ValidID(id string) bool { return validID.MatchString(id) }
