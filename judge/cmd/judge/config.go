package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/judgeworks/judge/internal/evalset"
	"github.com/judgeworks/shared/auth"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/redis/go-redis/v9"
)

// config is every setting of the judge, read once from the environment.
type config struct {
	// Addr is the listen address (JUDGE_ADDR, default :8081).
	Addr string
	// Keys are the accepted bearer keys (JUDGE_API_KEYS).
	Keys *auth.BearerKeys
	// RateLimitRPM is each key's limit per minute (JUDGE_RATE_LIMIT_RPM).
	RateLimitRPM int
	// RateLimitTPM is each key's input tokens per minute (JUDGE_RATE_LIMIT_TPM).
	RateLimitTPM int
	// MaxQuestions bounds the questions of one request (JUDGE_MAX_QUESTIONS).
	MaxQuestions int
	// Redis, when REDIS_URL is set, holds the rate limits every replica
	// shares; nil keeps them in the process.
	Redis *redis.Options
	// RedisPrefix starts the judge's keys in Redis (JUDGE_REDIS_PREFIX).
	RedisPrefix string
	// WeakKeys, when set, says which key breaks the rule for keys of a judge
	// with a language model or in production; serve refuses to start.
	WeakKeys error
	// Prices override models' USD prices per million input tokens
	// (JUDGE_MODEL_PRICES, "model=price,model=price").
	Prices map[string]float64
	// LLM is the language-model endpoint; unset means offline only.
	LLM chatmodel.Settings
	// Adapter shapes the language-model answers (JUDGE_LLM_*, JUDGE_CALIBRATION_FILE).
	Adapter evalset.Settings
}

func loadConfig(getenv func(string) string) (config, error) {
	cfg := config{
		Addr:         strings.TrimSpace(getenv("JUDGE_ADDR")),
		RateLimitRPM: 1200,
		RateLimitTPM: 15_000_000,
		MaxQuestions: 1000,
		RedisPrefix:  "judge:",
		Prices:       map[string]float64{},
		LLM:          chatmodel.FromEnv(getenv),
	}
	adapter, err := evalset.SettingsFromEnv(getenv)
	if err != nil {
		return cfg, err
	}
	cfg.Adapter = adapter
	if cfg.Addr == "" {
		cfg.Addr = ":8081"
	}
	if _, _, err := net.SplitHostPort(cfg.Addr); err != nil {
		return cfg, fmt.Errorf("JUDGE_ADDR %q: want host:port or :port", cfg.Addr)
	}
	keys, err := auth.ParseBearerKeys(getenv("JUDGE_API_KEYS"))
	if err != nil {
		return cfg, fmt.Errorf("JUDGE_API_KEYS: %w", err)
	}
	cfg.Keys = keys
	if s := strings.TrimSpace(getenv("JUDGE_RATE_LIMIT_RPM")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("JUDGE_RATE_LIMIT_RPM %q: want a whole number of requests per minute, at least 1", s)
		}
		cfg.RateLimitRPM = n
	}
	if err := limitsFromEnv(getenv, &cfg); err != nil {
		return cfg, err
	}
	if s := strings.TrimSpace(getenv("JUDGE_MODEL_PRICES")); s != "" {
		for item := range strings.SplitSeq(s, ",") {
			name, price, ok := strings.Cut(strings.TrimSpace(item), "=")
			usd, err := strconv.ParseFloat(strings.TrimSpace(price), 64)
			if !ok || err != nil || usd < 0 || strings.TrimSpace(name) == "" {
				return cfg, fmt.Errorf("JUDGE_MODEL_PRICES item %q: want model=USD per million input tokens", item)
			}
			cfg.Prices[strings.TrimSpace(name)] = usd
		}
	}
	return cfg, nil
}

// port is the port of Addr, for the health check.
func (c config) port() string {
	_, p, _ := net.SplitHostPort(c.Addr)
	return p
}
