package auth

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

func newTokens(t *testing.T, now func() time.Time) *Tokens {
	t.Helper()
	tk, err := NewTokens(testSecret, "interview", time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestTokenRoundTrip(t *testing.T) {
	tk := newTokens(t, nil)
	tok, err := tk.Issue("user-1")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := tk.Verify(tok)
	if err != nil || sub != "user-1" {
		t.Fatalf("Verify = %q, %v", sub, err)
	}
}

func TestSessionRoundTrip(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := base
	tk := newTokens(t, func() time.Time { return now })
	fresh, err := tk.IssueSession(Session{Subject: "user-1", Version: 7})
	if err != nil {
		t.Fatal(err)
	}
	s, err := tk.VerifySession(fresh)
	if err != nil || s.Subject != "user-1" || s.Version != 7 || !s.AuthTime.Equal(base) {
		t.Fatalf("VerifySession = %+v, %v; want user-1, version 7, signed in at %v", s, err, base)
	}
	// Reissued later (a password change, say): the sign-in time is kept.
	now = base.Add(30 * time.Minute)
	again, err := tk.IssueSession(Session{Subject: "user-1", Version: 8, AuthTime: s.AuthTime})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := tk.VerifySession(again); err != nil || s.Version != 8 || !s.AuthTime.Equal(base) {
		t.Fatalf("reissued = %+v, %v; want version 8, signed in at %v", s, err, base)
	}
	// A token from before sv and auth_time: version 0, signed in when issued.
	old, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{Subject: "user-1", Issuer: "interview",
		IssuedAt: jwt.NewNumericDate(base), ExpiresAt: jwt.NewNumericDate(base.Add(time.Hour))}).SignedString(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := tk.VerifySession(old); err != nil || s.Version != 0 || !s.AuthTime.Equal(base) {
		t.Fatalf("old token = %+v, %v", s, err)
	}
}

func TestTokenRejected(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tk := newTokens(t, func() time.Time { return base })
	good, err := tk.Issue("user-1")
	if err != nil {
		t.Fatal(err)
	}
	claims := jwt.RegisteredClaims{Subject: "user-1", Issuer: "interview",
		ExpiresAt: jwt.NewNumericDate(base.Add(time.Hour))}
	sign := func(m jwt.SigningMethod, key any) string {
		s, err := jwt.NewWithClaims(m, claims).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	forged := strings.Replace(string(payload), "user-1", "user-2", 1)
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(forged)) + "." + parts[2]

	noExp := jwt.RegisteredClaims{Subject: "user-1", Issuer: "interview"}
	noExpTok, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, noExp).SignedString(testSecret)
	otherIss := claims
	otherIss.Issuer = "judge"
	otherIssTok, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, otherIss).SignedString(testSecret)

	cases := map[string]string{
		"tampered payload": tampered,
		"wrong secret":     sign(jwt.SigningMethodHS256, []byte("another secret another secret!!!")),
		"alg none":         sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType),
		"HS384":            sign(jwt.SigningMethodHS384, testSecret),
		"RS256":            sign(jwt.SigningMethodRS256, rsaKey),
		"no expiry":        noExpTok,
		"other issuer":     otherIssTok,
		"garbage":          "not.a.token",
		"empty":            "",
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			if sub, err := tk.Verify(tok); !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("Verify = %q, %v; want ErrInvalidToken", sub, err)
			}
		})
	}
	t.Run("expired", func(t *testing.T) {
		later := newTokens(t, func() time.Time { return base.Add(2 * time.Hour) })
		if _, err := later.Verify(good); !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("expired token accepted: %v", err)
		}
	})
}

func FuzzVerify(f *testing.F) {
	tk, _ := NewTokens(testSecret, "interview", time.Hour, nil)
	good, _ := tk.Issue("u")
	f.Add(good)
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Fuzz(func(t *testing.T, s string) {
		// Only our own signature over subject "u" can ever verify.
		if sub, err := tk.Verify(s); err == nil && sub != "u" {
			t.Fatalf("accepted forged token %q for %q", s, sub)
		}
	})
}
