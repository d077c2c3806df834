package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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

// TestSendsSystemOneRequests drives a local server with the generator's own
// connections and checks every request arrives whole, as a System One
// client would send it, over kept-alive connections.
func TestSendsSystemOneRequests(t *testing.T) {
	var seen, conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model     string                     `json:"model"`
			State     string                     `json:"state"`
			Questions map[string]json.RawMessage `json:"questions"`
		}
		err := json.NewDecoder(r.Body).Decode(&body)
		if r.Method != http.MethodPost || r.URL.Path != "/v1/systemone" || r.Header.Get("Authorization") != "Bearer k1" ||
			r.Header.Get("Content-Type") != "application/json" || err != nil || body.Model != "m1" || len(body.Questions) != 3 || body.State == "" {
			t.Errorf("bad request: %s %s %v %v %+v", r.Method, r.URL, r.Header, err, body)
		}
		seen.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"answers":{}}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	err := run(options{url: srv.URL, key: "k1", model: "m1", questions: 3, requests: 50, concurrency: 2, duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if n := seen.Load(); n < 50 || n > 51 { // 50 and the warm-up
		t.Errorf("server saw %d requests, want 50 and one warm-up", n)
	}
	if n := conns.Load(); n > 3 {
		t.Errorf("%d connections for 2 workers and a warm-up: not kept alive", n)
	}
}

// TestRefusals shows that an answer other than 200 fails the run with the
// server's words, and that a closed connection is opened again.
func TestRefusals(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such key", http.StatusUnauthorized)
	}))
	defer srv.Close()
	err := run(options{url: srv.URL, key: "k", model: "m", questions: 1, requests: 5, concurrency: 1, duration: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "status 401: no such key") {
		t.Errorf("run = %v, want the 401 with its body", err)
	}

	closing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.Write([]byte(`{}`))
	}))
	defer closing.Close()
	if err := run(options{url: closing.URL, key: "k", model: "m", questions: 1, requests: 5, concurrency: 2, duration: time.Minute}); err != nil {
		t.Errorf("a server closing each connection: %v", err)
	}
}
