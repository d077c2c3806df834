//go:build unix

package chatadapter

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/judgeworks/shared/systemone"
)

// universalReply answers any question of the benchmark requests: its top
// logprobs hold the labels of noul, choice and score questions at once.
var universalReply = func() []byte {
	type lp struct {
		Token   string  `json:"token"`
		Logprob float64 `json:"logprob"`
		Bytes   []byte  `json:"bytes"`
	}
	var tops []lp
	for i, tok := range []string{"yes", "A", "2", "no", "B", "1", "C", "3", "D", "0", "4"} {
		tops = append(tops, lp{tok, math.Log(0.3 / float64(i+1)), []byte(tok)})
	}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-bench", "object": "chat.completion", "created": 1, "model": "bench-model-2025",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "length",
			"message":  map[string]any{"role": "assistant", "content": "yes"},
			"logprobs": map[string]any{"content": []any{map[string]any{"token": "yes", "logprob": tops[0].Logprob, "bytes": []byte("yes"), "top_logprobs": tops}}}}},
		"usage": map[string]any{"prompt_tokens": 120, "completion_tokens": 1, "total_tokens": 121},
	})
	return b
}()

func benchHandler(delay time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if delay > 0 {
			time.Sleep(delay)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(universalReply)
	})
}

// TestFakeUpstreamProcess is not a test: BenchmarkAdapterUpstream runs the
// test binary again with CHATADAPTER_FAKE_UPSTREAM=1 to get a fake provider
// in its own process, so the benchmark's CPU figures are the adapter's
// alone. It serves until its stdin closes.
func TestFakeUpstreamProcess(t *testing.T) {
	if os.Getenv("CHATADAPTER_FAKE_UPSTREAM") != "1" {
		t.Skip("helper process for BenchmarkAdapterUpstream")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ADDR http://%s/v1\n", ln.Addr())
	go func() { _ = http.Serve(ln, benchHandler(100*time.Millisecond)) }()
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// benchRequest has n questions cycling through the three types.
func benchRequest(n int) systemone.Request {
	qs := make(map[string]systemone.Question, n)
	for i := range n {
		var q systemone.Question
		switch i % 3 {
		case 0:
			q = noulQ("Is the customer asking for a refund?")
		case 1:
			q = choiceQ("billing", "technical", "sales", "other")
		default:
			q = scoreQ("calm", "mildly annoyed", "annoyed", "angry", "furious")
		}
		qs[fmt.Sprintf("q%03d", i)] = q
	}
	return systemone.Request{Model: "llm-latest", Questions: qs,
		State: raw(`{"ticket": {"subject": "Invoice wrong", "body": "I was charged twice for March and nobody answers my emails. Fix it today or I cancel.", "customer": {"plan": "pro", "since": "2021-04-02"}}}`)}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAdapterUpstream measures, against a provider in another process
// that answers every call after 100 ms, the wall time of 1-, 10- and
// 100-question requests as a multiple of 100 ms, and the adapter's own CPU
// time per question (process CPU time over all questions). It needs
// JUDGE_UPSTREAM_BENCH=1; deploy/bench.d/judge-upstream.sh sets it.
func BenchmarkAdapterUpstream(b *testing.B) {
	if os.Getenv("JUDGE_UPSTREAM_BENCH") != "1" {
		b.Skip("set JUDGE_UPSTREAM_BENCH=1 (deploy/bench.d/judge-upstream.sh) to run against a 100 ms upstream")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFakeUpstreamProcess$")
	cmd.Env = append(os.Environ(), "CHATADAPTER_FAKE_UPSTREAM=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	var url string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "ADDR "); ok {
			url = u
			break
		}
	}
	if url == "" {
		b.Fatal("fake upstream did not start")
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()

	a, err := New(WithProvider(url, "bench-key", "bench-model"), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 10, 100} {
		req := benchRequest(n)
		b.Run(fmt.Sprintf("questions=%d", n), func(b *testing.B) {
			// One untimed request opens the connections.
			if _, err := a.Ask(context.Background(), req); err != nil {
				b.Fatal(err)
			}
			cpu0 := cpuTime()
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if _, err := a.Ask(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
			wall := time.Since(start)
			b.StopTimer()
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(wall)/float64(b.N)/float64(100*time.Millisecond), "x100ms")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*n), "cpu-µs/question")
		})
	}
}

// BenchmarkAdapterInstant is the adapter's cost per 10-question request
// against an in-process provider that answers at once; it includes the
// fake provider's own CPU, so it is an upper bound for regressions, not
// the adapter's CPU (BenchmarkAdapterUpstream gives that).
func BenchmarkAdapterInstant(b *testing.B) {
	srv := httptest.NewServer(benchHandler(0))
	defer srv.Close()
	a, err := New(WithProvider(srv.URL+"/v1", "bench-key", "bench-model"), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	req := benchRequest(10)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := a.Ask(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlannedInputTokens is the judge's token charge for a
// 10-question request: every call's prompt built without its state and
// counted (the state block once), as the API does before any call.
func BenchmarkPlannedInputTokens(b *testing.B) {
	a, err := New(WithProvider("http://127.0.0.1:1/v1", "bench-key", "bench-model"), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	req := benchRequest(10)
	a.PlannedInputTokens(req)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		a.PlannedInputTokens(req)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10), "ns/question")
}
