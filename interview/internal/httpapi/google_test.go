package httpapi_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview/internal/account"
	"github.com/judgeworks/interview/internal/google"
	"github.com/judgeworks/interview/internal/httpapi"
	"github.com/judgeworks/interview/internal/postgres"
)

// googleEnv is an env whose Google sign-in trusts a local key endpoint.
func googleEnv(t *testing.T) (*env, func(sub, email string, verified bool) string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keys := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{
			"kty": "RSA", "kid": "local", "alg": "RS256",
			"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()),
			"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes()),
		}}})
	}))
	t.Cleanup(keys.Close)
	e := newEnv(t, func(d *httpapi.Deps, store *postgres.Store, _ *pgxpool.Pool) {
		v := google.NewVerifier("client-1", keys.URL, nil, nil)
		d.Accounts = account.NewService(store, v)
		d.GoogleClientID = "client-1"
	})
	sign := func(sub, email string, verified bool) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{
			"iss": "accounts.google.com", "aud": "client-1", "sub": sub, "email": email,
			"email_verified": verified, "name": "G User", "exp": time.Now().Add(time.Hour).Unix(),
		})
		tok.Header["kid"] = "local"
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	return e, sign
}

func TestGoogleSignIn(t *testing.T) {
	e, sign := googleEnv(t)
	c := e.client()
	var cfg struct {
		GoogleClientID string `json:"googleClientId"`
	}
	must(t, c.do("GET", "/api/config", nil), http.StatusOK).json(t, &cfg)
	if cfg.GoogleClientID != "client-1" {
		t.Fatalf("config %+v", cfg)
	}

	// A password account registered by someone claiming the email...
	must(t, c.do("POST", "/api/auth/register", map[string]string{"fullName": "Squatter", "email": "ada@example.com", "password": "squatter password"}), http.StatusCreated)
	// ...is linked on Google sign-in, and its unverified password dropped.
	g := e.client()
	var u struct {
		User struct {
			ID, Email string
		} `json:"user"`
	}
	must(t, g.do("POST", "/api/auth/google", map[string]string{"credential": sign("g-1", "Ada@Example.com", true)}), http.StatusOK).json(t, &u)
	if u.User.Email != "ada@example.com" {
		t.Fatalf("user %+v", u.User)
	}
	must(t, g.do("GET", "/api/auth/me", nil), http.StatusOK)
	must(t, c.do("POST", "/api/auth/login", map[string]string{"email": "ada@example.com", "password": "squatter password"}), http.StatusUnauthorized)

	// Signing in again finds the same account.
	var again struct {
		User struct{ ID string } `json:"user"`
	}
	must(t, e.client().do("POST", "/api/auth/google", map[string]string{"credential": sign("g-1", "ada@example.com", true)}), http.StatusOK).json(t, &again)
	if again.User.ID != u.User.ID {
		t.Fatalf("second sign-in made account %s, want %s", again.User.ID, u.User.ID)
	}
	// Another Google account with the same email: 409.
	must(t, e.client().do("POST", "/api/auth/google", map[string]string{"credential": sign("g-2", "ada@example.com", true)}), http.StatusConflict)
	// A new email makes a new account.
	must(t, e.client().do("POST", "/api/auth/google", map[string]string{"credential": sign("g-3", "new@example.com", true)}), http.StatusOK)
	// Unverified email, garbage, missing credential.
	must(t, e.client().do("POST", "/api/auth/google", map[string]string{"credential": sign("g-4", "x@example.com", false)}), http.StatusUnauthorized)
	must(t, e.client().do("POST", "/api/auth/google", map[string]string{"credential": "not.a.jwt"}), http.StatusUnauthorized)
	must(t, e.client().do("POST", "/api/auth/google", map[string]string{}), http.StatusBadRequest)
}
