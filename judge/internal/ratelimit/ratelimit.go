// Package ratelimit holds the judge's per-key limits: a bucket of requests
// and a bucket of input tokens for every configured key. With a Redis (or
// Valkey) client the buckets live in Redis and every replica shares them;
// without one, or while Redis cannot be reached, each process keeps its own.
package ratelimit

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"
)

// DefaultRedisTimeout bounds one Redis call. A rate-limit decision that
// takes longer is worth less than a per-replica decision now, so a hung
// Redis costs a request at most this much before the fallback answers.
const DefaultRedisTimeout = 50 * time.Millisecond

// ProbeInterval is how often, at most, a replica that lost Redis tries it
// again. One request per interval pays for the attempt (at most the Redis
// timeout); the others are decided in-process meanwhile.
const ProbeInterval = time.Second

// Settings say what to limit and where the buckets live.
type Settings struct {
	// RPM is each key's requests per minute.
	RPM int
	// Burst is how many requests a key may send at once, the request
	// bucket's size, at most RPM; zero means RPM: a key may spend its
	// minute as it likes, as the token bucket allows (docs/api.md, "Judge:
	// limits and headers"). A small burst refuses a plain sequential loop
	// of fast requests after that many.
	Burst int
	// TPM is each key's input tokens per minute; the burst is a whole
	// minute's budget, as OpenAI's token limits allow.
	TPM int
	// IDs are the configured keys' ids, each limited by RPM and TPM; other
	// ids are always refused.
	IDs []string
	// Keys are configured keys with limits of their own; an RPM or TPM of
	// zero is the default above.
	Keys []Key
	// Redis, when set, holds the buckets shared by every replica.
	Redis *redis.Client
	// Prefix starts every Redis key, to keep several deployments apart on
	// one Redis.
	Prefix string
	// Timeout bounds each Redis call; zero means DefaultRedisTimeout.
	Timeout time.Duration
	// Logger hears when Redis is lost and when it is back.
	Logger *slog.Logger
}

// Result is one bucket's answer.
type Result struct {
	Allowed bool
	// Limit is the bucket's rate per minute.
	Limit int
	// Remaining is what the bucket holds after this decision, whole units.
	Remaining int
	// RetryAfter, when refused, is how long until the amount asked fits.
	// It is zero for an amount that never fits (more than the burst).
	RetryAfter time.Duration
	// ResetAfter is how long until the bucket is full again.
	ResetAfter time.Duration
}

// Key is one key's limits.
type Key struct {
	ID       string
	RPM, TPM int
}

// limit is one bucket's shape.
type limit struct {
	perMinute, burst int
}

func (l limit) perSecond() float64 { return float64(l.perMinute) / 60 }

// bucket names one key's bucket of one kind.
type bucket struct {
	local    *rate.Limiter
	redisKey string
	limit    limit
}

// buckets are one key's two buckets.
type buckets struct {
	requests, tokens *bucket
}

// Limiter decides for every key. It is safe for concurrent use.
type Limiter struct {
	// keys maps each id to its buckets; SetKeys swaps the whole map.
	keys             atomic.Pointer[map[string]buckets]
	rpm, tpm, burstN int
	prefix           string
	shared           *shared
	now              func() time.Time
}

// New returns a limiter for s. With s.Redis set it pings Redis once (within
// a second) so that the first decisions already go where they should, and
// logs the outcome; an unreachable Redis is not an error.
func New(ctx context.Context, s Settings) *Limiter {
	l := &Limiter{rpm: s.RPM, tpm: s.TPM, burstN: s.Burst, prefix: s.Prefix, now: time.Now}
	keys := append([]Key(nil), s.Keys...)
	for _, id := range s.IDs {
		keys = append(keys, Key{ID: id})
	}
	l.keys.Store(&map[string]buckets{})
	l.SetKeys(keys)
	if s.Redis != nil {
		log := s.Logger
		if log == nil {
			log = slog.Default()
		}
		timeout := s.Timeout
		if timeout <= 0 {
			timeout = DefaultRedisTimeout
		}
		l.shared = &shared{limiter: redis_rate.NewLimiter(s.Redis), timeout: timeout, log: log}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		err := s.Redis.Ping(pctx).Err()
		cancel()
		if err != nil {
			l.shared.nextProbe.Store(time.Now().Add(ProbeInterval).UnixNano())
			log.Warn("Redis unreachable at start-up: rate limits are per replica until it answers", "err", err)
		} else {
			l.shared.up.Store(true)
			log.Info("rate limits shared through Redis")
		}
	}
	return l
}

