// Package config reads the interview service's settings from the
// environment, once, into a validated struct.
package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/judgeworks/interview/internal/google"
	"github.com/judgeworks/shared/auth"
)

// Config is every setting of the service.
type Config struct {
	Addr        string
	DatabaseURL string
	// DBMaxConns bounds the connection pool (DB_MAX_CONNS, default
	// DefaultDBMaxConns).
	DBMaxConns int32
	Production bool
	// DataDir holds development state such as the generated JWT secret.
	DataDir        string
	JWTSecret      []byte
	GoogleClientID string
	GoogleKeysURL  string
	LLMBaseURL     string
	LLMAPIKey      string
	LLMModel       string
}

// DefaultDBMaxConns is twice the usable CPUs, at least 8. Connections are
// held only for single queries (never across a model call), so a small pool
// keeps up; a large one mostly adds lock and CPU contention in Postgres.
func DefaultDBMaxConns() int32 {
	return int32(max(8, 2*runtime.GOMAXPROCS(0)))
}

// LanguageModel reports whether a language-model endpoint is configured.
func (c Config) LanguageModel() bool { return c.LLMBaseURL != "" && c.LLMAPIKey != "" }

// Load reads the settings through getenv (os.Getenv in main).
func Load(getenv func(string) string) (Config, error) {
	c := Config{
		Addr:           or(getenv("INTERVIEW_ADDR"), ":8082"),
		DatabaseURL:    getenv("DATABASE_URL"),
		DataDir:        or(getenv("DATA_DIR"), ".data"),
		GoogleClientID: getenv("GOOGLE_CLIENT_ID"),
		GoogleKeysURL:  or(getenv("GOOGLE_KEYS_URL"), google.KeysURL),
		LLMBaseURL:     getenv("LLM_BASE_URL"),
		LLMAPIKey:      getenv("LLM_API_KEY"),
		LLMModel:       getenv("LLM_MODEL"),
		DBMaxConns:     DefaultDBMaxConns(),
	}
	switch env := getenv("APP_ENV"); env {
	case "production":
		c.Production = true
	case "", "development", "dev", "test":
	default:
		return c, fmt.Errorf("APP_ENV must be production or development, got %q", env)
	}
	if c.DatabaseURL == "" {
		return c, errors.New("DATABASE_URL is required")
	}
	if v := getenv("DB_MAX_CONNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return c, fmt.Errorf("DB_MAX_CONNS must be 1 to 1000, got %q", v)
		}
		c.DBMaxConns = int32(n)
	}
	secret := getenv("JWT_SECRET")
	switch {
	case secret != "" && c.Production && len(secret) < auth.MinSecretBytes:
		return c, fmt.Errorf("JWT_SECRET must be at least %d bytes in production", auth.MinSecretBytes)
	case secret != "":
		c.JWTSecret = []byte(secret)
	case c.Production:
		return c, errors.New("JWT_SECRET is required when APP_ENV=production")
	default:
		s, err := auth.LoadOrCreateSecret(filepath.Join(c.DataDir, "jwt-secret"))
		if err != nil {
			return c, fmt.Errorf("development JWT secret: %w", err)
		}
		c.JWTSecret = s
	}
	if (c.LLMBaseURL == "") != (c.LLMAPIKey == "") {
		return c, errors.New("set both LLM_BASE_URL and LLM_API_KEY, or neither for the offline interviewer")
	}
	return c, nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
