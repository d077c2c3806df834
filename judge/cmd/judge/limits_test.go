package main

import (
	"strings"
	"testing"
	"time"
)

func TestLoadLimits(t *testing.T) {
	cfg, err := loadConfig(env(map[string]string{"JUDGE_API_KEYS": "dev-key"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RateLimitTPM != 15_000_000 || cfg.MaxQuestions != 1000 || cfg.Redis != nil || cfg.RedisPrefix != "judge:" || cfg.WeakKeys != nil ||
		cfg.CacheTTL != 0 || cfg.CacheShared {
		t.Errorf("defaults: TPM %d, max questions %d, redis %v, prefix %q, weak keys %v, cache %v shared %v",
			cfg.RateLimitTPM, cfg.MaxQuestions, cfg.Redis, cfg.RedisPrefix, cfg.WeakKeys, cfg.CacheTTL, cfg.CacheShared)
	}
	cfg, err = loadConfig(env(map[string]string{"JUDGE_API_KEYS": "k", "JUDGE_RATE_LIMIT_TPM": "90000",
		"JUDGE_MAX_QUESTIONS": "20", "REDIS_URL": "redis://:s3cret@127.0.0.1:6380/2", "JUDGE_REDIS_PREFIX": "staging:",
		"JUDGE_CACHE_TTL": "10m", "JUDGE_CACHE_SHARED": "true"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RateLimitTPM != 90000 || cfg.MaxQuestions != 20 || cfg.RedisPrefix != "staging:" || cfg.CacheTTL != 10*time.Minute || !cfg.CacheShared {
		t.Errorf("set: TPM %d, max questions %d, prefix %q, cache %v shared %v", cfg.RateLimitTPM, cfg.MaxQuestions, cfg.RedisPrefix,
			cfg.CacheTTL, cfg.CacheShared)
	}
	if r := cfg.Redis; r == nil || r.Addr != "127.0.0.1:6380" || r.DB != 2 || r.Password != "s3cret" || !r.ContextTimeoutEnabled {
		t.Errorf("REDIS_URL: %+v, want the address, database and password, with context deadlines on", r)
	}
}

func TestLoadLimitsErrors(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"JUDGE_RATE_LIMIT_TPM": "0"}, "JUDGE_RATE_LIMIT_TPM"},
		{map[string]string{"JUDGE_RATE_LIMIT_TPM": "15M"}, "JUDGE_RATE_LIMIT_TPM"},
		{map[string]string{"JUDGE_MAX_QUESTIONS": "-1"}, "JUDGE_MAX_QUESTIONS"},
		{map[string]string{"JUDGE_CACHE_TTL": "10"}, "JUDGE_CACHE_TTL"},
		{map[string]string{"JUDGE_CACHE_TTL": "-1m"}, "JUDGE_CACHE_TTL"},
		{map[string]string{"JUDGE_CACHE_SHARED": "yes please"}, "JUDGE_CACHE_SHARED"},
		{map[string]string{"REDIS_URL": "http://user:hunter2@host:6379"}, "REDIS_URL"},
		{map[string]string{"REDIS_URL": "redis://user:hunter2@host:port"}, "REDIS_URL"},
	}
	for _, tt := range tests {
		_, err := loadConfig(env(tt.env))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want one naming %s", tt.env, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error quotes the Redis password: %v", err)
		}
	}
}

// TestWeakKeys: with a language model configured or in production, every
// key must be long and none may be dev-key; the message names the rule and
// the entry, never the key.
func TestWeakKeys(t *testing.T) {
	strong := strings.Repeat("k", 32)
	llm := map[string]string{"LLM_API_KEY": "sk-upstream", "LLM_BASE_URL": "http://127.0.0.1:8000/v1", "LLM_MODEL": "m"}
	prod := map[string]string{"APP_ENV": "production"}
	tests := []struct {
		name  string
		extra map[string]string
		keys  string
		want  string // "" = accepted
	}{
		{"offline development accepts dev-key", nil, "dev-key", ""},
		{"a model refuses dev-key", llm, "dev-key", "entry 1 is the development key"},
		{"production refuses dev-key", prod, strong + ",dev-key:llm-latest", "entry 2 is the development key"},
		{"a model refuses a short key", llm, strong + ",short-secret-value", "entry 2 is shorter than 32"},
		{"a base URL counts as a model", map[string]string{"LLM_BASE_URL": "http://127.0.0.1:8000/v1", "LLM_API_KEY": "any", "LLM_MODEL": "m"}, "short-secret-value", "shorter than 32"},
		{"long keys pass", llm, strong + "," + strings.Repeat("x", 40) + ":llm-latest", ""},
	}
	for _, tt := range tests {
		vars := map[string]string{"JUDGE_API_KEYS": tt.keys}
		for k, v := range tt.extra {
			vars[k] = v
		}
		cfg, err := loadConfig(env(vars))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if tt.want == "" {
			if cfg.WeakKeys != nil {
				t.Errorf("%s: refused: %v", tt.name, cfg.WeakKeys)
			}
			continue
		}
		if cfg.WeakKeys == nil || !strings.Contains(cfg.WeakKeys.Error(), tt.want) || !strings.Contains(cfg.WeakKeys.Error(), "JUDGE_API_KEYS") {
			t.Errorf("%s: %v, want an error naming JUDGE_API_KEYS with %q", tt.name, cfg.WeakKeys, tt.want)
		}
		if cfg.WeakKeys != nil && strings.Contains(cfg.WeakKeys.Error(), "short-secret-value") {
			t.Errorf("%s: the message quotes a key: %v", tt.name, cfg.WeakKeys)
		}
	}
}
