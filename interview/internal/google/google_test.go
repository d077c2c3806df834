package google

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
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
		type jwk struct {
			Kty string `json:"kty"`
			Kid string `json:"kid"`
			N   string `json:"n"`
			E   string `json:"e"`
		}
		var set struct {
			Keys []jwk `json:"keys"`
		}
		for kid, k := range ks.keys {
			set.Keys = append(set.Keys, jwk{"RSA", kid, base64.RawURLEncoding.EncodeToString(k.N.Bytes()), base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes())})
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
		t.Fatalf("%d key fetches, want 1 (the set is kept)", n)
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

// The key set is kept, whatever its max-age, until a token names a key it
// lacks; such tokens fetch it again at most once a minute, and a key
// rotated in meanwhile is picked up by the next fetch.
func TestUnknownKeyIDsRefetchAtMostOnceAMinute(t *testing.T) {
	ks := newKeyServer(t, "max-age=60")
	clk := newFakeClock()
	v := NewVerifier("client-1", ks.URL, nil, clk.now)
	for range 3 {
		if _, err := v.Verify(context.Background(), ks.sign(t, "k1", validClaims(clk.now()))); err != nil {
			t.Fatal(err)
		}
	}
	clk.advance(2 * time.Hour)
	if _, err := v.Verify(context.Background(), ks.sign(t, "k1", validClaims(clk.now()))); err != nil {
		t.Fatal(err)
	}
	if n := ks.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches, want 1", n)
	}
	// Unknown key ids fetch once, then not again within the minute.
	made := jwt.NewWithClaims(jwt.SigningMethodRS256, validClaims(clk.now()))
	made.Header["kid"] = "nope"
	madeUp, _ := made.SignedString(ks.keys["k1"])
	for range 5 {
		if _, err := v.Verify(context.Background(), madeUp); !interview.Is(err, interview.Unauthenticated) {
			t.Fatalf("unknown kid: %v", err)
		}
	}
	if n := ks.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches after unknown kids, want 2", n)
	}
	// A key rotated in meanwhile is picked up at the next fetch.
	ks.keys["k9"] = ks.keys["k2"]
	clk.advance(minRefetch + time.Second)
	if err := verifySoon(v, ks.sign(t, "k9", validClaims(clk.now()))); err != nil {
		t.Fatalf("rotated key refused: %v", err)
	}
	if n := ks.fetches.Load(); n != 3 {
		t.Fatalf("%d fetches, want 3", n)
	}
}

// What the keys endpoint answers is read within bounds, and an answer
// that is no key set is a failure: 502, never a refused credential.
func TestKeySetAnswerIsBounded(t *testing.T) {
	ks := newKeyServer(t, "max-age=60")
	for name, reply := range map[string]string{
		"larger than the bound": `{"keys":[],"padding":"` + strings.Repeat("a", maxKeysBody) + `"}`,
		"no keys":               `{"keys":[]}`,
		"not JSON":              `<html>sign in</html>`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = io.WriteString(w, reply)
			}))
			t.Cleanup(srv.Close)
			v := NewVerifier("client-1", srv.URL, nil, nil)
			if _, err := v.Verify(context.Background(), ks.sign(t, "k1", validClaims(time.Now()))); !interview.Is(err, interview.Upstream) {
				t.Fatalf("Verify: %v, want upstream_failed", err)
			}
		})
	}
}
