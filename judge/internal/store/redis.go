package store

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisTimeout bounds one Redis call.
const DefaultRedisTimeout = 250 * time.Millisecond

// Redis is a Store in a Redis or Valkey shared by every replica. Its keys,
// after the prefix:
//
//	spent:<key>:<period>  nano-dollars spent (a string holding a number)
//	usage:<key>:<period>  a hash of "<model>|<count>" → number, the counts
//	                      named as in countFields
//
// Each lives a little past its period (periodTTL), for a request settled
// just after midnight.
type Redis struct {
	rdb     *redis.Client
	prefix  string
	timeout time.Duration
}

// NewRedis returns a store in rdb under prefix (the judge's is
// JUDGE_REDIS_PREFIX), each call bounded by timeout (zero:
// DefaultRedisTimeout). Closing the store leaves rdb open: its owner
// closes it.
func NewRedis(rdb *redis.Client, prefix string, timeout time.Duration) *Redis {
	if timeout <= 0 {
		timeout = DefaultRedisTimeout
	}
	return &Redis{rdb: rdb, prefix: prefix, timeout: timeout}
}

// periodTTL keeps a day's and a month's figures a little past its end.
var periodTTL = [2]time.Duration{49 * time.Hour, 33 * 24 * time.Hour}

// keys name key's figures of kind ("spent" or "usage") in at's day and
// month. A key is a keyed digest or an id of the keys file (letters,
// digits, ".", "_", "-"), so it holds no ":".
func (r *Redis) keys(kind, key string, at Periods) [2]string {
	start := r.prefix + kind + ":" + key + ":"
	return [2]string{start + at.Day, start + at.Month}
}

// write bounds a write by the timeout and lets it finish when the caller's
// context ends: a charge half made would be a charge lost.
func (r *Redis) write(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
}

func (r *Redis) Reserve(ctx context.Context, key string, at Periods, amount int64, limits Amounts) (Amounts, bool, error) {
	ctx, cancel := r.write(ctx)
	defer cancel()
	keys := r.keys("spent", key, at)
	res, err := reserveScript.Run(ctx, r.rdb, keys[:], amount, limits.Day, limits.Month,
		int(periodTTL[0].Seconds()), int(periodTTL[1].Seconds())).Int64Slice()
	if err != nil {
		return Amounts{}, false, err
	}
	if len(res) != 3 {
		return Amounts{}, false, errors.New("reserve script: unexpected reply")
	}
	return Amounts{res[1], res[2]}, res[0] == 1, nil
}

// reserveScript adds ARGV[1] to both counters unless either would pass its
// limit (ARGV[2], ARGV[3]; negative: none), atomically in Redis. It answers
// {added, day spent before, month spent before}.
var reserveScript = redis.NewScript(`
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

func (r *Redis) AddSpent(ctx context.Context, key string, at Periods, delta int64) error {
	ctx, cancel := r.write(ctx)
	defer cancel()
	keys := r.keys("spent", key, at)
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			p.IncrBy(ctx, k, delta)
			p.Expire(ctx, k, periodTTL[i])
		}
		return nil
	})
	return err
}

func (r *Redis) Spent(ctx context.Context, key string, at Periods) (Amounts, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	keys := r.keys("spent", key, at)
	vals, err := r.rdb.MGet(ctx, keys[0], keys[1]).Result()
	if err != nil {
		return Amounts{}, err
	}
	var n [2]int64
	for i, v := range vals {
		if s, ok := v.(string); ok {
			if n[i], err = strconv.ParseInt(s, 10, 64); err != nil {
				return Amounts{}, err
			}
		}
	}
	return Amounts{n[0], n[1]}, nil
}

func (r *Redis) AddUse(ctx context.Context, key string, at Periods, model string, c Counts) error {
	ctx, cancel := r.write(ctx)
	defer cancel()
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range r.keys("usage", key, at) {
			for _, f := range countFields {
				p.HIncrBy(ctx, k, model+"|"+f.name, *f.of(&c))
			}
			p.Expire(ctx, k, periodTTL[i])
		}
		return nil
	})
	return err
}

func (r *Redis) Use(ctx context.Context, key string, at Periods) (day, month map[string]Counts, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	keys := r.keys("usage", key, at)
	var hashes [2]*redis.MapStringStringCmd
	if _, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			hashes[i] = p.HGetAll(ctx, k)
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	var out [2]map[string]Counts
	for i, h := range hashes {
		out[i] = map[string]Counts{}
		for field, v := range h.Val() {
			// A model's name may hold "|"; the count's never does.
			j := strings.LastIndexByte(field, '|')
			n, err := strconv.ParseInt(v, 10, 64)
			if j < 0 || err != nil {
				continue
			}
			model, name := field[:j], field[j+1:]
			c := out[i][model]
			for _, f := range countFields {
				if f.name == name {
					*f.of(&c) = n
				}
			}
			out[i][model] = c
		}
	}
	return out[0], out[1], nil
}

// Close does nothing: the client belongs to the caller.
func (r *Redis) Close() error { return nil }

// Persistence is how a Redis keeps its data across its own restart.
type Persistence int

const (
	// PersistsNothing: a restart starts empty.
	PersistsNothing Persistence = iota
	// PersistsSnapshots: a restart starts from the last snapshot (save),
	// losing what was written since.
	PersistsSnapshots
	// PersistsEveryWrite: every write is logged to the append-only file
	// (appendonly yes), synced at least every second by default.
	PersistsEveryWrite
)

func (p Persistence) String() string {
	return [...]string{"nothing", "snapshots only", "every write (appendonly)"}[p]
}

// RedisPersistence asks rdb how it persists (CONFIG GET appendonly and
// save). An error means it could not be told: Redis unreachable, or CONFIG
// disabled or renamed, as managed Redis services often have it.
func RedisPersistence(ctx context.Context, rdb *redis.Client) (Persistence, error) {
	appendOnly, err := rdb.ConfigGet(ctx, "appendonly").Result()
	if err != nil {
		return 0, err
	}
	save, err := rdb.ConfigGet(ctx, "save").Result()
	if err != nil {
		return 0, err
	}
	a, ok := appendOnly["appendonly"]
	if _, hasSave := save["save"]; !ok || !hasSave {
		return 0, errors.New("CONFIG GET answered without appendonly or save")
	}
	switch {
	case a == "yes":
		return PersistsEveryWrite, nil
	case strings.TrimSpace(save["save"]) != "":
		return PersistsSnapshots, nil
	}
	return PersistsNothing, nil
}
