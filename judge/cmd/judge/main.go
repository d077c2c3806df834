// Command judge serves the System One API and OpenAI's Decisions API.
// Subcommands:
//
//	judge [serve]      serve on JUDGE_ADDR (default :8081)
//	judge healthcheck  exit 0 if the local server answers /healthz, else 1
//	judge calibrate    fit the language model's temperatures (see docs/adapter.md)
//	judge eval         measure a served model on a labelled set (see docs/eval.md)
//	judge keys new --id ID  print a fresh key and its keys-file entry (see docs/operations.md)
//
// main only wires: the config (config.go, read once), the engines and the
// registry of models (engines.go), then the HTTP layer (judge/internal/api).
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/judgeworks/judge/internal/api"
	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/budget"
	"github.com/judgeworks/judge/internal/cache"
	"github.com/judgeworks/judge/internal/evalset"
	"github.com/judgeworks/judge/internal/idempotency"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/judge/internal/usage"
	"github.com/judgeworks/shared/server"
	"github.com/judgeworks/shared/tokens"
	"github.com/judgeworks/shared/tracing"
)

func main() {
	// Log lines are written in batches, each within server.LogDelay: a
	// write per access log line cost the server a system call per request.
	logs := server.NewLogWriter(os.Stderr)
	code := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, slog.New(slog.NewJSONHandler(logs, nil)))
	_ = logs.Close()
	os.Exit(code)
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer, logger *slog.Logger) int {
	cmd := "serve"
	if len(args) > 0 {
		cmd = args[0]
	}
	if cmd == "keys" {
		// Needs no configuration: it only makes a key.
		if err := newKey(args[1:], stdout); err != nil {
			logger.Error("keys failed", "err", err)
			return 2
		}
		return 0
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		logger.Error("configuration", "err", err)
		return 2
	}
	switch cmd {
	case "serve":
		if getenv("GOGC") == "" {
			debug.SetGCPercent(gcPercent)
		}
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
		fmt.Fprintf(os.Stderr, "usage: judge [serve | healthcheck | keys new --id ID | calibrate --data labeled.jsonl --model X [--out file] | eval --data labeled.jsonl --model X [--fit dev.jsonl] [--json out]]\nunknown command %q\n", cmd)
		return 2
	}
	if err != nil {
		logger.Error(cmd+" failed", "err", err)
		return 1
	}
	return 0
}

// gcPercent is the server's garbage collection target unless GOGC says
// otherwise. The judge keeps about 8 MB of tables for its whole life (the
// tokenizer's and the word vectors' indexes) and allocates a few KB per
// request: at Go's default of 100 it would collect every 8 MB and mark the
// tables each time, a fifth of the offline engines' CPU under load. At 400
// the heap may reach about 40 MB between collections (docs/judge.md).
const gcPercent = 400

func serve(ctx context.Context, cfg config, logger *slog.Logger) error {
	if cfg.Keys.Len() == 0 && cfg.KeysFile == "" {
		return errors.New("JUDGE_API_KEYS and JUDGE_KEYS_FILE are empty: set at least one bearer key")
	}
	if cfg.WeakKeys != nil {
		return cfg.WeakKeys
	}
	counter := tokens.Default()
	reg, err := newRegistry(cfg, logger)
	if err != nil {
		return err
	}
	// Buckets, Idempotency-Key answers, cached answers, spending and usage
	// are kept in one store.
	st, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	limiter := ratelimit.New(ctx, ratelimit.Settings{RPM: cfg.RateLimitRPM, Burst: cfg.RateLimitBurst, TPM: cfg.RateLimitTPM,
		Keys: keyLimits(cfg.Keys.All(), reg, logger), Store: st})
	meters := metrics.New()
	if cfg.KeysFile != "" {
		stop := watchKeys(ctx, cfg, limiter, meters, reg, logger)
		defer stop()
	}
	e := api.New(logger, api.Deps{
		Keys:         cfg.Keys,
		Limiter:      limiter,
		Registry:     reg,
		Metrics:      meters,
		Tokens:       counter,
		MaxQuestions: cfg.MaxQuestions,
		Idempotency:  idempotency.New(ctx, idempotency.Settings{Store: st}),
		Budgets:      budget.New(budget.Settings{Store: st}),
		Usage:        usage.New(usage.Settings{Store: st, Logger: logger}),
		Cache:        cache.New(ctx, cache.Settings{TTL: cfg.CacheTTL, Shared: cfg.CacheShared, Store: st}),
	})
	logger.Info("judge starting", "keys", cfg.Keys.Len(), "rate_limit_rpm", cfg.RateLimitRPM, "rate_limit_burst", cmp.Or(cfg.RateLimitBurst, cfg.RateLimitRPM),
		"rate_limit_tpm", cfg.RateLimitTPM, "max_questions", cfg.MaxQuestions, "redis", cfg.Redis != nil,
		"cache_ttl", cfg.CacheTTL.String(), "cache_shared", cfg.CacheShared)
	return server.Run(ctx, e, cfg.Addr, logger)
}

// watchKeys reloads the keys file on SIGHUP and on change until the
// returned stop is called: the rate limiter learns a new set's keys before
// they are accepted, and the metrics forget the keys removed.
func watchKeys(ctx context.Context, cfg config, limiter *ratelimit.Limiter, meters *metrics.Metrics,
	reg *registry.Registry, logger *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	w := &auth.Watch{Path: cfg.KeysFile, Env: cfg.EnvKeys, Keys: cfg.Keys, Logger: logger,
		Apply: func(next []auth.BearerKey) {
			limiter.SetKeys(keyLimits(next, reg, logger))
			kept := map[string]bool{}
			for _, k := range next {
				kept[k.ID] = true
			}
			for _, k := range cfg.Keys.All() {
				if !kept[k.ID] {
					meters.Forget(k.ID)
				}
			}
		}}
	go w.Run(ctx, hup)
	return func() { signal.Stop(hup); cancel() }
}

// keyLimits are keys' rate limits, warning of keys that name models this
// judge does not serve.
func keyLimits(keys []auth.BearerKey, reg *registry.Registry, logger *slog.Logger) []ratelimit.Key {
	out := make([]ratelimit.Key, 0, len(keys))
	for _, k := range keys {
		if unknown := reg.Unknown(k.Models); len(unknown) > 0 {
			logger.Warn("a key names models this judge does not serve; requests for them get 400",
				"key", k.String(), "models", unknown)
		}
		out = append(out, ratelimit.Key{ID: k.ID, RPM: k.RPM, TPM: k.TPM})
	}
	return out
}

// newKey is `judge keys new --id ID`: a fresh key, printed once, and the
// keys-file entry that accepts it. The judge keeps only the digest.
func newKey(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("keys new", flag.ContinueOnError)
	id := fs.String("id", "", "the key's id in the keys file (letters, digits, '.', '_', '-')")
	if len(args) == 0 || args[0] != "new" {
		return errors.New("usage: judge keys new --id ID")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if !auth.ValidID(*id) {
		return fmt.Errorf("--id %q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", *id)
	}
	secret, digest, err := auth.NewKey()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "key (shown once; hand it to the client): %s\nadd under keys: in JUDGE_KEYS_FILE:\n  - {id: %s, sha256: %s}\n", secret, *id, digest)
	return err
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
