package idempotency

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/judgeworks/judge/internal/perkey"
	"github.com/redis/go-redis/v9"
)

// remote keeps claims and answers in Redis, one key per slot: a claim is
// set with SET NX and a lifetime of runTTL; finishing replaces it with the
// answer for the store's TTL, counted against the API key's bound
// (perkey.Redis.Put). Both the replacement and a release check that the
// key still holds this request's own claim, each in one script, so a
// request whose claim expired can never remove or overwrite another's.
type remote struct {
	*perkey.Redis
	runTTL time.Duration
}

func (r *remote) begin(ctx context.Context, c *Claim) (Outcome, Answer, error) {
	key := r.Key(c.key)
	claim := encodeClaim(c.fp, c.token)
	// Twice at most: a key that expires between SET NX and GET is free on
	// the second round.
	for range 2 {
		cctx, cancel := r.Call(ctx)
		ok, err := r.Client().SetNX(cctx, key, claim, r.runTTL).Result()
		if err != nil {
			cancel()
			return 0, Answer{}, err
		}
		if ok {
			cancel()
			return Started, Answer{}, nil
		}
		raw, err := r.Client().Get(cctx, key).Bytes()
		cancel()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return 0, Answer{}, err
		}
		fp, a, isAnswer, err := decode(raw)
		if err != nil {
			return 0, Answer{}, fmt.Errorf("idempotency record %s: %w", key, err)
		}
		switch {
		case fp != c.fp:
			return Reused, Answer{}, nil
		case isAnswer:
			return Replay, a, nil
		default:
			return InUse, Answer{}, nil
		}
	}
	return InUse, Answer{}, nil
}

// releaseScript deletes the key if it still holds this claim.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

// finish replaces c's claim with the answer val; stored is false when the
// answer is too large to keep or the key no longer holds the claim.
func (r *remote) finish(ctx context.Context, c *Claim, val []byte, ttl time.Duration) (stored bool, err error) {
	claim := encodeClaim(c.fp, c.token)
	return r.Put(ctx, c.owner, c.key, val, ttl, &claim)
}

func (r *remote) release(ctx context.Context, c *Claim) error {
	cctx, cancel := r.Call(ctx)
	defer cancel()
	return releaseScript.Run(cctx, r.Client(), []string{r.Key(c.key)}, encodeClaim(c.fp, c.token)).Err()
}
