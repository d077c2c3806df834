package perkey

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisTimeout bounds one Redis call. An answer of a few megabytes
// must fit in it on a local network.
const DefaultRedisTimeout = 250 * time.Millisecond

// ProbeInterval is how often, at most, a process that lost Redis tries it
// again; meanwhile its users fall back to what they keep in process.
const ProbeInterval = time.Second

// Redis keeps entries in Redis, bounded per owner as Memory is: each
// owner has an index of its entries (a sorted set by expiry, so the first
// is the oldest stored) and their sizes (a hash, its field "#" the sum).
// Storing, and evicting the owner's oldest past its Limits, happen in one
// script, so replicas storing for one owner at once never miss a byte.
// Redis itself must never evict (maxmemory-policy noeviction, see
// docs/operations.md): the rate-limit buckets share it, and an eviction
// there would hand a key a fresh burst.
type Redis struct {
	rdb     *redis.Client
	prefix  string
	perKey  Limits
	timeout time.Duration
	// what names the user in logs: "idempotency keys", "the answer cache".
	what      string
	log       *slog.Logger
	up        atomic.Bool
	nextProbe atomic.Int64 // unix nanoseconds; while down, the next attempt
}

// RedisSettings say where entries live in Redis and how they are bounded.
type RedisSettings struct {
	Client *redis.Client
	// Prefix starts every key of this store.
	Prefix string
	// PerKey bounds each owner; zero fields: DefaultPerKey.
	PerKey Limits
	// Timeout bounds each call; zero means DefaultRedisTimeout.
	Timeout time.Duration
	// What names the store's user in logs.
	What   string
	Logger *slog.Logger
}

// NewRedis returns the store and pings Redis once (within a second); an
// unreachable Redis is not an error, it is tried again later.
func NewRedis(ctx context.Context, s RedisSettings) *Redis {
	r := &Redis{rdb: s.Client, prefix: s.Prefix, perKey: s.PerKey.orDefault(DefaultPerKey),
		timeout: s.Timeout, what: s.What, log: s.Logger}
	if r.timeout <= 0 {
		r.timeout = DefaultRedisTimeout
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	err := r.rdb.Ping(pctx).Err()
	cancel()
	if err != nil {
		r.nextProbe.Store(time.Now().Add(ProbeInterval).UnixNano())
		r.log.Warn("Redis unreachable at start-up: "+r.what+" are per replica until it answers", "err", err)
	} else {
		r.up.Store(true)
		r.log.Info(r.what + " shared through Redis")
	}
	return r
}

// Client is the Redis client, for the store's own commands on Key(slot).
func (r *Redis) Client() *redis.Client { return r.rdb }

// Key is the Redis key of slot.
func (r *Redis) Key(slot string) string { return r.prefix + slot }

// Call gives one Redis call its own short deadline: a client that hangs up
// does not make Redis look down.
func (r *Redis) Call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
}

// Use says whether to ask Redis now: while it is up, and while it is down
// once per ProbeInterval (one caller wins the compare-and-swap).
func (r *Redis) Use() bool {
	if r == nil {
		return false
	}
	if r.up.Load() {
		return true
	}
	now := time.Now().UnixNano()
	next := r.nextProbe.Load()
	return now >= next && r.nextProbe.CompareAndSwap(next, now+int64(ProbeInterval))
}

// Up reports whether the last call reached Redis.
func (r *Redis) Up() bool { return r.up.Load() }

// Noted records whether a Redis call succeeded, logging only the changes,
// and reports whether it did.
func (r *Redis) Noted(err error) bool {
	if err != nil {
		r.nextProbe.Store(time.Now().Add(ProbeInterval).UnixNano())
		if r.up.CompareAndSwap(true, false) {
			r.log.Warn("Redis unreachable: "+r.what+" are per replica until it is back", "err", err)
		}
		return false
	}
	if r.up.CompareAndSwap(false, true) {
		r.log.Info("Redis reachable again: " + r.what + " are shared")
	}
	return true
}

