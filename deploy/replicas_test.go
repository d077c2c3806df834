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
// passes them many times over on a busy machine, far enough apart that the
// token flood is held by its tokens and every other client by its requests.
const (
	replicaCount  = 3
	replicaRPM    = 600
	replicaBurst  = 10 // min(10, RPM), docs/judge.md "Limits"
	replicaTPM    = 30000
	replicaTokens = replicaTPM // token burst: a whole minute's budget
)

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
// decides alone for a second; such a replica may add its own burst + rate
// × elapsed, so each bound grows by that for every replica whose fallback
// counter moved during the flood, and the run says so. On an ordinary run
// none does and the bound is the shared one.
func TestReplicasShareLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server, three judges and Caddy; about 30 s of load")
	}
	rs := redistest.New(t)
	env := []string{"JUDGE_API_KEYS=" + strings.Join(replicaKeys, ","), "REDIS_URL=" + rs.URL(),
		"JUDGE_RATE_LIMIT_RPM=" + strconv.Itoa(replicaRPM), "JUDGE_RATE_LIMIT_TPM=" + strconv.Itoa(replicaTPM)}
	var judges, hosts []string
	for i := range replicaCount {
		url := startReplica(t, fmt.Sprintf("judge-%d", i+1), env)
		judges, hosts = append(judges, url), append(hosts, strings.TrimPrefix(url, "http://"))
	}
	// The Caddyfile reads JUDGE_UPSTREAM before parsing, so a list separated
	// by spaces becomes three upstreams (random choice, Caddy's default).
	proxy, _ := startCaddy(t, judges[0], "JUDGE_UPSTREAM="+strings.Join(hosts, " "))
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
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
	if n := replicaTokens / size; n < 5 || n > 40 {
		t.Fatalf("the large request counts %d input tokens: the token burst of %d holds %d of them, want 5 to 40", size, replicaTokens, n)
	}

	t.Run("floods and a compliant client", func(t *testing.T) {
		const d = 8 * time.Second
		before := scrapeAll(t, c, judges)
		var (
			wg                      sync.WaitGroup
			reqFlood, tokFlood, pol clientResult
		)
		wg.Go(func() { reqFlood = drive(c, endpoint, "flood-requests", small, 8, d, nil) })
		wg.Go(func() { tokFlood = drive(c, endpoint, "flood-tokens", large, 4, d, nil) })
		p := &pacer{interval: time.Minute / (replicaRPM * 95 / 100)}
		wg.Go(func() { pol = drive(c, endpoint, "compliant", small, 4, d, p) })
		wg.Wait()
		after := scrapeAll(t, c, judges)
		degraded := checkSpread(t, before, after)

		e := reqFlood.elapsed.Seconds()
		bound := float64(1+degraded) * (replicaBurst + replicaRPM/60.0*e)
		checkFlood(t, "request flood", reqFlood, bound)
		if got := float64(reqFlood.statuses[http.StatusOK]); got > bound {
			t.Errorf("request flood admitted %.0f in %.3f s through %d replicas, more than burst + rate × elapsed = %.1f: the replicas do not share the bucket",
				got, e, replicaCount, bound)
		}
		t.Logf("replicas: request flood %d admitted of %d in %.3f s, bound %.1f (%.0f %% of it); three separate buckets would allow %.1f",
			reqFlood.statuses[http.StatusOK], reqFlood.sent(), e, bound, 100*float64(reqFlood.statuses[http.StatusOK])/bound, replicaCount*(replicaBurst+replicaRPM/60.0*e))

		e = tokFlood.elapsed.Seconds()
		tbound := float64(1+degraded) * (replicaTokens + replicaTPM/60.0*e)
		checkFlood(t, "token flood", tokFlood, tbound)
		if float64(tokFlood.tokens) > tbound {
			t.Errorf("token flood admitted %d input tokens in %.3f s through %d replicas, more than burst + rate × elapsed = %.0f: the replicas do not share the bucket",
				tokFlood.tokens, e, replicaCount, tbound)
		}
		t.Logf("replicas: token flood %d input tokens admitted (%d requests of %d) in %.3f s, bound %.0f (%.0f %% of it)",
			tokFlood.tokens, tokFlood.statuses[http.StatusOK], tokFlood.sent(), e, tbound, 100*float64(tokFlood.tokens)/tbound)

		sent := pol.sent()
		if pol.statuses[http.StatusOK] != sent || pol.errs > 0 {
			t.Errorf("compliant client: statuses %v, %d transport errors (first: %v), want every one of its %d requests answered 200",
				pol.statuses, pol.errs, pol.firstErr, sent)
		}
		if most := int(d/p.interval) + 1; sent > most {
			t.Errorf("compliant client sent %d requests in %v, more than the %d of 95 %% of the rate: the pacer is broken", sent, d, most)
		}
		if sent <= replicaBurst {
			t.Errorf("compliant client sent only %d requests, not past the burst of %d: nothing was tested", sent, replicaBurst)
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
		out := drive(c, endpoint, "outage", small, 8, 5*time.Second, nil)
		stopAt := <-stopped
		// Before the stop the key drew on Redis; after it, on each
		// replica's own bucket, which starts full.
		e := out.elapsed.Seconds()
		bound := float64(1+replicaCount) * (replicaBurst + replicaRPM/60.0*e)
		checkFlood(t, "flood across the outage", out, bound)
		after := out.okAfter(stopAt)
		if after == 0 {
			t.Errorf("no request was admitted after Redis stopped (statuses %v): the replicas stopped answering", out.statuses)
		}
		t.Logf("replicas: flood across the outage %d admitted of %d in %.3f s, %d of them after Redis stopped; at most %.1f (each replica alone plus Redis before the stop)",
			out.statuses[http.StatusOK], out.sent(), e, after, bound)

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
				askJudgeWith(c, j+"/v1/systemone", "probe", small)
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
		back := drive(c, endpoint, "recovered", small, 8, 4*time.Second, nil)
		degraded := checkSpread(t, before, scrapeAll(t, c, judges))
		e = back.elapsed.Seconds()
		bound = float64(1+degraded) * (replicaBurst + replicaRPM/60.0*e)
		checkFlood(t, "flood after Redis came back", back, bound)
		if got := float64(back.statuses[http.StatusOK]); got > bound {
			t.Errorf("flood after Redis came back admitted %.0f in %.3f s, more than burst + rate × elapsed = %.1f: the limits are not shared again", got, e, bound)
		}
		t.Logf("replicas: flood after Redis came back %d admitted of %d in %.3f s, bound %.1f",
			back.statuses[http.StatusOK], back.sent(), e, bound)
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
// transport error, at least the burst admitted, and the limit reached.
func checkFlood(t *testing.T, name string, r clientResult, bound float64) {
	t.Helper()
	if r.errs > 0 || len(r.statuses) > 2 || r.statuses[http.StatusOK]+r.statuses[http.StatusTooManyRequests] != r.sent() {
		t.Errorf("%s: statuses %v and %d transport errors (first: %v), want only 200 and 429", name, r.statuses, r.errs, r.firstErr)
	}
	if r.statuses[http.StatusOK] == 0 {
		t.Errorf("%s: nothing admitted (statuses %v)", name, r.statuses)
	}
	if r.statuses[http.StatusTooManyRequests] == 0 {
		t.Errorf("%s: never refused in %d requests (bound %.1f): the flood did not reach the limit, nothing was tested", name, r.sent(), bound)
	}
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
// scrapes over every replica, logs the spread, and returns how many
// replicas decided alone at least once in between (their fallback counter
// moved).
func checkSpread(t *testing.T, before, after []replicaMetrics) (degraded int) {
	t.Helper()
	total := 0.0
	shares := make([]float64, len(after))
	for i := range after {
		shares[i] = after[i].requests - before[i].requests
		total += shares[i]
		if after[i].fallbacks > before[i].fallbacks {
			degraded++
		}
	}
	for i, n := range shares {
		// Random choice gives each of three about a third; a tenth is far
		// below what chance allows over hundreds of requests.
		if n < total/10 || n == 0 {
			t.Errorf("judge-%d served %.0f of %.0f requests: the proxy does not spread them (%v)", i+1, n, total, shares)
		}
	}
	t.Logf("replicas: requests per replica %v; replicas that decided alone at least once: %d", shares, degraded)
	return degraded
}
