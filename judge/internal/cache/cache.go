// Package cache is the judge's exact answer cache (JUDGE_CACHE_TTL, off by
// default): a request that asks the same model exactly what an earlier one
// asked, within the TTL, gets the earlier answer without a model call.
//
// "The same" is decided on the request as validation left it: the model's
// exact name (never the alias the caller wrote, so moving an alias moves
// to other entries), the state and the questions in their order, each
// choice's options in canonical order (the order every engine shows them
// in, so it does not change the answer), all as compact JSON. Entries
// belong to the API key that stored them and are never read by another,
// unless the operator shares one cache between every key
// (JUDGE_CACHE_SHARED). They are bounded per key by the rule the
// Idempotency-Key answers follow (judge/internal/perkey), and kept in a
// store (judge/internal/store): in process, or in Redis for every replica
// when REDIS_URL is set (in process while Redis cannot be reached).
package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/limits"
	"github.com/judgeworks/judge/internal/perkey"
	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/memory"
	"github.com/judgeworks/shared/systemone"
)

// Header names the response header that says what the cache did: Hit,
// Miss or Bypass. It is absent while the cache is off.
const Header = "Judge-Cache"

// What the cache did for one request.
const (
	Hit    = "hit"    // answered from the cache, no model call
	Miss   = "miss"   // nothing stored: the model answered, and the answer is stored
	Bypass = "bypass" // Cache-Control: no-cache: the model answered, and the answer is stored
)

// SharedOwner owns every entry of a shared cache.
const SharedOwner = "shared"

// Settings say how long answers are kept, for whom and where.
type Settings struct {
	// TTL is how long an answer is reused; zero or less turns the cache off.
	TTL time.Duration
	// Shared lets every API key read every other key's answers.
	Shared bool
	// Store holds the entries; nil keeps them in this process.
	Store store.Answers
	// PerKey bounds one API key's entries (the one owner's when Shared);
	// Total bounds all of them where one process keeps them. Zero fields
	// mean perkey's defaults.
	PerKey, Total perkey.Limits
}

// space is where the entries live in a store: in Redis, under the prefix
// and "cache:".
const space = "cache:"

// Cache holds answers. A nil *Cache is a cache that is off.
type Cache struct {
	ttl    time.Duration
	shared bool
	st     store.Answers
	sp     store.Space
}

// New returns the cache for s, or nil when s.TTL turns it off.
func New(_ context.Context, s Settings) *Cache {
	if s.TTL <= 0 {
		return nil
	}
	if s.Store == nil {
		s.Store = memory.New()
	}
	return &Cache{ttl: s.TTL, shared: s.Shared, st: s.Store, sp: store.Space{Name: space, PerOwner: s.PerKey, Total: s.Total}}
}

// NoCache reports whether a request's headers ask for a fresh answer:
// Cache-Control with the no-cache directive.
func NoCache(h http.Header) bool {
	for _, v := range h.Values("Cache-Control") {
		for d := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(d), "no-cache") {
				return true
			}
		}
	}
	return false
}

// Entry is one request's place in the cache. A nil *Entry (the cache is
// off) does nothing.
type Entry struct {
	c       *Cache
	owner   string
	slot    string
	outcome string
}

// Lookup finds the answer stored for req, asked of the model named model
// by key, unless fresh is set (Cache-Control: no-cache). The answer, when
// there is one, reports no usage: it cost nothing upstream. The entry says
// what happened and stores the answer of a miss.
//
// Entries count against the key's id, as its buckets and budget do, but
// are found by its scope (auth.BearerKey.Scope): a secret given a revoked
// key's id reaches none of the old secret's answers.
func (c *Cache) Lookup(ctx context.Context, key auth.BearerKey, model string, req limits.Checked, fresh bool) (*Entry, *systemone.Response) {
	if c == nil {
		return nil, nil
	}
	e := &Entry{c: c, owner: key.ID, outcome: Miss}
	scope := key.Scope()
	if c.shared {
		e.owner, scope = SharedOwner, SharedOwner
	}
	e.slot = Slot(scope, model, req.Request)
	if fresh {
		e.outcome = Bypass
		return e, nil
	}
	raw, found, err := c.st.Get(ctx, c.sp, e.slot)
	if err != nil || !found {
		return e, nil
	}
	var resp systemone.Response
	if err := json.Unmarshal(raw, &resp); err != nil {
		return e, nil
	}
	// Stored for a request that may have listed the options in another
	// order: the canonical request is the same.
	req.Arrange(&resp)
	resp.Usage = systemone.Usage{}
	e.outcome = Hit
	return e, &resp
}

// Mark says on h what the cache did (Header).
func (e *Entry) Mark(h http.Header) {
	if e != nil {
		h.Set(Header, e.outcome)
	}
}

// Store keeps resp, the model's answer to a miss or a bypass, for the TTL.
func (e *Entry) Store(ctx context.Context, resp *systemone.Response) {
	if e == nil || e.outcome == Hit {
		return
	}
	raw, err := resp.MarshalJSON()
	if err != nil {
		return
	}
	_, _ = e.c.st.Put(ctx, e.c.sp, e.owner, e.slot, raw, e.c.ttl, nil)
}

// Slot names the entry of req asked of model by scope (a key's scope, or
// SharedOwner): the SHA-256 of all three, the request in its canonical
// form (see the package comment).
func Slot(scope, model string, req systemone.Request) string {
	canon := systemone.Request{Model: model, State: req.State, Order: req.QuestionNames(),
		Questions: make(map[string]systemone.Question, len(req.Questions))}
	for name, q := range req.Questions {
		canon.Questions[name] = q.Canonical()
	}
	raw, _ := canon.MarshalJSON() // the request passed validation: it marshals
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil {
		compact.Reset()
		compact.Write(raw)
	}
	h := sha256.New()
	h.Write([]byte("judge answer cache v1\x00" + scope + "\x00"))
	h.Write(compact.Bytes())
	return hex.EncodeToString(h.Sum(nil))
}
