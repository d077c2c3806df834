// Command judge serves the System One API and OpenAI's Decisions API.
// Subcommands:
//
//	judge [serve]      serve on JUDGE_ADDR (default :8081)
//	judge healthcheck  exit 0 if the local server answers /healthz, else 1
//	judge calibrate    fit the language model's temperatures (see docs/adapter.md)
//	judge eval         measure a served model on a labelled set (see docs/eval.md)
//
// main only wires: the config (config.go, read once), the engines and the
// registry of models (engines.go), then the HTTP layer (judge/internal/api).
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/judgeworks/judge/internal/api"
	"github.com/judgeworks/judge/internal/evalset"
	"github.com/judgeworks/judge/internal/idempotency"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/shared/server"
	"github.com/judgeworks/shared/tokens"
	"github.com/judgeworks/shared/tracing"
	"github.com/redis/go-redis/v9"
)

func main() {
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	os.Exit(run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, logger))
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer, logger *slog.Logger) int {
	cmd := "serve"
	if len(args) > 0 {
		cmd = args[0]
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		logger.Error("configuration", "err", err)
		return 2
	}
	switch cmd {
	case "serve":
		var stopTracing func()
		if stopTracing, err = tracing.Setup(ctx, "judge", getenv, logger); err == nil {
			err = serve(ctx, cfg, logger)
			stopTracing()
		}
	case "healthcheck":
		err = healthcheck(ctx, cfg)
	case "calibrate":
		if cfg.LLMAPI != apiChat {
			logger.Error("judge calibrate fits the temperatures of a chat model: with LLM_API=" + cfg.LLMAPI +
				" write the calibration file's entry by hand (see docs/judge.md, \"Providers\")")
			return 2
		}
		err = evalset.Calibrate(ctx, args[1:], evalset.CalibrateConfig{
			LLM: cfg.LLM, Adapter: cfg.adapterOptions(logger), File: cfg.CalibrationFile,
		}, stdout)
	case "eval":
		err = runEval(ctx, cfg, args[1:], stdout, logger)
	default:
		fmt.Fprintf(os.Stderr, "usage: judge [serve | healthcheck | calibrate --data labeled.jsonl --model X [--out file] | eval --data labeled.jsonl --model X [--fit dev.jsonl] [--json out]]\nunknown command %q\n", cmd)
		return 2
	}
	if err != nil {
		logger.Error(cmd+" failed", "err", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, cfg config, logger *slog.Logger) error {
	if cfg.Keys.Len() == 0 {
		return errors.New("JUDGE_API_KEYS is empty: set at least one bearer key")
	}
	if cfg.WeakKeys != nil {
		return cfg.WeakKeys
	}
	counter := tokens.Default()
	reg, err := newRegistry(cfg, logger)
	if err != nil {
		return err
	}
	ids := make([]string, 0, cfg.Keys.Len())
	for _, k := range cfg.Keys.All() {
		if unknown := reg.Unknown(k.Models); len(unknown) > 0 {
			logger.Warn("a key names models this judge does not serve; requests for them get 400",
				"key", k.String(), "models", unknown)
		}
		ids = append(ids, k.ID)
	}
	limits := ratelimit.Settings{RPM: cfg.RateLimitRPM, Burst: cfg.RateLimitBurst, TPM: cfg.RateLimitTPM,
		IDs: ids, Prefix: cfg.RedisPrefix, Logger: logger}
	// Idempotency keys share the rate limits' Redis client and prefix.
	idem := idempotency.Settings{Prefix: cfg.RedisPrefix, Logger: logger}
	if cfg.Redis != nil {
		redis.SetLogger(redisLog{logger})
		rdb := redis.NewClient(cfg.Redis)
		defer rdb.Close()
		limits.Redis = rdb
		idem.Redis = rdb
	}
	e := api.New(logger, api.Deps{
		Keys:         cfg.Keys,
		Limiter:      ratelimit.New(ctx, limits),
		Registry:     reg,
		Metrics:      metrics.New(),
		Tokens:       counter,
		MaxQuestions: cfg.MaxQuestions,
		Idempotency:  idempotency.New(ctx, idem),
	})
	logger.Info("judge starting", "keys", cfg.Keys.Len(), "rate_limit_rpm", cfg.RateLimitRPM, "rate_limit_burst", cmp.Or(cfg.RateLimitBurst, cfg.RateLimitRPM),
		"rate_limit_tpm", cfg.RateLimitTPM, "max_questions", cfg.MaxQuestions, "redis", cfg.Redis != nil)
	return server.Run(ctx, e, cfg.Addr, logger)
}

// healthcheck asks the local server's /healthz; container health checks run it.
func healthcheck(ctx context.Context, cfg config) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+cfg.port()+"/healthz", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/healthz answered %s", resp.Status)
	}
	return nil
}
