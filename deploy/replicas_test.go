package deploy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/shared/proctest"
	"github.com/judgeworks/shared/redistest"
)

// Limits of the replicas test: low enough that a flood through the proxy
// passes them several times over on a busy machine, far enough apart that
// the token flood is held by its tokens and every other client by its
// requests.
const (
	replicaCount = 3
	replicaRPM   = 600
	replicaTPM   = 30000
)

// The floods send a fixed multiple of what the limits admit rather than as
// fast as they can: twice what three separate buckets would admit is
// enough to tell them from one shared bucket, and a machine kept lighter
// makes a Redis call that misses its 50 ms deadline (and a replica that
// then decides alone for a second) rarer.
const (
	floodPerSecond = 6 * replicaRPM / 60 // small requests
	// Large requests, about 2,100 tokens each, below the request rate so
	// that only the token bucket refuses them.
	tokenFloodPerSecond = 9
	// Enough workers that the pacer, not the answers' latency on a busy
	// machine, sets the pace: 16 keep 60 requests a second up to 266 ms
	// an answer.
	floodWorkers = 16
)

// replicaBurst is the judges' request burst in the replicas tests: small
// beside the flood, so that the bound the shared bucket gives is tight.
const replicaBurst = 10

// bucketShape is one of a key's buckets (docs/judge.md, "Limits").
type bucketShape struct{ burst, perMinute float64 }

var (
	requestBucket = bucketShape{burst: min(replicaBurst, replicaRPM), perMinute: replicaRPM}
	// A whole minute's budget is the token burst.
	tokenBucket = bucketShape{burst: replicaTPM, perMinute: replicaTPM}
)

// allows is the most one bucket admits over d, from full.
func (b bucketShape) allows(d time.Duration) float64 {
	return b.burst + b.perMinute/60*d.Seconds()
}

// Keys of the replicas test, one per client so that no phase draws from
// another's buckets.
var replicaKeys = []string{"flood-requests", "flood-tokens", "compliant", "outage", "recovered", "probe"}

