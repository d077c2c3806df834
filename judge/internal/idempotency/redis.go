package idempotency

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// remote keeps claims and answers in Redis, one key per slot: a claim is
// set with SET NX and a lifetime of runTTL; finishing replaces it with the
// answer for the store's TTL. Both the replacement and a release check that
// the key still holds this request's own claim, in one script, so a request
// whose claim expired can never remove or overwrite another's.
type remote struct {
	rdb     *redis.Client
	prefix  string
	runTTL  time.Duration
	timeout time.Duration
}

// record is what a Redis key holds: a claim (Token set) or an answer.
type record struct {
	FP     string  `json:"fp"`
	Token  string  `json:"token,omitempty"`
	Answer *Answer `json:"answer,omitempty"`
}

func claimValue(c *Claim) string {
	b, _ := json.Marshal(record{FP: c.fp, Token: c.token})
	return string(b)
}

// call gives one Redis call its own short deadline: a client that hangs up
// does not make Redis look down.
func (r *remote) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
}

func (r *remote) begin(ctx context.Context, c *Claim) (Outcome, Answer, error) {
	key := r.prefix + c.key
	claim := claimValue(c)
	// Twice at most: a key that expires between SET NX and GET is free on
	// the second round.
	for range 2 {
		cctx, cancel := r.call(ctx)
		ok, err := r.rdb.SetNX(cctx, key, claim, r.runTTL).Result()
		if err != nil {
			cancel()
			return 0, Answer{}, err
		}
		if ok {
			cancel()
			return Started, Answer{}, nil
		}
		raw, err := r.rdb.Get(cctx, key).Bytes()
		cancel()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return 0, Answer{}, err
		}
		var rec record
		if err := json.Unmarshal(raw, &rec); err != nil {
			return 0, Answer{}, fmt.Errorf("idempotency record %s: %w", key, err)
		}
		switch {
		case rec.FP != c.fp:
			return Reused, Answer{}, nil
		case rec.Answer != nil:
			return Replay, *rec.Answer, nil
		default:
			return InUse, Answer{}, nil
		}
	}
	return InUse, Answer{}, nil
}

// finishScript stores the answer (ARGV[2], for ARGV[3] ms) if the key
// still holds this claim (ARGV[1]) or nothing at all.
var finishScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] or v == false then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`)

// releaseScript deletes the key if it still holds this claim.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

func (r *remote) finish(ctx context.Context, c *Claim, a Answer, ttl time.Duration) error {
	val, err := json.Marshal(record{FP: c.fp, Answer: &a})
	if err != nil {
		return err
	}
	cctx, cancel := r.call(ctx)
	defer cancel()
	return finishScript.Run(cctx, r.rdb, []string{r.prefix + c.key}, claimValue(c), val, ttl.Milliseconds()).Err()
}

func (r *remote) release(ctx context.Context, c *Claim) error {
	cctx, cancel := r.call(ctx)
	defer cancel()
	return releaseScript.Run(cctx, r.rdb, []string{r.prefix + c.key}, claimValue(c)).Err()
}
