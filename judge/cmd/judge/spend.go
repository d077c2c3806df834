package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/store"
	"github.com/redis/go-redis/v9"
)

// spendStore is where what keys spend and use is kept: in Redis when
// REDIS_URL is set, shared by every replica, and otherwise in a file under
// JUDGE_DATA_DIR, so that a restart keeps refusing a key over its budget
// (docs/operations.md, "Where spending is kept").
func spendStore(ctx context.Context, cfg config, rdb *redis.Client, logger *slog.Logger) (store.Store, error) {
	if rdb != nil {
		if anyBudget(cfg.Keys.All()) {
			warnUnlessPersists(ctx, rdb, logger)
		}
		return store.NewRedis(rdb, cfg.RedisPrefix, 0), nil
	}
	f, err := store.OpenFile(cfg.DataDir)
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
func warnUnlessPersists(ctx context.Context, rdb *redis.Client, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, persistenceCheckTimeout)
	defer cancel()
	const fix = "run Redis with --appendonly yes and its data on a volume (docs/operations.md, \"Redis\")"
	p, err := store.RedisPersistence(ctx, rdb)
	switch {
	case err != nil:
		logger.Warn("keys have budgets, and whether Redis keeps their spending across its restart cannot be told (CONFIG GET failed): a Redis that does not persist forgets it and budgets start again from nothing; "+fix, "err", err)
	case p == store.PersistsNothing:
		logger.Warn("keys have budgets, and Redis does not persist: a restart of Redis forgets what every key spent and budgets start again from nothing; " + fix)
	case p == store.PersistsSnapshots:
		logger.Warn("keys have budgets, and Redis persists only snapshots: a restart of Redis forgets what keys spent since the last one; " + fix)
	default:
		logger.Info("Redis persists every write: spending and usage survive its restart", "persistence", p.String())
	}
}
