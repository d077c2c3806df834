package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"testing"
)

func digestOf(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

func TestParseKeysFile(t *testing.T) {
	a, b := digestOf("secret-a"), digestOf("secret-b")
	keys, err := ParseKeysFile([]byte(`keys:
  - id: billing-bot
    sha256: ` + a + `
    name: Billing
    models: [llm-latest]
    rpm: 60
    tpm: 1000
    budget_usd_per_day: 0
    budget_usd_per_month: 12.5
  - {id: b, sha256: ` + strings.ToUpper(b) + `}
`))
	if err != nil {
		t.Fatal(err)
	}
	k := keys[0]
	if k.ID != "billing-bot" || k.Name != "Billing" || k.RPM != 60 || k.TPM != 1000 || len(k.Models) != 1 ||
		k.BudgetPerDay == nil || *k.BudgetPerDay != 0 || k.BudgetPerMonth == nil || *k.BudgetPerMonth != 12.5 {
		t.Errorf("first key: %+v", k)
	}
	if k.String() != "key:billing-bot" {
		t.Errorf("String() = %q, want key:billing-bot", k.String())
	}
	if o := keys[1]; o.RPM != 0 || o.Models != nil || o.BudgetPerDay != nil || o.BudgetPerMonth != nil {
		t.Errorf("second key, all defaults: %+v", o)
	}
	ks := newKeys(keys)
	if got, ok := ks.Match("secret-b"); !ok || got.ID != "b" {
		t.Errorf("Match(secret-b) = %v %v", got.ID, ok)
	}
	if _, ok := ks.Match(a); ok {
		t.Error("the digest itself is accepted as a key")
	}
}

func TestParseKeysFileErrors(t *testing.T) {
	a := digestOf("secret-a")
	for _, tt := range []struct{ in, want string }{
		{"", "empty"},
		{"keys:", "no keys"},
		{"keys: []\n---\nkeys: []", "more than one"},
		{"key: []", "field key not found"},
		{"keys:\n  - {id: a, sha256: " + a + ", budget: 1}", "field budget not found"},
		{"keys:\n  - {sha256: " + a + "}", "id \"\""},
		{"keys:\n  - {id: -a, sha256: " + a + "}", "id \"-a\""},
		{"keys:\n  - {id: " + strings.Repeat("a", 65) + ", sha256: " + a + "}", "id"},
		{"keys:\n  - {id: a}", "sha256"},
		{"keys:\n  - {id: a, sha256: " + a[:62] + "}", "sha256"},
		{"keys:\n  - {id: a, sha256: " + a[:63] + "g}", "sha256"},
		{"keys:\n  - {id: a, sha256: " + a + "}\n  - {id: a, sha256: " + digestOf("x") + "}", "keys[1] (a): id is already used by keys[0]"},
		{"keys:\n  - {id: a, sha256: " + a + "}\n  - {id: b, sha256: " + a + "}", "the same key as keys[0]"},
		{"keys:\n  - {id: a, sha256: " + a + ", models: []}", "models"},
		{"keys:\n  - {id: a, sha256: " + a + ", models: ['']}", "empty model name"},
		{"keys:\n  - {id: a, sha256: " + a + ", rpm: 0}", "rpm 0"},
		{"keys:\n  - {id: a, sha256: " + a + ", tpm: -5}", "tpm -5"},
		{"keys:\n  - {id: a, sha256: " + a + ", rpm: 1.5}", "rpm"},
		{"keys:\n  - {id: a, sha256: " + a + ", budget_usd_per_day: -0.01}", "budget_usd_per_day"},
		{"keys:\n  - {id: a, sha256: " + a + ", budget_usd_per_month: .nan}", "budget_usd_per_month"},
		{"keys:\n  - {id: a, sha256: " + a + ", budget_usd_per_month: .inf}", "budget_usd_per_month"},
		{strings.Repeat("#", MaxKeysFile+1), "larger"},
	} {
		_, err := ParseKeysFile([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%.60q: err = %v, want containing %q", tt.in, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), a[:40]) {
			t.Errorf("%.60q: the error quotes a digest: %v", tt.in, err)
		}
	}
}

func FuzzParseKeysFile(f *testing.F) {
	f.Add([]byte("keys:\n  - {id: a, sha256: " + digestOf("a") + ", rpm: 3, budget_usd_per_day: 1}"))
	f.Add([]byte("keys: []"))
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, err := ParseKeysFile(data)
		if err != nil {
			return
		}
		ids := map[string]bool{}
		for _, k := range keys {
			if !ValidID(k.ID) || ids[k.ID] || k.RPM < 0 || k.TPM < 0 ||
				k.BudgetPerDay != nil && !(*k.BudgetPerDay >= 0) || k.BudgetPerMonth != nil && !(*k.BudgetPerMonth >= 0) {
				t.Fatalf("accepted %+v", k)
			}
			ids[k.ID] = true
		}
	})
}

func TestJoin(t *testing.T) {
	env, err := ParseBearerKeys("env-key")
	if err != nil {
		t.Fatal(err)
	}
	file, err := ParseKeysFile([]byte("keys:\n  - {id: f, sha256: " + digestOf("file-key") + "}"))
	if err != nil {
		t.Fatal(err)
	}
	ks, err := Join(env, file)
	if err != nil || ks.Len() != 2 {
		t.Fatalf("Join: %v, %d keys", err, ks.Len())
	}
	for _, secret := range []string{"env-key", "file-key"} {
		if _, ok := ks.Match(secret); !ok {
			t.Errorf("%s is not accepted", secret)
		}
	}
	same, _ := ParseKeysFile([]byte("keys:\n  - {id: f, sha256: " + digestOf("env-key") + "}"))
	if _, err := Join(env, same); err == nil || strings.Contains(err.Error(), "env-key") {
		t.Errorf("a key in both: %v", err)
	}
	envID := env.All()[0].ID
	clash, _ := ParseKeysFile([]byte("keys:\n  - {id: " + envID + ", sha256: " + digestOf("other") + "}"))
	if _, err := Join(env, clash); err == nil {
		t.Error("an id in both was accepted")
	}
}

// Weakness is known while parsing, from the secret itself: the raw setting
// is never split again.
func TestWeak(t *testing.T) {
	strong := strings.Repeat("s", MinKeyLength)
	for _, tt := range []struct{ in, want string }{
		{strong, ""},
		{strong + ",dev-key", "entry 2 is the development key"},
		{strong + "," + strong[1:] + ":m", "entry 2 is shorter than 32"},
	} {
		ks, err := ParseBearerKeys(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		err = ks.Weak()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%q: Weak() = %v, want %q", tt.in, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), strong[1:]) {
			t.Errorf("the error quotes a key: %v", err)
		}
	}
}

// Replace swaps the whole set while other goroutines match: each match
// sees one set or the other, never a key of neither.
func TestReplaceIsAtomic(t *testing.T) {
	one, _ := ParseBearerKeys("one")
	two, _ := ParseBearerKeys("two")
	live, _ := ParseBearerKeys("one")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			live.Replace([]*BearerKeys{one, two}[i%2])
		}
	}()
	for range 10000 {
		_, a := live.Match("one")
		_, b := live.Match("two")
		_, c := live.Match("three")
		if c || live.Len() != 1 {
			t.Fatal("a key of neither set matched")
		}
		_ = a || b
	}
	close(stop)
	wg.Wait()
	live.Replace(two)
	if _, ok := live.Match("one"); ok {
		t.Error("a replaced key still matches")
	}
}
