package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sttProvider speaks the transcription endpoint's wire format, reading each
// upload as it arrives and keeping none of it.
func sttProvider(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var received atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mr, err := r.MultipartReader()
		if err != nil || r.URL.Path != "/v1/audio/transcriptions" {
			http.Error(w, "want a multipart upload to /v1/audio/transcriptions", http.StatusBadRequest)
			return
		}
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			n, _ := io.Copy(io.Discard, p)
			if p.FormName() == "file" {
				received.Add(n)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"text":"an answer"}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &received
}

// peakRSS reads the process's resident-set high-water mark, in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the service's memory: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// zeroes is an endless run of filler bytes.
type zeroes struct{}

func (zeroes) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestConcurrentUploadsStayUnder200MB runs the built service and has forty
// accounts each upload a 25 MiB recording at the same moment. The service's
// peak resident memory stays under 200 MB: uploads beyond the in-flight
// limits are refused before their bodies are read, and the admitted ones
// stream through temporary files.
func TestConcurrentUploadsStayUnder200MB(t *testing.T) {
	const (
		users    = 40
		fileSize = 25 << 20
		limit    = 200 << 20
	)
	provider, received := sttProvider(t)
	s := newService(t, "AUTH_THROTTLE=off", "STT_MODEL=whisper-test",
		"VOICE_BASE_URL="+provider.URL+"/v1", "VOICE_API_KEY=test-key")
	s.start()

	clients := make([]*http.Client, users)
	for i := range clients {
		jar, _ := cookiejar.New(nil)
		clients[i] = &http.Client{Jar: jar, Timeout: 3 * time.Minute}
		body, _ := json.Marshal(map[string]string{"fullName": "U", "email": fmt.Sprintf("u%d@example.com", i), "password": "a long enough password"})
		resp, err := clients[i].Post("http://"+s.addr+"/api/auth/register", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("register %d: %d", i, resp.StatusCode)
		}
	}
	before := peakRSS(t, s.proc.Pid())

	head := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.webm\"\r\nContent-Type: audio/webm\r\n\r\n\x1a\x45\xdf\xa3"
	tail := "\r\n--b--\r\n"
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		statuses = map[int]int{}
		cut      int
	)
	start := make(chan struct{})
	for _, c := range clients {
		wg.Go(func() {
			body := io.MultiReader(strings.NewReader(head), io.LimitReader(zeroes{}, fileSize-4), strings.NewReader(tail))
			req, _ := http.NewRequest(http.MethodPost, "http://"+s.addr+"/api/voice/transcribe", body)
			req.ContentLength = int64(len(head)) + fileSize - 4 + int64(len(tail))
			req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
			<-start
			resp, err := c.Do(req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				cut++ // a refusal may close the connection before the answer is read
				return
			}
			resp.Body.Close()
			statuses[resp.StatusCode]++
		})
	}
	close(start)
	wg.Wait()
	peak := peakRSS(t, s.proc.Pid())
	t.Logf("peak RSS %.1f MB (%.1f MB before the uploads); statuses %v, connections cut %d; provider received %d MiB",
		float64(peak)/1e6, float64(before)/1e6, statuses, cut, received.Load()>>20)

	for status := range statuses {
		if status != http.StatusOK && status != http.StatusTooManyRequests {
			t.Fatalf("status %d among %v", status, statuses)
		}
	}
	if statuses[http.StatusOK] == 0 || received.Load() < int64(statuses[http.StatusOK])*fileSize {
		t.Fatalf("%d transcriptions, %d bytes at the provider: the uploads did not go through", statuses[http.StatusOK], received.Load())
	}
	if peak > limit {
		t.Fatalf("peak RSS %d MB during %d concurrent uploads of 25 MiB, over %d MB", peak>>20, users, limit>>20)
	}
}
