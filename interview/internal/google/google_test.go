package google

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/judgeworks/interview"
)

// keyServer publishes locally generated RSA keys as a JWKS, the way Google
// does, and counts fetches.
type keyServer struct {
	*httptest.Server
	keys    map[string]*rsa.PrivateKey
	fetches atomic.Int32
}

func newKeyServer(t *testing.T, maxAge string) *keyServer {
	t.Helper()
	ks := &keyServer{keys: map[string]*rsa.PrivateKey{}}
	for _, kid := range []string{"k1", "k2"} {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		ks.keys[kid] = k
	}
	ks.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ks.fetches.Add(1)
		var set jwks
		for kid, k := range ks.keys {
			set.Keys = append(set.Keys, struct {
				Kty string `json:"kty"`
				Kid string `json:"kid"`
				N   string `json:"n"`
				E   string `json:"e"`
			}{"RSA", kid, base64.RawURLEncoding.EncodeToString(k.N.Bytes()), base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes())})
		}
		w.Header().Set("Cache-Control", maxAge)
		_ = json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(ks.Close)
	return ks
}

func (ks *keyServer) sign(t *testing.T, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(ks.keys[kid])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validClaims(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"iss": "https://accounts.google.com", "aud": "client-1", "sub": "g-123",
		"email": "ada@example.com", "email_verified": true, "name": "Ada",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
}

func TestVerify(t *testing.T) {
	ks := newKeyServer(t, "public, max-age=3600, must-revalidate")
	now := time.Now()
	v := NewVerifier("client-1", ks.URL, nil, nil)
	ctx := context.Background()
	id, err := v.Verify(ctx, ks.sign(t, "k1", validClaims(now)))
	if err != nil || id.Subject != "g-123" || id.Email != "ada@example.com" || id.Name != "Ada" {
		t.Fatalf("Verify = %+v, %v", id, err)
	}
	plainIss := validClaims(now)
	plainIss["iss"] = "accounts.google.com"
	if _, err := v.Verify(ctx, ks.sign(t, "k2", plainIss)); err != nil {
		t.Fatalf("issuer without scheme refused: %v", err)
	}
	if n := ks.fetches.Load(); n != 1 {
		t.Fatalf("%d key fetches, want 1 (cached by max-age)", n)
	}

	change := func(k string, v any) jwt.MapClaims {
		c := validClaims(now)
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	foreign := jwt.NewWithClaims(jwt.SigningMethodRS256, validClaims(now))
	foreign.Header["kid"] = "k1"
	foreignTok, _ := foreign.SignedString(other)
	hs, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, validClaims(now)).SignedString([]byte("k1"))
	cases := map[string]string{
		"wrong audience":     ks.sign(t, "k1", change("aud", "someone-else")),
		"wrong issuer":       ks.sign(t, "k1", change("iss", "https://evil.example.com")),
		"expired":            ks.sign(t, "k1", change("exp", now.Add(-time.Minute).Unix())),
		"no expiry":          ks.sign(t, "k1", change("exp", nil)),
		"unverified email":   ks.sign(t, "k1", change("email_verified", false)),
		"no email_verified":  ks.sign(t, "k1", change("email_verified", nil)),
		"unknown key":        ks.sign(t, "k1", validClaims(now))[:10] + "x",
		"signed by stranger": foreignTok,
		"HS256":              hs,
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := v.Verify(ctx, tok); !interview.Is(err, interview.Unauthenticated) {
				t.Fatalf("accepted or wrong error: %v", err)
			}
		})
	}
}

func TestKeysRefetchedAfterMaxAge(t *testing.T) {
	ks := newKeyServer(t, "max-age=60")
	var now atomic.Int64
	now.Store(time.Now().Unix())
	clock := func() time.Time { return time.Unix(now.Load(), 0) }
	v := NewVerifier("client-1", ks.URL, nil, clock)
	tok := ks.sign(t, "k1", validClaims(clock()))
	for range 3 {
		if _, err := v.Verify(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
	}
	now.Add(61)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	if n := ks.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches, want 2", n)
	}
	// Unknown key ids do not refetch more than once a minute.
	ks.keys["k9"] = ks.keys["k1"]
	tok9 := jwt.NewWithClaims(jwt.SigningMethodRS256, validClaims(clock()))
	tok9.Header["kid"] = "nope"
	s9, _ := tok9.SignedString(ks.keys["k1"])
	for range 5 {
		if _, err := v.Verify(context.Background(), s9); err == nil {
			t.Fatal("unknown kid accepted")
		}
	}
	if n := ks.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches after unknown kids, want still 2", n)
	}
	// A key rotated in meanwhile is picked up at the next fetch.
	now.Add(61)
	tokNew := jwt.NewWithClaims(jwt.SigningMethodRS256, validClaims(clock()))
	tokNew.Header["kid"] = "k9"
	sNew, _ := tokNew.SignedString(ks.keys["k9"])
	if _, err := v.Verify(context.Background(), sNew); err != nil {
		t.Fatalf("rotated key refused: %v", err)
	}
}

func TestMaxAge(t *testing.T) {
	cases := map[string]time.Duration{
		"public, max-age=21600, must-revalidate": 6 * time.Hour,
		"MAX-AGE=5":                              5 * time.Second,
		"no-store":                               defaultKeyTTL,
		"max-age=-1":                             defaultKeyTTL,
		"":                                       defaultKeyTTL,
	}
	for in, want := range cases {
		if got := MaxAge(in); got != want {
			t.Errorf("MaxAge(%q) = %v, want %v", in, got, want)
		}
	}
}

func FuzzParseKeys(f *testing.F) {
	f.Add([]byte(`{"keys":[{"kty":"RSA","kid":"a","n":"AQAB","e":"AQAB"}]}`))
	f.Add([]byte(`{"keys":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		keys, err := ParseKeys(b)
		if err != nil {
			return
		}
		for kid, k := range keys {
			if kid == "" || k.N.BitLen() < 2048 || k.E < 3 {
				t.Fatalf("weak or unnamed key accepted: %q %d bits e=%d", kid, k.N.BitLen(), k.E)
			}
		}
	})
}
