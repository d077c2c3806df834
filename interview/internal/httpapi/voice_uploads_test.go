package httpapi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/voice"
	"github.com/judgeworks/interview/internal/voice/voicetest"
)

const testBoundary = "b0undary"

// uploadParts are the multipart framing around one file part of size bytes
// of WebM (a real EBML signature, then filler).
func uploadParts(size int64) (head, tail string, total int64) {
	head = "--" + testBoundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.webm\"\r\nContent-Type: audio/webm\r\n\r\n" +
		string(voicetest.WebMHeader)
	tail = "\r\n--" + testBoundary + "--\r\n"
	return head, tail, int64(len(head)) + (size - int64(len(voicetest.WebMHeader))) + int64(len(tail))
}

// streamedUpload is a request whose body is generated while it is sent:
// the client holds no file either.
func streamedUpload(t testing.TB, url, user string, size int64) *http.Request {
	head, tail, total := uploadParts(size)
	body := io.MultiReader(strings.NewReader(head), io.LimitReader(fill('a'), size-int64(len(voicetest.WebMHeader))), strings.NewReader(tail))
	req, err := http.NewRequest(http.MethodPost, url+"/api/voice/transcribe", body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = total
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+testBoundary)
	req.Header.Set("X-Test-User", user)
	return req
}

