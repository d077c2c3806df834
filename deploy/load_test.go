package deploy

import (
	"context"
	"net/http"
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

// TestRateLimitUnderLoad runs two clients of bin/judge at once, each with
// its own key at the default 1,200 requests/minute (burst 10, see
// docs/judge.md). The compliant one, eight workers sending 95 % of the
// limit, is never refused. The flood, eight workers as fast as they can,
// gets exactly the limit: burst + rate × elapsed, ± 1 plus the timing
// uncertainty of the first and last request.
func TestRateLimitUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load: about 30 s against bin/judge")
	}
	const (
		rpm       = 1200
		burst     = 10
		workers   = 8
		compliant = 30 * time.Second
		flood     = 8 * time.Second
	)
	j := startJudge(t, "JUDGE_API_KEYS=compliant-key,flood-key")
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 2 * workers}}
	body := noulRequest("local/lexical-latest")
	post := func(key string) (int, time.Time, time.Time) {
		start := time.Now()
		st, err := postJSON(c, j.url+"/v1/systemone", key, body)
		if err != nil {
			t.Errorf("%s: %v", key, err)
		}
		return st, start, time.Now()
	}

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		statuses = map[string]map[int]int{"compliant-key": {}, "flood-key": {}}
		// First and last flood request: start and end times.
		firstStart, firstEnd, lastStart, lastEnd time.Time
	)
	p := &pacer{interval: time.Minute / (rpm * 95 / 100)}
	ctxC, cancelC := context.WithTimeout(context.Background(), compliant)
	defer cancelC()
	ctxF, cancelF := context.WithTimeout(context.Background(), flood)
	defer cancelF()
	for range workers {
		wg.Go(func() {
			for p.wait(ctxC) {
				st, _, _ := post("compliant-key")
				mu.Lock()
				statuses["compliant-key"][st]++
				mu.Unlock()
			}
		})
		wg.Go(func() {
			for ctxF.Err() == nil {
				st, s, e := post("flood-key")
				mu.Lock()
				statuses["flood-key"][st]++
				if firstStart.IsZero() || s.Before(firstStart) {
					firstStart, firstEnd = s, e
				}
				if e.After(lastEnd) {
					lastStart, lastEnd = s, e
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
	if comp[http.StatusOK] != sent || sent == 0 {
		t.Errorf("compliant client: %v, want every one of %d requests answered 200", comp, sent)
	}
	// At 95 % of the limit for the whole run, give or take start and end.
	if want := int(compliant.Seconds() * rpm * 0.95 / 60); sent < want-workers-2 || sent > want+2 {
		t.Errorf("compliant client sent %d requests in %v, want about %d: the pacing is off", sent, compliant, want)
	}
	rate := float64(rpm) / 60
	hi := burst + rate*lastEnd.Sub(firstStart).Seconds()
	lo := burst + rate*lastStart.Sub(firstEnd).Seconds()
	got := fl[http.StatusOK]
	if float64(got) < lo-1 || float64(got) > hi+1 {
		t.Errorf("flood admitted %d, want burst + rate × elapsed = %.1f … %.1f (± 1)", got, lo, hi)
	}
	if fl[http.StatusTooManyRequests] == 0 || len(fl) != 2 {
		t.Errorf("flood statuses %v, want only 200 and 429", fl)
	}
	t.Logf("compliant: %d requests in %v at %.1f/s, statuses %v; flood: %d admitted of %d over %.3f s, expected %.1f … %.1f",
		sent, compliant, float64(sent)/compliant.Seconds(), comp, got, got+fl[http.StatusTooManyRequests],
		lastEnd.Sub(firstStart).Seconds(), lo, hi)
}

// postJSON posts body with a bearer key and drains the answer.
func postJSON(c *http.Client, url, key string, body any) (int, error) {
	resp := askJudgeWith(c, url, key, body)
	return resp.status, resp.err
}