// TestReplicasShareLimits runs three judge replicas with one REDIS_URL
// behind the real Caddy (deploy/Caddyfile, JUDGE_UPSTREAM naming all
// three) and checks what docs/judge.md promises of shared limits:
//
//   - a request flood and a token flood through the proxy, spread over the
//     replicas, are each admitted at most burst + rate × elapsed for their
//     key (elapsed from before the first request to after the last answer),
//     where three independent buckets would admit about three times that;
//   - a compliant client at 95 % of the rate, running at the same time, is
//     never refused;
//   - with Redis stopped mid-flood every answer is a 200 or a 429, answers
//     go on, and each replica's /metrics shows judge_ratelimit_redis_up 0
//     and counts its fallback decisions;
//   - with Redis started again on the same port every replica is back on it
//     within a bounded wait and a new flood is held to the shared bound.
//
// A replica whose Redis call misses its 50 ms deadline (a starved machine)
// decides alone for a second. What it admits then comes from its own
// bucket: at most one request (or one request's tokens) per fallback
// decision, and at most that bucket's burst + rate × elapsed. The bounds add
// exactly that for each replica whose fallback counter moved, and the run
// logs the count; on a quiet machine it is zero and the bound is the shared
// one.
func TestReplicasShareLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server, three judges and Caddy; about 20 s of load")
	}
	rs := redistest.New(t)
	env := []string{"JUDGE_API_KEYS=" + strings.Join(replicaKeys, ","), "REDIS_URL=" + rs.URL(),
		"JUDGE_RATE_LIMIT_RPM=" + strconv.Itoa(replicaRPM), "JUDGE_RATE_LIMIT_BURST=" + strconv.Itoa(replicaBurst), "JUDGE_RATE_LIMIT_TPM=" + strconv.Itoa(replicaTPM)}
	var judges, hosts []string
	for i := range replicaCount {
		url := startReplica(t, fmt.Sprintf("judge-%d", i+1), env)
		judges, hosts = append(judges, url), append(hosts, strings.TrimPrefix(url, "http://"))
	}
	// The Caddyfile reads JUDGE_UPSTREAM before parsing, so a list separated
	// by spaces becomes three upstreams (random choice, Caddy's default).
	proxy, _ := startCaddy(t, judges[0], "JUDGE_UPSTREAM="+strings.Join(hosts, " "))
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	endpoint := proxy + "/v1/systemone"

	small := noulRequest("local/lexical-latest")
	large := noulRequest("local/lexical-latest")
	large["state"] = strings.Repeat("Order 4417 arrived two weeks late, the box was crushed and the blender inside does not start. ", 100)
	// The token flood tests the token bucket only if its budget holds a
	// handful of these requests and the request bucket lets far more pass.
	sizeCall := askJudgeWith(c, endpoint, "probe", large)
	size := inputTokens(sizeCall.body)
	if sizeCall.status != http.StatusOK || size == 0 {
		t.Fatalf("sizing request: %d %s", sizeCall.status, sizeCall.body)
	}
	if n := replicaTPM / size; n < 5 || n > 40 {
		t.Fatalf("the large request counts %d input tokens: the token burst of %d holds %d of them, want 5 to 40", size, replicaTPM, n)
	}

	t.Run("floods and a compliant client", func(t *testing.T) {
		const d = 8 * time.Second
		before := scrapeAll(t, c, judges)
		var (
			wg                      sync.WaitGroup
			reqFlood, tokFlood, pol clientResult
		)
		wg.Go(func() {
			reqFlood = drive(c, endpoint, "flood-requests", small, floodWorkers, d, &pacer{interval: time.Second / floodPerSecond})
		})
		wg.Go(func() {
			tokFlood = drive(c, endpoint, "flood-tokens", large, floodWorkers, d, &pacer{interval: time.Second / tokenFloodPerSecond})
		})
		p := &pacer{interval: time.Minute / (replicaRPM * 95 / 100)}
		wg.Go(func() { pol = drive(c, endpoint, "compliant", small, 4, d, p) })
		wg.Wait()
		after := scrapeAll(t, c, judges)
		checkSpread(t, before, after)

		checkFlood(t, "request flood", reqFlood)
		checkShared(t, "request flood", float64(reqFlood.statuses[http.StatusOK]), float64(reqFlood.sent()), 1,
			requestBucket, reqFlood.elapsed, before, after)
		checkFlood(t, "token flood", tokFlood)
		checkShared(t, "token flood (input tokens)", float64(tokFlood.tokens), float64(tokFlood.sent()*size), float64(size),
			tokenBucket, tokFlood.elapsed, before, after)

		sent := pol.sent()
		if pol.statuses[http.StatusOK] != sent || pol.errs > 0 {
			t.Errorf("compliant client: statuses %v, %d transport errors (first: %v), want every one of its %d requests answered 200",
				pol.statuses, pol.errs, pol.firstErr, sent)
		}
		if most := int(d/p.interval) + 1; sent > most {
			t.Errorf("compliant client sent %d requests in %v, more than the %d of 95 %% of the rate: the pacer is broken", sent, d, most)
		}
		if float64(sent) <= requestBucket.burst {
			t.Errorf("compliant client sent only %d requests, not past the burst of %.0f: nothing was tested", sent, requestBucket.burst)
		}
		t.Logf("replicas: compliant client %d requests in %v at %.1f/s (limit %.1f/s), statuses %v",
			sent, d, float64(sent)/d.Seconds(), replicaRPM/60.0, pol.statuses)
	})

	t.Run("Redis stopped and started again", func(t *testing.T) {
		before := scrapeAll(t, c, judges)
		stopped := make(chan time.Time, 1)
		go func() {
			time.Sleep(1500 * time.Millisecond)
			rs.Stop()
			stopped <- time.Now()
		}()
		out := drive(c, endpoint, "outage", small, floodWorkers, 5*time.Second, &pacer{interval: time.Second / floodPerSecond})
		stopAt := <-stopped
		checkFlood(t, "flood across the outage", out)
		// Before the stop the key drew on Redis; after it, on each
		// replica's own bucket, which starts full.
		bound := (1 + replicaCount) * requestBucket.allows(out.elapsed)
		if got := float64(out.statuses[http.StatusOK]); got > bound {
			t.Errorf("flood across the outage admitted %.0f in %v, more than Redis before the stop and each replica alone after it allow (%.1f)", got, out.elapsed, bound)
		}
		late := out.okAfter(stopAt)
		if late == 0 {
			t.Errorf("no request was admitted after Redis stopped (statuses %v): the replicas stopped answering", out.statuses)
		}
		t.Logf("replicas: flood across the outage %d admitted of %d in %.3f s, %d of them after Redis stopped; at most %.1f (Redis before the stop, each replica alone after it)",
			out.statuses[http.StatusOK], out.sent(), out.elapsed.Seconds(), late, bound)

		// One decision on every replica after the stop, so each has
		// noticed whatever the proxy's choices were.
		for i, j := range judges {
			if r := askJudgeWith(c, j+"/v1/systemone", "probe", small); r.err != nil || (r.status != http.StatusOK && r.status != http.StatusTooManyRequests) {
				t.Errorf("judge-%d with Redis stopped: %d %v %s", i+1, r.status, r.err, r.body)
			}
		}
		down := scrapeAll(t, c, judges)
		for i, m := range down {
			if !m.hasRedisUp || m.redisUp != 0 {
				t.Errorf("judge-%d with Redis stopped: judge_ratelimit_redis_up %v (exported: %v), want 0", i+1, m.redisUp, m.hasRedisUp)
			}
			if m.fallbacks <= before[i].fallbacks {
				t.Errorf("judge-%d with Redis stopped: judge_ratelimit_fallback_decisions_total %v, was %v: fallback decisions not counted", i+1, m.fallbacks, before[i].fallbacks)
			}
		}

		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := rs.Start(ctx); err != nil {
			t.Fatal(err)
		}
		restarted := time.Now()
		// A replica probes Redis at most once a second, on a request: keep
		// sending one to each until all say they are back.
		up := make([]bool, len(judges))
		for deadline := restarted.Add(15 * time.Second); ; {
			for i, j := range judges {
				if up[i] {
					continue
				}
				if r := askJudgeWith(c, j+"/v1/systemone", "probe", small); r.err != nil || (r.status != http.StatusOK && r.status != http.StatusTooManyRequests) {
					t.Errorf("judge-%d with Redis starting again: %d %v %s", i+1, r.status, r.err, r.body)
				}
				up[i] = scrape(t, c, j).redisUp == 1
			}
			if slices.Contains(up, false) && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			break
		}
		if slices.Contains(up, false) {
			t.Fatalf("15 s after Redis was started again, replicas back on it: %v", up)
		}
		t.Logf("replicas: every replica back on Redis %.2f s after it was started again", time.Since(restarted).Seconds())

		before = scrapeAll(t, c, judges)
		back := drive(c, endpoint, "recovered", small, floodWorkers, 4*time.Second, &pacer{interval: time.Second / floodPerSecond})
		after := scrapeAll(t, c, judges)
		checkSpread(t, before, after)
		checkFlood(t, "flood after Redis came back", back)
		checkShared(t, "flood after Redis came back", float64(back.statuses[http.StatusOK]), float64(back.sent()), 1,
			requestBucket, back.elapsed, before, after)
	})
}