// rawUpload opens a connection, sends the headers of an upload declaring
// length bytes and then only sent, and reads the answer: a server that
// answers has decided without the body.
func rawUpload(t *testing.T, addr, user string, length int64, sent string) *http.Response {
	t.Helper()
	resp, err := sendHead(t, addr, user, length, sent, time.Now().Add(20*time.Second))
	if err != nil {
		t.Fatalf("no answer while the body is withheld: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// stalledUpload sends the headers of a 1 MiB upload and its first bytes,
// then nothing, and returns the status of the answer, if any (0 when the
// connection ends without one, as at the end of the test).
func stalledUpload(t *testing.T, addr, user string) int {
	resp, err := sendHead(t, addr, user, 1<<20, string(voicetest.WebMHeader), time.Time{})
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// sendHead sends the headers of an upload declaring length bytes and then
// only sent, on a connection closed when the test ends, and reads the
// answer until deadline (zero: none).
func sendHead(t *testing.T, addr, user string, length int64, sent string, deadline time.Time) (*http.Response, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(deadline)
	fmt.Fprintf(conn, "POST /api/voice/transcribe HTTP/1.1\r\nHost: %s\r\nX-Test-User: %s\r\n"+
		"Content-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n\r\n%s", addr, user, testBoundary, length, sent)
	return http.ReadResponse(bufio.NewReader(conn), nil)
}

// heldUpload is an upload whose body is sent up to the file's first bytes
// and then held until finish is called.
type heldUpload struct {
	pw     *io.PipeWriter
	tail   string
	size   int64
	result chan int
}

func holdUpload(t *testing.T, url, user string, size int64) *heldUpload {
	t.Helper()
	head, tail, total := uploadParts(size)
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, url+"/api/voice/transcribe", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = total
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+testBoundary)
	req.Header.Set("X-Test-User", user)
	h := &heldUpload{pw: pw, tail: tail, size: size - int64(len(voicetest.WebMHeader)), result: make(chan int, 1)}
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			h.result <- 0
			return
		}
		resp.Body.Close()
		h.result <- resp.StatusCode
	}()
	go func() { _, _ = io.WriteString(pw, head) }()
	t.Cleanup(func() { pw.CloseWithError(errors.New("test over")) })
	return h
}

// finish sends the rest of the body and returns the status.
func (h *heldUpload) finish(t *testing.T) int {
	t.Helper()
	go func() {
		_, _ = io.Copy(h.pw, io.LimitReader(fill('a'), h.size))
		_, _ = io.WriteString(h.pw, h.tail)
		_ = h.pw.Close()
	}()
	select {
	case s := <-h.result:
		return s
	case <-time.After(30 * time.Second):
		t.Fatal("held upload did not finish")
		return 0
	}
}

// waitInFlight waits until n uploads hold a slot.
func waitInFlight(t *testing.T, svc *voice.Service, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := svc.Uploading()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d uploads in flight, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestUploadLimitsRefuseBeforeReading(t *testing.T) {
	f := voicetest.NewProvider(t, voicetest.OKTranscription)
	cfg := remoteConfig(f)
	cfg.MaxUploads, cfg.MaxUploadsPerUser = 3, 2
	env := newEnv(t, cfg)
	env.h.grace = 2 * time.Minute // uploads held on purpose, on a busy machine
	srv := httptest.NewServer(env.e)
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")

	ada1, ada2 := holdUpload(t, srv.URL, "ada", 100_000), holdUpload(t, srv.URL, "ada", 100_000)
	waitInFlight(t, env.svc, 2)
	resp := rawUpload(t, addr, "ada", 1<<20, "")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "5" {
		t.Fatalf("third upload of one user: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	grace := holdUpload(t, srv.URL, "grace", 100_000)
	waitInFlight(t, env.svc, 3)
	resp = rawUpload(t, addr, "alan", 1<<20, "")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "5" {
		t.Fatalf("upload over the global limit: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	for name, h := range map[string]*heldUpload{"ada 1": ada1, "ada 2": ada2, "grace": grace} {
		if s := h.finish(t); s != http.StatusOK {
			t.Fatalf("%s's held upload: status %d", name, s)
		}
	}
	waitInFlight(t, env.svc, 0)
	resp, err := http.DefaultClient.Do(streamedUpload(t, srv.URL, "alan", 100_000))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("upload once slots are free: %d", resp.StatusCode)
	}
	if n := len(f.Received()); n != 4 {
		t.Fatalf("provider got %d uploads, want the 4 admitted", n)
	}
}

// An upload that sends its first bytes and stalls loses its slot within
// seconds, not after the route's two minutes, and the user is told.
func TestStalledUploadLosesItsSlot(t *testing.T) {
	f := voicetest.NewProvider(t, voicetest.OKTranscription)
	cfg := remoteConfig(f)
	cfg.MaxUploads = 1
	env := newEnv(t, cfg)
	srv := httptest.NewServer(env.e)
	t.Cleanup(srv.Close)

	start := time.Now()
	stalled := holdUpload(t, srv.URL, "mallory", 100_000)
	waitInFlight(t, env.svc, 1)
	var status int
	select {
	case status = <-stalled.result:
	case <-time.After(UploadReadTimeout - 30*time.Second):
		t.Fatal("a stalled upload kept its slot for 90 s")
	}
	if status != http.StatusRequestTimeout && status != 0 {
		t.Fatalf("stalled upload: status %d, want 408 or a closed connection", status)
	}
	if held := time.Since(start); held < UploadGrace {
		t.Fatalf("cut after %v, before the %v grace", held, UploadGrace)
	}
	waitInFlight(t, env.svc, 0)
	resp, err := http.DefaultClient.Do(streamedUpload(t, srv.URL, "ada", 100_000))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the next user's upload: %d", resp.StatusCode)
	}
}

// Four accounts holding as many uploads as they may still leave slots to
// a fifth: none can hold more than its share.
func TestFewAccountsCannotHoldEverySlot(t *testing.T) {
	f := voicetest.NewProvider(t, voicetest.OKTranscription)
	cfg := remoteConfig(f)
	env := newEnv(t, cfg)
	env.h.grace = 2 * time.Minute // uploads held on purpose, on a busy machine
	srv := httptest.NewServer(env.e)
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")

	inFlight := env.svc.Uploading
	// Each account starts two uploads that send their first bytes and
	// stall; each is either held (a slot taken) or refused at once.
	refused := 0
	for i := range 4 {
		user := fmt.Sprintf("mallory%d", i)
		for range 2 {
			before := inFlight()
			answer := make(chan int, 1)
			go func() { answer <- stalledUpload(t, addr, user) }()
			deadline := time.Now().Add(20 * time.Second)
		wait:
			for inFlight() == before {
				select {
				case s := <-answer:
					if s != http.StatusTooManyRequests {
						t.Fatalf("%s's upload: %d", user, s)
					}
					refused++
					break wait
				case <-time.After(5 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s's upload neither held nor refused", user)
				}
			}
		}
	}
	if n := inFlight(); n >= voice.DefaultMaxUploads || refused == 0 {
		t.Fatalf("four accounts hold %d of %d slots (%d refused)", n, voice.DefaultMaxUploads, refused)
	}
	resp, err := http.DefaultClient.Do(streamedUpload(t, srv.URL, "ada", 100_000))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a fifth account's upload: %d", resp.StatusCode)
	}
}

func TestAllowanceRefusesBeforeReading(t *testing.T) {
	f := voicetest.NewProvider(t, voicetest.OKTranscription)
	cfg := remoteConfig(f)
	cfg.DailyTranscribeBytes = 1 << 20
	env := newEnv(t, cfg)
	srv := httptest.NewServer(env.e)
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")

	// 5 MiB declared against 1 MiB left: refused on the headers alone.
	resp := rawUpload(t, addr, "ada", 5<<20, "")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("over the allowance: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if used := env.allowance.used[interview.TranscribeBytes]; used != 0 {
		t.Fatalf("a refused upload left %d bytes charged", used)
	}
	// The reservation is the declared length, adjusted to the audio sent:
	// 600 KB of audio leaves about 400 KB, so a second 600 KB is refused
	// and a 300 KB one passes.
	send := func(size int64) int {
		resp, err := http.DefaultClient.Do(streamedUpload(t, srv.URL, "ada", size))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := send(600_000); s != http.StatusOK {
		t.Fatalf("600 KB within the allowance: %d", s)
	}
	if used := env.allowance.used[interview.TranscribeBytes]; used != 600_000 {
		t.Fatalf("charged %d bytes for 600,000 bytes of audio", used)
	}
	if s := send(600_000); s != http.StatusTooManyRequests {
		t.Fatalf("600 KB over what is left: %d", s)
	}
	if s := send(300_000); s != http.StatusOK {
		t.Fatalf("300 KB within what is left: %d", s)
	}
	if n := len(f.Received()); n != 2 {
		t.Fatalf("provider got %d uploads, want 2", n)
	}
}

// countingProvider reads each upload as it arrives, keeping nothing.
func countingProvider(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var bytesIn atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		bytesIn.Add(n)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		voicetest.OKTranscription(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &bytesIn
}

// Forty accounts each send a 25 MiB file at once. Refused uploads cost
// nothing; admitted ones stream through a temporary file. The heap of the
// whole test process (clients and provider included) stays far below one
// file per upload, which the old handler, buffering every file, needed.
func TestConcurrentUploadsStayInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends a gigabyte over loopback")
	}
	provider, bytesIn := countingProvider(t)
	env := newEnv(t, voice.Config{BaseURL: provider.URL + "/v1", APIKey: "k", STTModel: "whisper", DailyTranscribeBytes: 1 << 40})
	srv := httptest.NewServer(env.e)
	t.Cleanup(srv.Close)

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	ctx, stop := context.WithCancel(context.Background())
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for ctx.Err() == nil {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()

	const uploads = 40
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		statuses = map[int]int{}
		failed   int
	)
	client := &http.Client{Timeout: 2 * time.Minute}
	for i := range uploads {
		wg.Go(func() {
			resp, err := client.Do(streamedUpload(t, srv.URL, fmt.Sprintf("user-%d", i), voice.MaxUpload))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				// A refusal closes the connection while the client may
				// still be sending; the answer can be lost with it.
				failed++
				return
			}
			resp.Body.Close()
			statuses[resp.StatusCode]++
		})
	}
	wg.Wait()
	stop()
	<-sampled

	grew := int64(peak.Load()) - int64(before.HeapInuse)
	t.Logf("statuses %v, connections cut %d, provider received %d MiB, heap in use grew by %.1f MiB at most",
		statuses, failed, bytesIn.Load()>>20, float64(grew)/(1<<20))
	for s := range statuses {
		if s != http.StatusOK && s != http.StatusTooManyRequests {
			t.Fatalf("status %d among the answers %v", s, statuses)
		}
	}
	if statuses[http.StatusOK] < 1 {
		t.Fatalf("no upload went through: %v", statuses)
	}
	if got := bytesIn.Load(); got < int64(statuses[http.StatusOK])*voice.MaxUpload {
		t.Fatalf("provider received %d bytes for %d transcriptions of 25 MiB", got, statuses[http.StatusOK])
	}
	if limit := int64(64 << 20); grew > limit {
		t.Fatalf("heap in use grew by %d MiB during 40 uploads of 25 MiB, over the %d MiB bound", grew>>20, limit>>20)
	}
}

// frontLoaded opens a connection, sends the headers of an upload declaring
// a 1 MiB body and the first sent bytes of it at once, then keeps the
// connection open sending nothing (or, with trickle, one more byte a
// second) until the server answers or closes it. It returns the status
// (0 for a closed connection) on the channel.
func frontLoaded(t *testing.T, addr, user string, sent int64, trickle bool) <-chan int {
	t.Helper()
	head, _, total := uploadParts(1 << 20)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /api/voice/transcribe HTTP/1.1\r\nHost: %s\r\nX-Test-User: %s\r\n"+
		"Content-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n\r\n%s", addr, user, testBoundary, total, head)
	if _, err := io.Copy(conn, io.LimitReader(fill('a'), sent-int64(len(head)))); err != nil {
		t.Fatal(err)
	}
	answered := make(chan struct{})
	if trickle {
		go func() {
			for {
				select {
				case <-answered:
					return
				case <-time.After(time.Second):
					if _, err := conn.Write([]byte("a")); err != nil {
						return
					}
				}
			}
		}()
	}
	status := make(chan int, 1)
	go func() {
		defer close(answered)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			status <- 0
			return
		}
		resp.Body.Close()
		status <- resp.StatusCode
	}()
	return status
}

