package redis

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/judgeworks/judge/internal/store"
	goredis "github.com/redis/go-redis/v9"
)

// periodTTL keeps a day's and a month's figures a little past its end,
// for a request settled just after midnight.
var periodTTL = [2]time.Duration{49 * time.Hour, 33 * 24 * time.Hour}

// keys name key's figures of kind ("spent" or "usage") in at's day and
// month. A key is a keyed digest or an id of the keys file (letters,
// digits, ".", "_", "-"), so it holds no ":".
func (r *Store) keys(kind, key string, at store.Periods) [2]string {
	start := r.prefix + kind + ":" + key + ":"
	return [2]string{start + at.Day, start + at.Month}
}

func (r *Store) Reserve(ctx context.Context, key string, at store.Periods, amount int64, limits store.Amounts) (store.Amounts, bool, error) {
	ctx, cancel := call(ctx, r.timeout)
	defer cancel()
	keys := r.keys("spent", key, at)
	res, err := reserveScript.Run(ctx, r.rdb, keys[:], amount, limits.Day, limits.Month,
		int(periodTTL[0].Seconds()), int(periodTTL[1].Seconds())).Int64Slice()
	if err != nil {
		return store.Amounts{}, false, err
	}
	if len(res) != 3 {
		return store.Amounts{}, false, errors.New("reserve script: unexpected reply")
	}
	return store.Amounts{Day: res[1], Month: res[2]}, res[0] == 1, nil
}

// reserveScript adds ARGV[1] to both counters unless either would pass its
// limit (ARGV[2], ARGV[3]; negative: none), atomically in Redis. It answers
// {added, day spent before, month spent before}.
var reserveScript = goredis.NewScript(`
local d = tonumber(redis.call('GET', KEYS[1]) or '0')
local m = tonumber(redis.call('GET', KEYS[2]) or '0')
local a = tonumber(ARGV[1])
local dl, ml = tonumber(ARGV[2]), tonumber(ARGV[3])
if (dl >= 0 and d + a > dl) or (ml >= 0 and m + a > ml) then
  return {0, d, m}
end
redis.call('INCRBY', KEYS[1], a)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('INCRBY', KEYS[2], a)
redis.call('EXPIRE', KEYS[2], ARGV[5])
return {1, d, m}
`)

func (r *Store) AddSpent(ctx context.Context, key string, at store.Periods, delta int64) error {
	ctx, cancel := call(ctx, r.timeout)
	defer cancel()
	keys := r.keys("spent", key, at)
	_, err := r.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, k := range keys {
			p.IncrBy(ctx, k, delta)
			p.Expire(ctx, k, periodTTL[i])
		}
		return nil
	})
	return err
}

// Spent, and Use, end with their caller: a read half made is no loss.
func (r *Store) Spent(ctx context.Context, key string, at store.Periods) (store.Amounts, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	keys := r.keys("spent", key, at)
	vals, err := r.rdb.MGet(ctx, keys[0], keys[1]).Result()
	if err != nil {
		return store.Amounts{}, err
	}
	var n [2]int64
	for i, v := range vals {
		if s, ok := v.(string); ok {
			if n[i], err = strconv.ParseInt(s, 10, 64); err != nil {
				return store.Amounts{}, err
			}
		}
	}
	return store.Amounts{Day: n[0], Month: n[1]}, nil
}

func (r *Store) AddUse(ctx context.Context, key string, at store.Periods, model string, c store.Counts) error {
	ctx, cancel := call(ctx, r.timeout)
	defer cancel()
	_, err := r.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, k := range r.keys("usage", key, at) {
			for _, f := range store.CountFields {
				p.HIncrBy(ctx, k, model+"|"+f.Name, *f.Of(&c))
			}
			p.Expire(ctx, k, periodTTL[i])
		}
		return nil
	})
	return err
}

func (r *Store) Use(ctx context.Context, key string, at store.Periods) (day, month map[string]store.Counts, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	keys := r.keys("usage", key, at)
	var hashes [2]*goredis.MapStringStringCmd
	if _, err := r.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, k := range keys {
			hashes[i] = p.HGetAll(ctx, k)
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	var out [2]map[string]store.Counts
	for i, h := range hashes {
		out[i] = map[string]store.Counts{}
		for field, v := range h.Val() {
			// A model's name may hold "|"; the count's never does.
			j := strings.LastIndexByte(field, '|')
			n, err := strconv.ParseInt(v, 10, 64)
			if j < 0 || err != nil {
				continue
			}
			model, name := field[:j], field[j+1:]
			c := out[i][model]
			for _, f := range store.CountFields {
				if f.Name == name {
					*f.Of(&c) = n
				}
			}
			out[i][model] = c
		}
	}
	return out[0], out[1], nil
}
