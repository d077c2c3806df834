// Command judgeload drives a judge on this machine with System One requests
// and prints requests/s and p50/p99 latency. It is bounded by a request
// count and a duration, and refuses any target that is not a loopback
// address, so it cannot be pointed at someone else's server by mistake.
//
//	judgeload -url http://127.0.0.1:8081 -key dev-key -questions 10 -requests 2000 -duration 20s
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

type options struct {
	url         string
	key         string
	model       string
	questions   int
	requests    int
	duration    time.Duration
	concurrency int
}

func main() {
	var o options
	flag.StringVar(&o.url, "url", "http://127.0.0.1:8081", "judge base URL (loopback only)")
	flag.StringVar(&o.key, "key", "dev-key", "bearer key")
	flag.StringVar(&o.model, "model", "local/lexical-latest", "model to ask")
	flag.IntVar(&o.questions, "questions", 1, "questions per request")
	flag.IntVar(&o.requests, "requests", 2000, "stop after this many requests")
	flag.DurationVar(&o.duration, "duration", 20*time.Second, "stop after this long")
	flag.IntVar(&o.concurrency, "concurrency", 8, "concurrent workers")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "judgeload:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	u, err := url.Parse(o.url)
	if err != nil || u.Host == "" {
		return fmt.Errorf("-url %q is not a URL", o.url)
	}
	if !loopback(u.Hostname()) {
		return fmt.Errorf("-url %q: only loopback targets are allowed", o.url)
	}
	if o.questions < 1 || o.requests < 1 || o.concurrency < 1 || o.duration <= 0 {
		return errors.New("-questions, -requests, -concurrency and -duration must be positive")
	}
	body, err := json.Marshal(request(o.model, o.questions))
	if err != nil {
		return err
	}
	client := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: o.concurrency, MaxConnsPerHost: o.concurrency},
	}
	endpoint := u.JoinPath("v1", "systemone").String()

	// One warm-up request checks the setup and loads lazy state (the
	// tokenizer) before timing starts.
	if _, err := once(context.Background(), client, endpoint, o.key, body); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), o.duration)
	defer cancel()
	var (
		next     atomic.Int64
		failures atomic.Int64
		firstErr atomic.Value
		mu       sync.Mutex
		all      []time.Duration
		wg       sync.WaitGroup
	)
	start := time.Now()
	for range o.concurrency {
		wg.Go(func() {
			var mine []time.Duration
			for ctx.Err() == nil && next.Add(1) <= int64(o.requests) {
				d, err := once(ctx, client, endpoint, o.key, body)
				if err != nil {
					if ctx.Err() != nil {
						break // cut off by the duration bound, not a failure
					}
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				mine = append(mine, d)
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if len(all) == 0 {
		return fmt.Errorf("no request succeeded: %v", firstErr.Load())
	}
	slices.Sort(all)
	fmt.Printf("questions=%-3d requests=%-6d errors=%-3d concurrency=%d  %8.1f req/s  p50=%-9v p99=%v\n",
		o.questions, len(all), failures.Load(), o.concurrency,
		float64(len(all))/elapsed.Seconds(), percentile(all, 0.50), percentile(all, 0.99))
	if e := firstErr.Load(); e != nil {
		fmt.Printf("  first error: %v\n", e)
	}
	return nil
}

// once sends one request and returns its latency; anything but 200 is an error.
func once(ctx context.Context, client *http.Client, endpoint, key string, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d: %.200s", resp.StatusCode, b)
	}
	return d, nil
}

// percentile reads the q-quantile of sorted latencies (nearest rank),
// rounded to microseconds for reading.
func percentile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	i = min(max(i, 0), len(sorted)-1)
	return sorted[i].Round(time.Microsecond)
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// request is a support ticket with n questions cycling through the three
// types, so each size exercises every answer builder.
func request(model string, n int) map[string]any {
	qs := make(map[string]any, n)
	for i := range n {
		switch i % 3 {
		case 0:
			qs[fmt.Sprintf("refund_%d", i)] = map[string]any{"type": "noul", "instructions": "Is the customer asking for a refund?"}
		case 1:
			qs[fmt.Sprintf("team_%d", i)] = map[string]any{"type": "choice", "instructions": "Which team should handle it?",
				"criteria": map[string]any{
					"billing":   "Payments, invoices, refunds and charges",
					"technical": "Bugs, errors, crashes and login problems",
					"sales":     "Pricing questions, plans and upgrades",
				}}
		default:
			qs[fmt.Sprintf("anger_%d", i)] = map[string]any{"type": "score", "instructions": "How angry is the customer?",
				"criteria": []string{"calm", "mildly annoyed", "annoyed", "angry", "furious"}}
		}
	}
	return map[string]any{
		"model": model,
		"state": "I was charged twice for my subscription this month and I am furious. The app also crashed " +
			"twice during checkout, which is not acceptable. Please refund the second charge today and tell me " +
			"whether the login bug from last week is fixed.",
		"questions": qs,
	}
}