// pacedUpload sends a size-byte upload at about rate bytes a second, in
// chunks a quarter of a second apart, and returns the status.
func pacedUpload(t *testing.T, url, user string, size int64, rate int) int {
	t.Helper()
	head, tail, total := uploadParts(size)
	pr, pw := io.Pipe()
	go func() {
		_, _ = io.WriteString(pw, head)
		rest := size - int64(len(voicetest.WebMHeader))
		for rest > 0 {
			n := min(rest, int64(rate/4))
			if _, err := io.Copy(pw, io.LimitReader(fill('a'), n)); err != nil {
				return
			}
			rest -= n
			time.Sleep(250 * time.Millisecond)
		}
		_, _ = io.WriteString(pw, tail)
		_ = pw.Close()
	}()
	req, err := http.NewRequest(http.MethodPost, url+"/api/voice/transcribe", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = total
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+testBoundary)
	req.Header.Set("X-Test-User", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s's paced upload: %v", user, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Eight accounts each send 880 KiB of a 1 MiB upload at once, then stall
// or trickle a byte a second. Bytes sent early buy at most the grace: each
// loses its slot within seconds of its last real progress, not after the
// 110 s its bytes would pay for at 8 KiB/s, and keeps the bytes it sent
// spent. An honest upload slower than the grace but keeping the pace then
// goes through.
func TestFrontLoadedStallLosesItsSlot(t *testing.T) {
	f := voicetest.NewProvider(t, voicetest.OKTranscription)
	env := newEnv(t, remoteConfig(f))
	srv := httptest.NewServer(env.e)
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")

	const sent = 880 << 10
	answers := make([]<-chan int, voice.DefaultMaxUploads)
	for i := range answers {
		answers[i] = frontLoaded(t, addr, fmt.Sprintf("mallory%d", i), sent, i%2 == 1)
	}
	stalled := time.Now()
	waitInFlight(t, env.svc, voice.DefaultMaxUploads)
	if resp := rawUpload(t, addr, "ada", 1<<20, ""); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a ninth account while eight hold every slot: %d", resp.StatusCode)
	}
	// The old rule let each hold its slot for 120 s; the new one, about
	// 10 s. 60 s leaves room for a busy machine.
	for i, answer := range answers {
		select {
		case s := <-answer:
			if s != http.StatusRequestTimeout && s != 0 {
				t.Fatalf("mallory%d's stalled upload: status %d, want 408 or a closed connection", i, s)
			}
		case <-time.After(time.Until(stalled.Add(60 * time.Second))):
			t.Fatalf("mallory%d still holds a slot %v after its 880 KiB", i, time.Since(stalled).Round(time.Second))
		}
	}
	t.Logf("every stalled upload cut %v after it stalled", time.Since(stalled).Round(100*time.Millisecond))
	waitInFlight(t, env.svc, 0)
	env.allowance.mu.Lock()
	kept := env.allowance.used[interview.TranscribeBytes]
	env.allowance.mu.Unlock()
	if kept < voice.DefaultMaxUploads*sent*9/10 || kept > voice.DefaultMaxUploads*(1<<20+1024) {
		t.Fatalf("the eight cut uploads kept %d bytes of the allowance, want about the %d they sent", kept, voice.DefaultMaxUploads*sent)
	}

	// 192 KiB at 16 KiB/s: 12 s, past the grace, at twice the pace.
	if s := pacedUpload(t, srv.URL, "ada", 192<<10, 2*MinUploadRate); s != http.StatusOK {
		t.Fatalf("an honest upload at twice the minimum rate: %d", s)
	}
}

// An upload whose client hangs up half way keeps what it sent spent, as a
// stalled one does: closing just before the cut must not make a stall
// free.
func TestHungUpUploadKeepsWhatItSent(t *testing.T) {
	f := voicetest.NewProvider(t, voicetest.OKTranscription)
	env := newEnv(t, remoteConfig(f))
	srv := httptest.NewServer(env.e)
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")

	const sent = 300 << 10
	head, _, total := uploadParts(1 << 20)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /api/voice/transcribe HTTP/1.1\r\nHost: %s\r\n"+
		"Content-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n\r\n%s", addr, testBoundary, total, head)
	if _, err := io.Copy(conn, io.LimitReader(fill('a'), sent-int64(len(head)))); err != nil {
		t.Fatal(err)
	}
	waitInFlight(t, env.svc, 1)
	time.Sleep(200 * time.Millisecond)
	conn.Close()
	waitInFlight(t, env.svc, 0)
	env.allowance.mu.Lock()
	kept := env.allowance.used[interview.TranscribeBytes]
	env.allowance.mu.Unlock()
	if kept < sent*9/10 || kept > sent {
		t.Fatalf("an upload cut off after %d bytes kept %d bytes of the allowance", sent, kept)
	}
	if n := len(f.Received()); n != 0 {
		t.Fatalf("provider got %d uploads", n)
	}
}
