package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/file"
	"github.com/judgeworks/judge/internal/store/memory"
	storeredis "github.com/judgeworks/judge/internal/store/redis"
	"github.com/redis/go-redis/v9"
)

// openStore is where the judge keeps its per-key state: with REDIS_URL,
// in Redis, shared by every replica, with the process's own buckets and
// answers standing in while Redis cannot be reached; without, in the
// process, with spending and usage also in a file under JUDGE_DATA_DIR, so
// that a restart keeps refusing a key over its budget (docs/operations.md,
// "Where spending is kept").
func openStore(ctx context.Context, cfg config, logger *slog.Logger) (store.Store, error) {
	if cfg.Redis != nil {
		redis.SetLogger(redisLog{logger})
		shared := storeredis.New(cfg.Redis, storeredis.Options{Prefix: cfg.RedisPrefix})
		if anyBudget(cfg.Keys.All()) {
			warnUnlessPersists(ctx, shared, logger)
		}
		return store.NewFallback(ctx, shared, memory.New(), logger), nil
	}
	f, err := file.Open(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("JUDGE_DATA_DIR: %w", err)
	}
	logger.Info("spending and usage are kept in a file", "path", f.Path())
	return f, nil
}

func anyBudget(keys []auth.BearerKey) bool {
	for _, k := range keys {
		if k.BudgetPerDay != nil || k.BudgetPerMonth != nil {
			return true
		}
	}
	return false
}

// persistenceCheckTimeout bounds asking Redis how it persists: start-up
// does not wait on a Redis that is down.
const persistenceCheckTimeout = 2 * time.Second

// warnUnlessPersists warns when Redis, which holds the budgets' figures,
// would forget them on its own restart, or cannot say whether it would.
func warnUnlessPersists(ctx context.Context, rdb *storeredis.Store, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, persistenceCheckTimeout)
	defer cancel()
	const fix = "run Redis with --appendonly yes and its data on a volume (docs/operations.md, \"Redis\")"
	p, err := rdb.Persistence(ctx)
	switch {
	case err != nil:
		logger.Warn("keys have budgets, and whether Redis keeps their spending across its restart cannot be told (CONFIG GET failed): a Redis that does not persist forgets it and budgets start again from nothing; "+fix, "err", err)
	case p == storeredis.PersistsNothing:
		logger.Warn("keys have budgets, and Redis does not persist: a restart of Redis forgets what every key spent and budgets start again from nothing; " + fix)
	case p == storeredis.PersistsSnapshots:
		logger.Warn("keys have budgets, and Redis persists only snapshots: a restart of Redis forgets what keys spent since the last one; " + fix)
	default:
		logger.Info("Redis persists every write: spending and usage survive its restart", "persistence", p.String())
	}
}