// Get returns the value of slot; found is false when it holds nothing.
func (r *Redis) Get(ctx context.Context, slot string) (val []byte, found bool, err error) {
	cctx, cancel := r.Call(ctx)
	defer cancel()
	val, err = r.rdb.Get(cctx, r.Key(slot)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	return val, err == nil, err
}

// putScript stores ARGV[1] at KEYS[1] for ARGV[2] ms, if KEYS[1] holds
// ARGV[6] or nothing (ARGV[5] = "1"), and accounts for it in the owner's
// index KEYS[2] (member: the key, score: its expiry) and sizes KEYS[3]
// (its size: value, key and ARGV[7] of overhead). Entries past their
// expiry leave the accounts first; then, while the owner holds more than
// ARGV[3] entries or ARGV[4] bytes, its oldest
// entries are deleted. Returns 1 when stored, 0 when the key held
// something else.
var putScript = redis.NewScript(`
if ARGV[5] == '1' then
  local v = redis.call('GET', KEYS[1])
  if v ~= false and v ~= ARGV[6] then return 0 end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
local size = string.len(ARGV[1]) + string.len(KEYS[1]) + tonumber(ARGV[7])
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, m in ipairs(gone) do
  local s = redis.call('HGET', KEYS[3], m)
  if s then
    redis.call('HINCRBY', KEYS[3], '#', -tonumber(s))
    redis.call('HDEL', KEYS[3], m)
  end
end
if #gone > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now) end
local old = redis.call('HGET', KEYS[3], KEYS[1])
if old then redis.call('HINCRBY', KEYS[3], '#', -tonumber(old)) end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], size)
local total = redis.call('HINCRBY', KEYS[3], '#', size)
while redis.call('ZCARD', KEYS[2]) > tonumber(ARGV[3]) or total > tonumber(ARGV[4]) do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  redis.call('ZREM', KEYS[2], oldest)
  local s = redis.call('HGET', KEYS[3], oldest)
  redis.call('HDEL', KEYS[3], oldest)
  total = redis.call('HINCRBY', KEYS[3], '#', -tonumber(s or '0'))
  redis.call('DEL', oldest)
end
local last = string.format('%d', tonumber(redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')[2]))
redis.call('PEXPIREAT', KEYS[2], last)
redis.call('PEXPIREAT', KEYS[3], last)
return 1`)

// Put stores val in the owner's slot for ttl and evicts the owner's oldest
// entries past its Limits. With ifHolds set, it stores only if the slot
// holds *ifHolds or nothing (a claim being replaced by its answer). It
// reports false, storing nothing, for a value too large (Limits.Fits) or
// a slot holding something else.
func (r *Redis) Put(ctx context.Context, owner, slot string, val []byte, ttl time.Duration, ifHolds *string) (bool, error) {
	if !r.perKey.Fits(Size(r.Key(slot), val)) {
		return false, nil
	}
	cond, holds := "0", ""
	if ifHolds != nil {
		cond, holds = "1", *ifHolds
	}
	cctx, cancel := r.Call(ctx)
	defer cancel()
	n, err := putScript.Run(cctx, r.rdb,
		[]string{r.Key(slot), r.ownerKey(owner, "idx"), r.ownerKey(owner, "sizes")},
		val, ttl.Milliseconds(), r.perKey.Entries, r.perKey.Bytes, cond, holds, entryOverhead).Int()
	return n == 1, err
}

// Usage reports what the owner holds in Redis by its accounts: entries and
// counted bytes (entries past their expiry included until the next Put).
func (r *Redis) Usage(ctx context.Context, owner string) (entries int, bytes int64, err error) {
	cctx, cancel := r.Call(ctx)
	defer cancel()
	n, err := r.rdb.ZCard(cctx, r.ownerKey(owner, "idx")).Result()
	if err != nil {
		return 0, 0, err
	}
	b, err := r.rdb.HGet(cctx, r.ownerKey(owner, "sizes"), "#").Int64()
	if errors.Is(err, redis.Nil) {
		err = nil
	}
	return int(n), b, err
}

func (r *Redis) ownerKey(owner, what string) string {
	return r.prefix + "owner:" + owner + ":" + what
}
