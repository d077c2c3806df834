package auth

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSessionCookie(t *testing.T) {
	for _, secure := range []bool{false, true} {
		c := SessionCookie("session", "tok", 7*24*time.Hour, secure)
		if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure != secure || c.MaxAge != 604800 {
			t.Fatalf("cookie %+v", c)
		}
		cl := ClearedCookie("session", secure)
		if cl.MaxAge >= 0 || cl.Value != "" || cl.Secure != secure || !cl.HttpOnly {
			t.Fatalf("cleared cookie %+v", cl)
		}
	}
}

func TestLoadOrCreateSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "jwt-secret")
	a, err := LoadOrCreateSecret(path)
	if err != nil || len(a) != MinSecretBytes {
		t.Fatalf("create: %d bytes, %v", len(a), err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	b, err := LoadOrCreateSecret(path)
	if err != nil || string(a) != string(b) {
		t.Fatal("secret changed between loads")
	}
	if err := os.WriteFile(path, []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateSecret(path); err == nil {
		t.Fatal("short secret accepted")
	}
}