// startReplica starts one judge built from source with env, named for the
// logs of a failed run, and returns its base URL.
func startReplica(t *testing.T, name string, env []string) string {
	t.Helper()
	port, err := proctest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	env = append(proctest.BaseEnv(work), append([]string{fmt.Sprintf("JUDGE_ADDR=127.0.0.1:%d", port)}, env...)...)
	proctest.Run(t, proctest.Cmd{Name: name, Path: proctest.Build(t, judgePkg), Dir: work, Env: env}, url+"/healthz")
	return url
}

// clientResult is what one client got: statuses, transport errors, the input
// tokens of its admitted requests, when each admitted answer arrived, and
// the time from before its first request to after its last answer.
type clientResult struct {
	statuses map[int]int
	errs     int
	firstErr error
	tokens   int
	okDone   []time.Time
	elapsed  time.Duration
}

func (r clientResult) sent() int {
	n := r.errs
	for _, k := range r.statuses {
		n += k
	}
	return n
}

// okAfter counts the admitted requests answered after at.
func (r clientResult) okAfter(at time.Time) int {
	n := 0
	for _, d := range r.okDone {
		if d.After(at) {
			n++
		}
	}
	return n
}

// drive sends body with key from workers for d: each as fast as answers
// come, or, given a pacer, spaced by it.
func drive(c *http.Client, url, key string, body any, workers int, d time.Duration, p *pacer) clientResult {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		r   = clientResult{statuses: map[int]int{}}
		end time.Time
	)
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				if p != nil && !p.wait(ctx) {
					return
				}
				call := askJudgeWith(c, url, key, body)
				mu.Lock()
				if call.done.After(end) {
					end = call.done
				}
				if call.err != nil {
					if r.errs++; r.firstErr == nil {
						r.firstErr = call.err
					}
				} else {
					r.statuses[call.status]++
				}
				if call.status == http.StatusOK {
					r.tokens += inputTokens(call.body)
					r.okDone = append(r.okDone, call.done)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	r.elapsed = end.Sub(start)
	return r
}

