package main

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"

	"github.com/judgeworks/judge/internal/store/redis"
	"github.com/judgeworks/shared/settings"
)

// limitsFromEnv reads the work limits, REDIS_URL, the answer cache and the
// rule on key strength into cfg.
func limitsFromEnv(getenv func(string) string, cfg *config) error {
	var err error
	if cfg.RateLimitTPM, err = settings.Whole(getenv, "JUDGE_RATE_LIMIT_TPM", cfg.RateLimitTPM, 1, math.MaxInt); err != nil {
		return err
	}
	if cfg.RateLimitBurst, err = settings.Whole(getenv, "JUDGE_RATE_LIMIT_BURST", cfg.RateLimitBurst, 1, math.MaxInt); err != nil {
		return err
	}
	if cfg.MaxQuestions, err = settings.Whole(getenv, "JUDGE_MAX_QUESTIONS", cfg.MaxQuestions, 1, math.MaxInt); err != nil {
		return err
	}
	if cfg.RateLimitBurst > cfg.RateLimitRPM {
		return fmt.Errorf("JUDGE_RATE_LIMIT_BURST %d: at most JUDGE_RATE_LIMIT_RPM (%d); a key never sends more than its minute at once",
			cfg.RateLimitBurst, cfg.RateLimitRPM)
	}
	if s := strings.TrimSpace(getenv("REDIS_URL")); s != "" {
		opts, err := redis.ParseURL(s)
		if err != nil {
			return fmt.Errorf("REDIS_URL: %w", err)
		}
		cfg.Redis = opts
	}
	if s := strings.TrimSpace(getenv("JUDGE_REDIS_PREFIX")); s != "" {
		cfg.RedisPrefix = s
	}
	// JUDGE_CACHE_TTL=0: the cache is off.
	if cfg.CacheTTL, err = settings.Duration(getenv, "JUDGE_CACHE_TTL", cfg.CacheTTL, 0); err != nil {
		return err
	}
	if cfg.CacheShared, err = settings.Bool(getenv, "JUDGE_CACHE_SHARED", cfg.CacheShared); err != nil {
		return err
	}
	if cfg.LLM.Configured() || cfg.ModelsFile != "" || strings.EqualFold(strings.TrimSpace(getenv("APP_ENV")), "production") {
		// Kept for serve, so that commands needing no keys (calibrate,
		// healthcheck) still run.
		// Keys of a keys file are known by their digest only; `judge keys
		// new` makes them strong.
		cfg.WeakKeys = cfg.EnvKeys.Weak()
	}
	return nil
}

// redisLog sends the Redis client's own messages (failed dials, pool
// trouble) to the structured log at debug level: the store already
// reports losing Redis once, and a line per failed dial would flood.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, fmt.Sprintf(format, v...), "component", "redis")
}