func newLocal(l limit) *rate.Limiter {
	return rate.NewLimiter(rate.Limit(l.perSecond()), l.burst)
}

// limits are the shapes of k's two buckets.
func (l *Limiter) limits(k Key) (req, tok limit) {
	rpm, tpm := cmp.Or(k.RPM, l.rpm), cmp.Or(k.TPM, l.tpm)
	burst := l.burstN
	if burst <= 0 || k.RPM > 0 {
		// A key's own rate is its own burst too: the default burst was
		// chosen for the default rate.
		burst = rpm
	}
	return limit{perMinute: rpm, burst: min(burst, max(rpm, 1))}, limit{perMinute: tpm, burst: max(tpm, 1)}
}

// SetKeys makes keys the configured ones, with their limits. A key kept
// keeps its buckets' contents, reshaped to its limits if they changed, so
// reloading the keys neither refills nor empties a bucket. Buckets exist for
// configured keys only, so memory is bounded by the configuration and never
// grows with traffic; a key removed is refused from then on, and its
// buckets are reachable by no other id.
func (l *Limiter) SetKeys(keys []Key) {
	old := *l.keys.Load()
	next := make(map[string]buckets, len(keys))
	now := l.now()
	for _, k := range keys {
		req, tok := l.limits(k)
		b, ok := old[k.ID]
		if !ok {
			name := keyName(k.ID)
			next[k.ID] = buckets{
				requests: &bucket{local: newLocal(req), redisKey: l.prefix + "requests:" + name, limit: req},
				tokens:   &bucket{local: newLocal(tok), redisKey: l.prefix + "tokens:" + name, limit: tok},
			}
			continue
		}
		next[k.ID] = buckets{requests: reshape(b.requests, req, now), tokens: reshape(b.tokens, tok, now)}
	}
	l.keys.Store(&next)
}

// reshape is b with limit lim, sharing b's state.
func reshape(b *bucket, lim limit, now time.Time) *bucket {
	if b.limit == lim {
		return b
	}
	b.local.SetLimitAt(now, rate.Limit(lim.perSecond()))
	b.local.SetBurstAt(now, lim.burst)
	return &bucket{local: b.local, redisKey: b.redisKey, limit: lim}
}

// keyName stands for a key in Redis: a hash of its identity (itself a
// keyed digest of the key, auth.KeyID), so the key is not stored and every
// replica names a key alike whatever its position in the configuration.
func keyName(id string) string {
	sum := sha256.Sum256([]byte("key:" + id))
	return hex.EncodeToString(sum[:8])
}

// TokensPerMinute is id's token budget per minute, which is also the most
// one request may need; zero for an id not configured.
func (l *Limiter) TokensPerMinute(id string) int {
	if b := l.buckets(id).tokens; b != nil {
		return b.limit.perMinute
	}
	return 0
}

func (l *Limiter) buckets(id string) buckets { return (*l.keys.Load())[id] }

// TakeRequest takes one request from id's request bucket.
func (l *Limiter) TakeRequest(ctx context.Context, id string) Result {
	return l.take(ctx, l.buckets(id).requests, 1)
}

// TakeTokens takes n input tokens from id's token bucket, all or nothing.
func (l *Limiter) TakeTokens(ctx context.Context, id string, n int) Result {
	// A negative amount would fill the bucket.
	return l.take(ctx, l.buckets(id).tokens, max(n, 0))
}

// PeekRequests reports id's request bucket without taking from it.
func (l *Limiter) PeekRequests(ctx context.Context, id string) Result {
	return l.take(ctx, l.buckets(id).requests, 0)
}

// PeekTokens reports id's token bucket without taking from it.
func (l *Limiter) PeekTokens(ctx context.Context, id string) Result {
	return l.take(ctx, l.buckets(id).tokens, 0)
}

func (l *Limiter) take(ctx context.Context, b *bucket, n int) Result {
	if b == nil {
		// Only configured keys reach here; refusing is the safe answer.
		return Result{Limit: 0, RetryAfter: time.Minute}
	}
	if n > b.limit.burst {
		return Result{Limit: b.limit.perMinute}
	}
	if l.shared != nil {
		if r, ok := l.shared.take(ctx, b, n); ok {
			return r
		}
	}
	return takeLocal(b, n, l.now())
}

