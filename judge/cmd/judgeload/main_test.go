package main

import (
	"testing"
	"time"
)

func TestLoopbackOnly(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "localhost": true, "::1": true, "127.3.4.5": true,
		"10.0.0.1": false, "example.com": false, "0.0.0.0": false, "": false,
	} {
		if got := loopback(host); got != want {
			t.Errorf("loopback(%q) = %v, want %v", host, got, want)
		}
	}
	if err := run(options{url: "http://192.0.2.1:8081", questions: 1, requests: 1, concurrency: 1, duration: time.Second}); err == nil {
		t.Error("run accepted a non-loopback target")
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(d, 0.5); p != 50*time.Millisecond {
		t.Errorf("p50 = %v", p)
	}
	if p := percentile(d, 0.99); p != 99*time.Millisecond {
		t.Errorf("p99 = %v", p)
	}
	if p := percentile(d[:1], 0.99); p != time.Millisecond {
		t.Errorf("p99 of one = %v", p)
	}
}

func TestRequestSizes(t *testing.T) {
	for _, n := range []int{1, 10, 100} {
		if got := len(request("m", n)["questions"].(map[string]any)); got != n {
			t.Errorf("request(%d) has %d questions", n, got)
		}
	}
}