// checkFlood asserts what every flood must show: only 200 and 429, no
// transport error, something admitted and something refused.
func checkFlood(t *testing.T, name string, r clientResult) {
	t.Helper()
	if r.errs > 0 || len(r.statuses) > 2 || r.statuses[http.StatusOK]+r.statuses[http.StatusTooManyRequests] != r.sent() {
		t.Errorf("%s: statuses %v and %d transport errors (first: %v), want only 200 and 429", name, r.statuses, r.errs, r.firstErr)
	}
	if r.statuses[http.StatusOK] == 0 {
		t.Errorf("%s: nothing admitted (statuses %v)", name, r.statuses)
	}
	if r.statuses[http.StatusTooManyRequests] == 0 {
		t.Errorf("%s: never refused in %d requests: the flood did not reach the limit, nothing was tested", name, r.sent())
	}
}

// checkShared asserts that a flood through the proxy was admitted no more
// than one bucket of shape b allows over elapsed, plus what replicas that
// decided alone in between could add (see TestReplicasShareLimits), and
// that it offered more than separate buckets on every replica would have
// admitted, so that the bound tells shared limits from separate ones.
// admitted and offered are in the bucket's unit; perDecision is the most
// one decision can admit.
func checkShared(t *testing.T, name string, admitted, offered, perDecision float64, b bucketShape, elapsed time.Duration, before, after []replicaMetrics) {
	t.Helper()
	one := b.allows(elapsed)
	bound, fallbacks := one, 0.0
	for i := range after {
		f := after[i].fallbacks - before[i].fallbacks
		fallbacks += f
		bound += min(f*perDecision, one)
	}
	separate := replicaCount * one
	if admitted > bound {
		t.Errorf("%s admitted %.0f in %.3f s through %d replicas, more than burst + rate × elapsed = %.1f (%.0f fallback decisions allowed for): the replicas do not share the bucket",
			name, admitted, elapsed.Seconds(), replicaCount, bound, fallbacks)
	}
	if offered <= separate {
		t.Errorf("%s offered %.0f, not more than the %.1f that separate buckets on %d replicas admit: it cannot tell them from a shared one", name, offered, separate, replicaCount)
	}
	t.Logf("replicas: %s %.0f admitted of %.0f offered in %.3f s; one shared bucket allows %.1f, %d separate ones %.1f; %.0f fallback decisions, bound %.1f (%.0f %% of it)",
		name, admitted, offered, elapsed.Seconds(), one, replicaCount, separate, fallbacks, bound, 100*admitted/bound)
}

// inputTokens reads usage.input_tokens of a System One answer (0 if none).
func inputTokens(body []byte) int {
	var a struct {
		Usage struct {
			InputTokens int `json:"input_tokens"`
		} `json:"usage"`
	}
	_ = json.Unmarshal(body, &a)
	return a.Usage.InputTokens
}

// replicaMetrics is what the test reads of one replica's /metrics.
type replicaMetrics struct {
	requests   float64 // judge_http_requests_total on /v1/systemone, every status
	redisUp    float64
	hasRedisUp bool
	fallbacks  float64
}

func scrapeAll(t *testing.T, c *http.Client, judges []string) []replicaMetrics {
	t.Helper()
	out := make([]replicaMetrics, len(judges))
	for i, j := range judges {
		out[i] = scrape(t, c, j)
	}
	return out
}

// scrape reads base's /metrics (the replica's own port: the proxy does not
// serve it).
func scrape(t *testing.T, c *http.Client, base string) replicaMetrics {
	t.Helper()
	resp, err := c.Get(base + "/metrics")
	if err != nil {
		t.Fatalf("metrics of %s: %v", base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("metrics of %s: %s", base, resp.Status)
	}
	var m replicaMetrics
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 4<<20))
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(name, `judge_http_requests_total{`) && strings.Contains(name, `route="/v1/systemone"`):
			m.requests += v
		case name == "judge_ratelimit_redis_up":
			m.redisUp, m.hasRedisUp = v, true
		case name == "judge_ratelimit_fallback_decisions_total":
			m.fallbacks = v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("metrics of %s: %v", base, err)
	}
	return m
}

// checkSpread asserts that the proxy spread the requests between two
// scrapes over every replica, and logs the spread.
func checkSpread(t *testing.T, before, after []replicaMetrics) {
	t.Helper()
	total := 0.0
	shares := make([]float64, len(after))
	for i := range after {
		shares[i] = after[i].requests - before[i].requests
		total += shares[i]
	}
	for i, n := range shares {
		// Random choice gives each of three about a third; a tenth is far
		// below what chance allows over hundreds of requests.
		if n < total/10 || n == 0 {
			t.Errorf("judge-%d served %.0f of %.0f requests: the proxy does not spread them (%v)", i+1, n, total, shares)
		}
	}
	t.Logf("replicas: requests per replica %v", shares)
}
