// Package redis is the store driver that keeps per-key state in a Redis
// or Valkey every judge replica shares (REDIS_URL; judge/internal/store).
// Its keys, after the prefix (JUDGE_REDIS_PREFIX):
//
//	spent:<key>:<period>         nano-dollars spent (a number)
//	usage:<key>:<period>         a hash of "<model>|<count>" → number, the
//	                             counts named as in store.CountFields
//	<space><slot>                an answer or a claim, with its expiry
//	<space>owner:<owner>:idx     the owner's answers: a sorted set of their
//	                             keys by expiry, so the first is the oldest
//	                             stored
//	<space>owner:<owner>:sizes   their sizes, and under "#" their sum
//
// and each bucket at "rate:" + prefix + its name (the key redis_rate
// gives it). Spending and usage live a little past their period; a bucket
// expires once it is full again; answers, claims and an owner's index
// with their own expiry.
//
// Each call has a deadline of its own (Options.Timeout), not the caller's:
// a client that hangs up does not make Redis look down, and a write is
// not cut in half.
package redis

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/go-redis/redis_rate/v10"
	goredis "github.com/redis/go-redis/v9"
)

// Default deadlines of one call. A bucket decision that takes longer is
// worth less than the process's own decision now (store.Fallback); an
// answer of a few megabytes must fit in the other on a local network.
const (
	BucketTimeout  = 50 * time.Millisecond
	DefaultTimeout = 250 * time.Millisecond
)

// Options say where in Redis the store lives and how long a call may take.
type Options struct {
	// Prefix starts every key, to keep several deployments apart on one
	// Redis.
	Prefix string
	// Timeout bounds each call; zero means BucketTimeout for a bucket and
	// DefaultTimeout for anything else.
	Timeout time.Duration
}

// Store is per-key state in Redis. It is safe for concurrent use.
type Store struct {
	rdb                    *goredis.Client
	rate                   *redis_rate.Limiter
	prefix                 string
	timeout, bucketTimeout time.Duration
}

// New returns a store on a client of its own for opts (ParseURL's), which
// Close closes.
func New(opts *goredis.Options, o Options) *Store {
	rdb := goredis.NewClient(opts)
	r := &Store{rdb: rdb, rate: redis_rate.NewLimiter(rdb), prefix: o.Prefix,
		timeout: DefaultTimeout, bucketTimeout: BucketTimeout}
	if o.Timeout > 0 {
		r.timeout, r.bucketTimeout = o.Timeout, o.Timeout
	}
	return r
}

// Open is New for a redis:// or rediss:// URL, read by ParseURL.
func Open(url string, o Options) (*Store, error) {
	opts, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	return New(opts, o), nil
}

// ParseURL reads a redis:// or rediss:// URL (REDIS_URL) into client
// options fit for decisions on the request path: every call's deadline
// comes from its context, and neither a command nor a dial is retried,
// because a replica decides on its own at once and tries Redis again on
// its own schedule (store.ProbeInterval). The error never quotes the URL,
// which may hold a password.
func ParseURL(s string) (*goredis.Options, error) {
	opts, err := goredis.ParseURL(s)
	if err != nil {
		return nil, errors.New("want redis://[user:password@]host:port[/db] or rediss://…")
	}
	opts.ContextTimeoutEnabled = true
	opts.MaxRetries = -1
	opts.DialerRetries = 1
	return opts, nil
}

// Ping asks Redis whether it answers.
func (r *Store) Ping(ctx context.Context) error { return r.rdb.Ping(ctx).Err() }

// Close closes the store's client.
func (r *Store) Close() error { return r.rdb.Close() }

// call bounds one call by d and lets it finish when the caller's context
// ends.
func call(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

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

// Persistence asks Redis how it persists (CONFIG GET appendonly and save).
// An error means it could not be told: Redis unreachable, or CONFIG
// disabled or renamed, as managed Redis services often have it.
func (r *Store) Persistence(ctx context.Context) (Persistence, error) {
	appendOnly, err := r.rdb.ConfigGet(ctx, "appendonly").Result()
	if err != nil {
		return 0, err
	}
	save, err := r.rdb.ConfigGet(ctx, "save").Result()
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
