package redis

import (
	"context"
	"errors"
	"time"

	"github.com/judgeworks/judge/internal/perkey"
	"github.com/judgeworks/judge/internal/store"
	goredis "github.com/redis/go-redis/v9"
)

// slot is the key of slot in sp.
func (r *Store) slot(sp store.Space, slot string) string { return r.prefix + sp.Name + slot }

// ownerKey is the key of owner's index (what "idx") or sizes ("sizes") in
// sp.
func (r *Store) ownerKey(sp store.Space, owner, what string) string {
	return r.prefix + sp.Name + "owner:" + owner + ":" + what
}

func (r *Store) Get(ctx context.Context, sp store.Space, slot string) ([]byte, bool, error) {
	ctx, cancel := call(ctx, r.timeout)
	defer cancel()
	val, err := r.rdb.Get(ctx, r.slot(sp, slot)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, false, nil
	}
	return val, err == nil, err
}

// putScript stores ARGV[1] at KEYS[1] for ARGV[2] ms, if KEYS[1] holds
// ARGV[6] or nothing (ARGV[5] = "1"), and accounts for it in the owner's
// index KEYS[2] (member: the key, score: its expiry) and sizes KEYS[3]
// (its size, ARGV[7]). Entries past their expiry leave the accounts
// first; then, while the owner holds more than ARGV[3] entries or ARGV[4]
// bytes, its oldest entries are deleted. Returns 1 when stored, 0 when the
// key held something else.
var putScript = goredis.NewScript(`
if ARGV[5] == '1' then
  local v = redis.call('GET', KEYS[1])
  if v ~= false and v ~= ARGV[6] then return 0 end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
local size = tonumber(ARGV[7])
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

// Put stores and evicts in one script, so replicas storing for one owner
// at once never miss a byte. Redis itself must never evict
// (maxmemory-policy noeviction, docs/operations.md): the buckets share it,
// and an eviction there would hand a key a fresh burst.
func (r *Store) Put(ctx context.Context, sp store.Space, owner, slot string, val []byte, ttl time.Duration, ifHolds []byte) (bool, error) {
	perOwner, _ := sp.Bounds()
	size := perkey.Size(slot, val)
	if !perOwner.Fits(size) {
		return false, nil
	}
	cond := "0"
	if ifHolds != nil {
		cond = "1"
	}
	ctx, cancel := call(ctx, r.timeout)
	defer cancel()
	n, err := putScript.Run(ctx, r.rdb,
		[]string{r.slot(sp, slot), r.ownerKey(sp, owner, "idx"), r.ownerKey(sp, owner, "sizes")},
		val, ttl.Milliseconds(), perOwner.Entries, perOwner.Bytes, cond, ifHolds, size).Int()
	return n == 1, err
}

// claimScript sets KEYS[1] to ARGV[1] for ARGV[2] ms if it holds nothing,
// and answers false; else it answers what KEYS[1] holds.
var claimScript = goredis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`)

func (r *Store) Claim(ctx context.Context, sp store.Space, slot string, claim []byte, ttl time.Duration) ([]byte, bool, error) {
	ctx, cancel := call(ctx, r.timeout)
	defer cancel()
	held, err := claimScript.Run(ctx, r.rdb, []string{r.slot(sp, slot)}, claim, ttl.Milliseconds()).Text()
	if errors.Is(err, goredis.Nil) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return []byte(held), false, nil
}

// releaseScript deletes KEYS[1] if it holds ARGV[1].
var releaseScript = goredis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

func (r *Store) Release(ctx context.Context, sp store.Space, slot string, claim []byte) error {
	ctx, cancel := call(ctx, r.timeout)
	defer cancel()
	return releaseScript.Run(ctx, r.rdb, []string{r.slot(sp, slot)}, claim).Err()
}

// Held reads the owner's accounts: answers past their expiry count until
// the owner's next Put sweeps them out.
func (r *Store) Held(ctx context.Context, sp store.Space, owner string) (int, int64, error) {
	ctx, cancel := call(ctx, r.timeout)
	defer cancel()
	n, err := r.rdb.ZCard(ctx, r.ownerKey(sp, owner, "idx")).Result()
	if err != nil {
		return 0, 0, err
	}
	b, err := r.rdb.HGet(ctx, r.ownerKey(sp, owner, "sizes"), "#").Int64()
	if errors.Is(err, goredis.Nil) {
		err = nil
	}
	return int(n), b, err
}
