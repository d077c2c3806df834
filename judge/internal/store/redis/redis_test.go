package redis

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/perkey"
	"github.com/judgeworks/judge/internal/store"
	"github.com/judgeworks/judge/internal/store/storetest"
	"github.com/judgeworks/shared/redistest"
)

var bg = context.Background()

// open is a store on srv under prefix, with a deadline generous enough
// for a busy machine.
func open(t testing.TB, srv *redistest.Server, prefix string) *Store {
	t.Helper()
	r, err := Open(srv.URL(), Options{Prefix: prefix, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRedis(t *testing.T) {
	srv := redistest.New(t)
	n := 0
	storetest.Run(t, func(t *testing.T) store.Store {
		// One server, a prefix per law: the laws do not see each other.
		n++
		return open(t, srv, fmt.Sprintf("law%d:", n))
	})
}

// The keys are named as docs/operations.md lists them, so a Redis written
// by an earlier judge keeps its meaning, and each lives as long as it
// should.
func TestKeyNames(t *testing.T) {
	srv := redistest.New(t)
	r := open(t, srv, "p:")
	at := store.Periods{Day: "2026-11-26", Month: "2026-11"}
	if _, _, err := r.Reserve(bg, "k", at, 5, store.Amounts{Day: -1, Month: -1}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddUse(bg, "k", at, "m", store.Counts{Requests: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Take(bg, "requests:0123abcd", store.Rate{PerMinute: 60, Burst: 60}, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Put(bg, store.Space{Name: "idem:"}, "o", "s1", []byte("answer"), time.Hour, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Claim(bg, store.Space{Name: "cache:"}, "s2", []byte("claim"), time.Minute); err != nil {
		t.Fatal(err)
	}
	ttls := map[string][2]time.Duration{
		"p:spent:k:2026-11-26":     {48 * time.Hour, 49 * time.Hour},
		"p:spent:k:2026-11":        {32 * 24 * time.Hour, 33 * 24 * time.Hour},
		"p:usage:k:2026-11-26":     {48 * time.Hour, 49 * time.Hour},
		"p:usage:k:2026-11":        {32 * 24 * time.Hour, 33 * 24 * time.Hour},
		"rate:p:requests:0123abcd": {0, time.Second},
		"p:idem:s1":                {59 * time.Minute, time.Hour},
		"p:idem:owner:o:idx":       {59 * time.Minute, time.Hour},
		"p:idem:owner:o:sizes":     {59 * time.Minute, time.Hour},
		"p:cache:s2":               {59 * time.Second, time.Minute},
	}
	keys := r.rdb.Keys(bg, "*").Val()
	slices.Sort(keys)
	var want []string
	for k := range ttls {
		want = append(want, k)
	}
	slices.Sort(want)
	if !slices.Equal(keys, want) {
		t.Errorf("keys in Redis:\n%q\nwant\n%q", keys, want)
	}
	for k, bounds := range ttls {
		if ttl := r.rdb.PTTL(bg, k).Val(); ttl <= bounds[0] || ttl > bounds[1] {
			t.Errorf("%s lives %v more, want (%v, %v]", k, ttl, bounds[0], bounds[1])
		}
	}
}

// held counts what Redis really holds under an owner's index, and the
// bytes those entries count: the accounts must match it.
func held(t *testing.T, r *Store, sp store.Space, owner string) (n int, size int64) {
	t.Helper()
	for _, key := range r.rdb.ZRange(bg, r.ownerKey(sp, owner, "idx"), 0, -1).Val() {
		v, err := r.rdb.Get(bg, key).Bytes()
		if err != nil {
			continue // expired, not yet swept
		}
		n++
		size += perkey.Size(strings.TrimPrefix(key, r.prefix+sp.Name), v)
	}
	return n, size
}

// An owner storing far past its bound evicts only its own oldest answers,
// and its accounts say what Redis really holds.
func TestAccountsMatchWhatRedisHolds(t *testing.T) {
	srv := redistest.New(t)
	r := open(t, srv, "t:")
	sp := store.Space{Name: "a:", PerOwner: perkey.Limits{Entries: 5, Bytes: 64 << 10}}
	val := bytes.Repeat([]byte("v"), 10<<10)
	for i := range 50 {
		if ok, err := r.Put(bg, sp, "flood", fmt.Sprint("f", i), val, time.Hour, nil); !ok || err != nil {
			t.Fatalf("Put %d: %v %v", i, ok, err)
		}
	}
	n, size, err := r.Held(bg, sp, "flood")
	if err != nil {
		t.Fatal(err)
	}
	if realN, realSize := held(t, r, sp, "flood"); n != realN || size != realSize || n != 5 {
		t.Errorf("accounts say %d entries, %d bytes; Redis holds %d, %d; want 5", n, size, realN, realSize)
	}
	if keys := r.rdb.Keys(bg, "t:a:f*").Val(); len(keys) != 5 {
		t.Errorf("Redis holds %d of the owner's answers, want 5", len(keys))
	}
}

// On a Redis run as docs/operations.md requires (maxmemory-policy
// noeviction, maxmemory above the keys' bounds), one owner storing answers
// far past its bound neither evicts another's answers nor the buckets, and
// leaves Redis room to keep deciding limits and storing other owners'
// answers.
func TestAnswersAndBucketsApart(t *testing.T) {
	srv := redistest.New(t)
	r := open(t, srv, "t:")
	base := infoInt(t, r.rdb.Info(bg, "memory").Val(), "used_memory")
	// Room for three owners' answers above what Redis uses empty.
	if err := r.rdb.ConfigSet(bg, "maxmemory", strconv.FormatInt(base+4<<20, 10)).Err(); err != nil {
		t.Fatal(err)
	}
	if err := r.rdb.ConfigSet(bg, "maxmemory-policy", "noeviction").Err(); err != nil {
		t.Fatal(err)
	}
	sp := store.Space{Name: "idem:", PerOwner: perkey.Limits{Entries: 1000, Bytes: 1 << 20}}
	tokens := store.Rate{PerMinute: 600, Burst: 600} // 10 a second
	if got, err := r.Take(bg, "tokens:victim", tokens, 300); err != nil || !got.Allowed {
		t.Fatalf("the victim's take: %+v %v", got, err)
	}
	if ok, err := r.Put(bg, sp, "victim", "v", []byte("kept"), time.Hour, nil); !ok || err != nil {
		t.Fatalf("the victim's answer: %v %v", ok, err)
	}
	big := bytes.Repeat([]byte("<"), 100<<10)
	for i := range 100 { // 10 MiB, more than Redis may hold
		if _, err := r.Put(bg, sp, "flood", fmt.Sprint(i), big, time.Hour, nil); err != nil {
			t.Fatalf("flood %d: %v", i, err)
		}
	}
	if v, found, err := r.Get(bg, sp, "v"); !found || err != nil || string(v) != "kept" {
		t.Errorf("the other owner's answer after the flood: %q %v %v", v, found, err)
	}
	if _, b, err := r.Held(bg, sp, "flood"); err != nil || b > sp.PerOwner.Bytes {
		t.Errorf("the flooding owner holds %d bytes (%v), over its bound of %d", b, err, sp.PerOwner.Bytes)
	}
	// A bucket evicted meanwhile would start full again and keep 400 after
	// this take; kept, it holds about 100 and what refilled since.
	if got, err := r.Take(bg, "tokens:victim", tokens, 200); err != nil || !got.Allowed || got.Remaining >= 300 {
		t.Errorf("the bucket after the flood: %+v %v; want it kept and decided in Redis", got, err)
	}
	if ok, err := r.Put(bg, sp, "victim", "v2", []byte("new"), time.Hour, nil); !ok || err != nil {
		t.Errorf("another owner's new answer after the flood: %v %v", ok, err)
	}
}

func infoInt(t *testing.T, info, field string) int64 {
	t.Helper()
	for line := range strings.SplitSeq(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in INFO", field)
	return 0
}

// Persistence tells a Redis that keeps nothing from one with snapshots or
// an append-only file, and says when it cannot tell.
func TestPersistence(t *testing.T) {
	srv := redistest.New(t) // started with --save "" --appendonly no
	r := open(t, srv, "")
	for _, tc := range []struct {
		set  map[string]string
		want Persistence
	}{
		{nil, PersistsNothing},
		{map[string]string{"save": "3600 1"}, PersistsSnapshots},
		{map[string]string{"appendonly": "yes"}, PersistsEveryWrite},
		{map[string]string{"save": "", "appendonly": "yes"}, PersistsEveryWrite},
	} {
		for k, v := range tc.set {
			if err := r.rdb.ConfigSet(bg, k, v).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := r.Persistence(bg); err != nil || got != tc.want {
			t.Errorf("after CONFIG SET %v: %v %v, want %v", tc.set, got, err, tc.want)
		}
	}
	down, err := Open("redis://127.0.0.1:1/0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	if _, err := down.Persistence(bg); err == nil {
		t.Error("an unreachable Redis: no error")
	}
}

func TestParseURL(t *testing.T) {
	o, err := ParseURL("rediss://user:hunter2@127.0.0.1:6380/3")
	if err != nil {
		t.Fatal(err)
	}
	if o.Addr != "127.0.0.1:6380" || o.Username != "user" || o.Password != "hunter2" || o.DB != 3 || o.TLSConfig == nil {
		t.Errorf("options: %+v", o)
	}
	if !o.ContextTimeoutEnabled || o.MaxRetries != -1 || o.DialerRetries != 1 {
		t.Errorf("deadlines from the context %v, retries %d, dial attempts %d: want true, -1, 1",
			o.ContextTimeoutEnabled, o.MaxRetries, o.DialerRetries)
	}
	for _, bad := range []string{"http://user:hunter2@host", "redis://user:hunter2@host:port", "redis://:hunter2@h/x/y"} {
		_, err := ParseURL(bad)
		if err == nil {
			t.Errorf("%q accepted", bad)
		} else if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error quotes the password: %v", err)
		}
	}
}
