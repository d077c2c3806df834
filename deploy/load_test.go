package deploy

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// pacer spaces sends at least interval apart across workers and never
// catches up on missed slots: a client that fell behind (a slow answer, a
// busy machine) does not then burst to make up for it.
type pacer struct {
	mu       sync.Mutex
	next     time.Time
	interval time.Duration
}

func (p *pacer) wait(ctx context.Context) bool {
	p.mu.Lock()
	now := time.Now()
	slot := p.next
	if slot.Before(now) {
		slot = now
	}
	p.next = slot.Add(p.interval)
	p.mu.Unlock()
	select {
	case <-ctx.Done():
		return false
	case <-time.After(time.Until(slot)):
		return true
	}
}

// TestRateLimitUnderLoad runs two clients of the judge at once, each with
// its own key at the default 1,200 requests/minute and a burst of 10
// (JUDGE_RATE_LIMIT_BURST; the default burst is the whole minute, which
// a 30 s compliant client would never get past; see docs/judge.md). It asserts only what must hold however busy the machine
// is: the compliant client, eight workers sending 95 % of the limit, is
// never refused; the flood, eight workers as fast as they can, is never
// admitted more than burst + rate × elapsed, elapsed measured from before
// its first request to after its last, and is refused once it has used
// that up. How close the flood comes to the bound is a figure, not a test:
// the run logs it, and make bench prints it (deploy/bench.d/judge-ratelimit-flood.sh).
func TestRateLimitUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load: about 30 s against the judge")
	}
	const (
		rpm       = 1200
		burst     = 10
		workers   = 8
		compliant = 30 * time.Second
		flood     = 8 * time.Second
	)
	j := startJudge(t, "JUDGE_API_KEYS=compliant-key,flood-key", "JUDGE_RATE_LIMIT_BURST="+strconv.Itoa(burst))
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 2 * workers}}
	body := noulRequest("local/lexical-latest")
	post := func(key string) int {
		st, err := postJSON(c, j.url+"/v1/systemone", key, body)
		if err != nil {
			t.Errorf("%s: %v", key, err)
		}
		return st
	}

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		statuses = map[string]map[int]int{"compliant-key": {}, "flood-key": {}}
		// Before the flood's first request is sent, after its last answer.
		floodStart, floodEnd time.Time
	)
	p := &pacer{interval: time.Minute / (rpm * 95 / 100)}
	ctxC, cancelC := context.WithTimeout(context.Background(), compliant)
	defer cancelC()
	ctxF, cancelF := context.WithTimeout(context.Background(), flood)
	defer cancelF()
	floodStart = time.Now()
	for range workers {
		wg.Go(func() {
			for p.wait(ctxC) {
				st := post("compliant-key")
				mu.Lock()
				statuses["compliant-key"][st]++
				mu.Unlock()
			}
		})
		wg.Go(func() {
			for ctxF.Err() == nil {
				st := post("flood-key")
				end := time.Now()
				mu.Lock()
				statuses["flood-key"][st]++
				if end.After(floodEnd) {
					floodEnd = end
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	comp, fl := statuses["compliant-key"], statuses["flood-key"]
	sent := 0
	for _, n := range comp {
		sent += n
	}
	if comp[http.StatusOK] != sent {
		t.Errorf("compliant client: %v, want every one of its %d requests answered 200", comp, sent)
	}
	// The pacer never sends faster than 95 % of the limit; a busy machine
	// can only make it send fewer. Past the burst, the limit is what lets
	// them through.
	if most := int(compliant/p.interval) + 1; sent > most {
		t.Errorf("compliant client sent %d requests in %v, more than the %d of 95 %% of the limit: the pacer is broken", sent, compliant, most)
	}
	if sent <= burst {
		t.Errorf("compliant client sent only %d requests, not past the burst of %d: nothing was tested", sent, burst)
	}
	elapsed := floodEnd.Sub(floodStart)
	bound := burst + float64(rpm)/60*elapsed.Seconds()
	admitted, refused := fl[http.StatusOK], fl[http.StatusTooManyRequests]
	if float64(admitted) > bound {
		t.Errorf("flood admitted %d in %v, more than burst + rate × elapsed = %.1f", admitted, elapsed, bound)
	}
	// A fresh bucket admits its burst whatever the timing; every refusal
	// is a 429.
	if admitted < min(burst, admitted+refused) || len(fl) > 2 {
		t.Errorf("flood statuses %v, want at least the burst of %d admitted and nothing but 200 and 429", fl, burst)
	}
	t.Logf("rate limit: compliant %d requests in %v at %.1f/s, statuses %v; flood %d admitted of %d in %.3f s, bound burst + rate × elapsed = %.1f (%.1f %% of it)",
		sent, compliant, float64(sent)/compliant.Seconds(), comp, admitted, admitted+refused, elapsed.Seconds(), bound, 100*float64(admitted)/bound)
}

// postJSON posts body with a bearer key and drains the answer.
func postJSON(c *http.Client, url, key string, body any) (int, error) {
	resp := askJudgeWith(c, url, key, body)
	return resp.status, resp.err
}