// takeLocal decides with the in-process bucket.
func takeLocal(b *bucket, n int, now time.Time) Result {
	perSecond := b.limit.perSecond()
	// AllowN takes the tokens only when they are all there, atomically.
	// (Reserving and then cancelling a refused reservation loses capacity
	// when other requests reserve in between: rate.Reservation.Cancel
	// restores only what later reservations have not built on.)
	ok := n == 0 || b.local.AllowN(now, n)
	// Read after the decision; a concurrent request may change the bucket
	// in between, which only makes the figures a moment stale.
	have := b.local.TokensAt(now)
	r := Result{
		Allowed:    ok,
		Limit:      b.limit.perMinute,
		Remaining:  int(math.Max(math.Floor(have), 0)),
		ResetAfter: seconds((float64(b.limit.burst) - have) / perSecond),
	}
	if !ok {
		missing := float64(n) - have
		if missing <= 0 {
			// A refill that another request took between the refusal and
			// this read: wait for the next token.
			missing = 1
		}
		r.RetryAfter = seconds(missing / perSecond)
	}
	return r
}

// seconds converts to a duration, rounded up to the nanosecond so a client
// that waits it finds the tokens there.
func seconds(s float64) time.Duration {
	if s <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(s * float64(time.Second)))
}

// ParseRedisURL reads a redis:// or rediss:// URL (REDIS_URL) into client
// options fit for decisions on the request path: every call's deadline
// comes from its context, and neither a command nor a dial is retried,
// because the limiter falls back at once and retries Redis on its own
// schedule (ProbeInterval). The error never quotes the URL, which may hold a
// password.
func ParseRedisURL(s string) (*redis.Options, error) {
	opts, err := redis.ParseURL(s)
	if err != nil {
		return nil, errors.New("want redis://[user:password@]host:port[/db] or rediss://…")
	}
	opts.ContextTimeoutEnabled = true
	opts.MaxRetries = -1
	opts.DialerRetries = 1
	return opts, nil
}

// Shared reports whether the limiter was given a Redis.
func (l *Limiter) Shared() bool { return l.shared != nil }

// RedisUp reports whether the last Redis call succeeded.
func (l *Limiter) RedisUp() bool { return l.shared != nil && l.shared.up.Load() }

// Fallbacks counts the decisions made in-process because Redis could not be
// used.
func (l *Limiter) Fallbacks() uint64 {
	if l.shared == nil {
		return 0
	}
	return l.shared.fallbacks.Load()
}

// shared decides with Redis through redis_rate (GCRA in one Lua script, so
// a decision is atomic across replicas) and tracks whether Redis answers.
type shared struct {
	limiter   *redis_rate.Limiter
	timeout   time.Duration
	log       *slog.Logger
	up        atomic.Bool
	nextProbe atomic.Int64 // unix nanoseconds; while down, the next attempt
	fallbacks atomic.Uint64
}

// take decides in Redis. ok is false when Redis was not asked (it is down
// and this is not the moment to probe) or did not answer in time; the
// caller then decides in-process.
func (s *shared) take(ctx context.Context, b *bucket, n int) (_ Result, ok bool) {
	defer func() {
		if !ok {
			s.fallbacks.Add(1)
		}
	}()
	if !s.up.Load() {
		now := time.Now().UnixNano()
		next := s.nextProbe.Load()
		// One caller per interval probes; the compare-and-swap picks it.
		if now < next || !s.nextProbe.CompareAndSwap(next, now+int64(ProbeInterval)) {
			return Result{}, false
		}
	}
	// A client that hangs up does not make Redis unreachable: the call keeps
	// its own short deadline instead of the request's cancellation.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
	defer cancel()
	lim := redis_rate.Limit{Rate: b.limit.perMinute, Burst: b.limit.burst, Period: time.Minute}
	res, err := s.limiter.AllowN(ctx, b.redisKey, lim, n)
	if err != nil {
		s.nextProbe.Store(time.Now().Add(ProbeInterval).UnixNano())
		if s.up.CompareAndSwap(true, false) {
			s.log.Warn("Redis unreachable: rate limits are per replica until it is back", "err", err)
		}
		return Result{}, false
	}
	if s.up.CompareAndSwap(false, true) {
		s.log.Info("Redis reachable again: rate limits are shared")
	}
	r := Result{
		Allowed:    n == 0 || res.Allowed > 0,
		Limit:      b.limit.perMinute,
		Remaining:  max(res.Remaining, 0),
		ResetAfter: max(res.ResetAfter, 0),
	}
	if !r.Allowed {
		r.RetryAfter = max(res.RetryAfter, time.Nanosecond)
	}
	return r, true
}
