package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoad(t *testing.T) {
	strong := strings.Repeat("s", 32)
	cases := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"production needs a secret", map[string]string{"DATABASE_URL": "postgres://x", "APP_ENV": "production"}, "JWT_SECRET is required"},
		{"production refuses a weak secret", map[string]string{"DATABASE_URL": "postgres://x", "APP_ENV": "production", "JWT_SECRET": "short"}, "at least 32"},
		{"production with a strong secret", map[string]string{"DATABASE_URL": "postgres://x", "APP_ENV": "production", "JWT_SECRET": strong}, ""},
		{"database required", map[string]string{"JWT_SECRET": strong}, "DATABASE_URL"},
		{"unknown APP_ENV", map[string]string{"DATABASE_URL": "postgres://x", "APP_ENV": "prod"}, "APP_ENV"},
		{"half an LLM setting", map[string]string{"DATABASE_URL": "postgres://x", "JWT_SECRET": strong, "LLM_BASE_URL": "http://127.0.0.1/v1"}, "LLM_API_KEY"},
		{"bad pool size", map[string]string{"DATABASE_URL": "postgres://x", "JWT_SECRET": strong, "DB_MAX_CONNS": "0"}, "DB_MAX_CONNS"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(env(c.env))
			if c.wantErr == "" {
				if err != nil || !cfg.Production || cfg.Addr != ":8082" {
					t.Fatalf("Load = %+v, %v", cfg, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want it to mention %q", err, c.wantErr)
			}
		})
	}
}

func TestDevelopmentSecretPersists(t *testing.T) {
	dir := t.TempDir()
	e := env(map[string]string{"DATABASE_URL": "postgres://x", "DATA_DIR": dir})
	a, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(e)
	if err != nil || string(a.JWTSecret) != string(b.JWTSecret) || len(a.JWTSecret) < 32 {
		t.Fatalf("secret not kept across loads: %v", err)
	}
	if st, err := os.Stat(filepath.Join(dir, "jwt-secret")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", st, err)
	}
}
