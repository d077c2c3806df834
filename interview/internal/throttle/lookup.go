package throttle

import (
	"context"
	"time"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/shared/server"
)

// DefaultLookupRule bounds the share links a client network may open that
// do not exist: 30, then one every 2 seconds. A link's 256 random bits
// make guessing hopeless anyway; the rule keeps a script from turning the
// lookup into free database work.
var DefaultLookupRule = Rule{Burst: 30, Every: 2 * time.Second}

// Lookups limits the lookups of share links that find nothing, per client
// network (an address, or its IPv6 /64). A lookup takes a token before the
// database is searched and gives it back when the link exists, so opening
// real links costs nothing. Safe for concurrent use; replicas on one
// database share the buckets.
type Lookups struct {
	misses *limiter
	pruned pruneSchedule
}

// NewLookups returns the limiter keeping its state in buckets.
func NewLookups(buckets interview.Buckets, rule Rule) *Lookups {
	return &Lookups{misses: newLimiter(buckets, "share_lookup_address", rule)}
}

// Begin reserves a lookup from addr (the client's address). Call found
// with whether the link existed: a hit returns the token. A refused lookup
// is a rate_limited error carrying the wait.
func (l *Lookups) Begin(ctx context.Context, addr string) (found func(bool), err error) {
	l.maybePrune(ctx)
	key := Network(addr)
	ok, wait, err := l.misses.allow(ctx, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, tooMany("too many links that do not exist were opened from your network", wait)
	}
	return func(hit bool) {
		if !hit {
			return
		}
		ctx, cancel := detached(ctx)
		defer cancel()
		if err := l.misses.refund(ctx, key); err != nil {
			server.LoggerFrom(ctx).Warn("throttle refund failed", "rule", l.misses.bucket.Name, "err", err)
		}
	}, nil
}

// maybePrune deletes refilled buckets, at most once per pruneEvery in this
// process.
func (l *Lookups) maybePrune(ctx context.Context) {
	if !l.pruned.due() {
		return
	}
	ctx, cancel := detached(ctx)
	defer cancel()
	if err := l.misses.prune(ctx); err != nil {
		server.LoggerFrom(ctx).Warn("throttle prune failed", "rule", l.misses.bucket.Name, "err", err)
	}
}
