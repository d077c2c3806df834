// Command judgeload drives a judge on this machine with System One requests
// and prints requests/s and p50/p99 latency. It is bounded by a request
// count and a duration, and refuses any target that is not a loopback
// address, so it cannot be pointed at someone else's server by mistake.
//
//	judgeload -url http://127.0.0.1:8081 -key dev-key -questions 10 -requests 2000 -duration 20s
package main

import (
	"bufio"
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
	"strings"
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
	if u.Scheme != "http" {
		return fmt.Errorf("-url %q: only plain http is spoken", o.url)
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
	endpoint := strings.TrimSuffix(u.EscapedPath(), "/") + "/v1/systemone"
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", endpoint, u.Host, o.key, len(body))
	target := target{addr: hostPort(u), message: append([]byte(head), body...)}

	// One warm-up request checks the setup and loads lazy state (the
	// tokenizer) before timing starts.
	warm := &worker{target: target}
	if _, err := warm.once(time.Now().Add(requestTimeout)); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	warm.close()

	deadline := time.Now().Add(o.duration)
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
			w := &worker{target: target}
			defer w.close()
			var mine []time.Duration
			for time.Now().Before(deadline) && next.Add(1) <= int64(o.requests) {
				d, err := w.once(deadline)
				if err != nil {
					if !time.Now().Before(deadline) {
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

// requestTimeout bounds one request, from writing it to reading its answer.
const requestTimeout = 30 * time.Second

// target is where every request goes and the request itself, written once
// as it goes on the wire: the generator's own work per request is then one
// write and reading the answer, so that as much of the machine as possible
// is left to the judge it measures.
type target struct {
	addr    string
	message []byte
}

// worker sends requests one after another on its own keep-alive connection,
// opening a new one when the judge closes it or a request fails.
type worker struct {
	target
	conn net.Conn
	in   *bufio.Reader
}

// once sends one request and returns its latency; anything but 200 is an
// error. The request is cut off at deadline or after requestTimeout.
func (w *worker) once(deadline time.Time) (time.Duration, error) {
	start := time.Now()
	if w.conn == nil {
		c, err := net.DialTimeout("tcp", w.addr, requestTimeout)
		if err != nil {
			return 0, err
		}
		w.conn, w.in = c, bufio.NewReaderSize(c, 16<<10)
	}
	if err := w.conn.SetDeadline(earliest(deadline, start.Add(requestTimeout))); err != nil {
		w.close()
		return 0, err
	}
	resp, err := w.exchange()
	if err != nil {
		w.close()
		return 0, err
	}
	d := time.Since(start)
	if resp.Close {
		w.close()
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d: %.200s", resp.StatusCode, resp.body)
	}
	return d, nil
}

type answer struct {
	StatusCode int
	Close      bool
	body       []byte
}

// exchange writes the request and reads the whole answer, so that the
// connection is ready for the next one. Only the start of a body is kept,
// for an error message.
func (w *worker) exchange() (answer, error) {
	if _, err := w.conn.Write(w.message); err != nil {
		return answer{}, err
	}
	resp, err := http.ReadResponse(w.in, nil)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	a := answer{StatusCode: resp.StatusCode, Close: resp.Close}
	if resp.StatusCode != http.StatusOK {
		a.body, _ = io.ReadAll(io.LimitReader(resp.Body, 200))
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return answer{}, err
	}
	return a, nil
}

func (w *worker) close() {
	if w.conn != nil {
		w.conn.Close()
		w.conn, w.in = nil, nil
	}
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// hostPort is the URL's host with its scheme's port when it names none.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "80")
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
