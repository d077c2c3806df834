// Package voicetest is a stand-in speech provider and real audio samples,
// for the tests of the voice service and of its HTTP routes.
package voicetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Tiny real headers: the first bytes of files recorded by the browsers the
// service serves.
var (
	// Chrome MediaRecorder audio/webm;codecs=opus: EBML header, DocType "webm".
	WebMHeader = []byte{0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0xF7, 0x81, 0x01, 0x42, 0xF2, 0x81, 0x04, 0x42, 0xF3, 0x81, 0x08, 0x42, 0x82, 0x84, 'w', 'e', 'b', 'm', 0x42, 0x87, 0x81, 0x04, 0x42, 0x85, 0x81, 0x02}
	// Safari MediaRecorder audio/mp4: an ftyp box with major brand "iso5".
	MP4Header = []byte{0x00, 0x00, 0x00, 0x1C, 'f', 't', 'y', 'p', 'i', 's', 'o', '5', 0x00, 0x00, 0x02, 0x00, 'i', 's', 'o', '5', 'i', 's', 'o', '6', 'm', 'p', '4', '1'}
	// An .m4a from an iPhone voice memo: major brand "M4A ".
	M4AHeader = []byte{0x00, 0x00, 0x00, 0x20, 'f', 't', 'y', 'p', 'M', '4', 'A', ' ', 0x00, 0x00, 0x00, 0x00, 'M', '4', 'A', ' ', 'm', 'p', '4', '2', 'i', 's', 'o', 'm', 0x00, 0x00, 0x00, 0x00}
	// An ID3v2.4 tag ahead of MP3 frames.
	ID3Header = []byte{'I', 'D', '3', 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x23, 'T', 'S', 'S', 'E'}
	// A bare MPEG-1 Layer III frame header, 128 kbit/s, 44.1 kHz.
	MP3Frame = []byte{0xFF, 0xFB, 0x90, 0x44, 0x00, 0x00, 0x00, 0x00}
	// An MPEG-2 Layer III frame (22.05 kHz) as phone recorders write.
	MP3Frame2 = []byte{0xFF, 0xF3, 0x64, 0xC4, 0x00, 0x00}
)

// Audio is n bytes of a file that starts with header.
func Audio(header []byte, n int) []byte {
	b := make([]byte, n)
	copy(b, header)
	for i := len(header); i < n; i++ {
		b[i] = byte(i)
	}
	return b
}

// Sox writes a short tone with sox to a file named name (its extension
// picks the format) and returns its bytes.
func Sox(t testing.TB, name string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath("sox"); err != nil {
		t.Fatalf("sox is not installed (make deps installs it): %v", err)
	}
	p := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("sox", append(append([]string{"-n"}, args...), p, "synth", "0.2", "sine", "440")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Espeak is text spoken by espeak-ng, as the WAV it streams.
func Espeak(t testing.TB, text string) []byte {
	t.Helper()
	b, err := exec.Command("espeak-ng", "--stdout", text).Output()
	if err != nil {
		t.Fatalf("espeak-ng (make deps installs it): %v", err)
	}
	return b
}

// Call is what the provider saw of one call.
type Call struct {
	Path, Auth, ContentType string
	Model, ResponseFormat   string
	FileName, FileType      string
	File                    []byte
	Fields                  []string
	Speech                  map[string]string
}

// Provider speaks the OpenAI audio wire format; reply writes the answer.
type Provider struct {
	*httptest.Server
	mu    sync.Mutex
	calls []Call
	reply func(w http.ResponseWriter, r *http.Request)
}

// NewProvider starts a provider answering with reply, closed when the test
// ends.
func NewProvider(t testing.TB, reply func(w http.ResponseWriter, r *http.Request)) *Provider {
	f := &Provider{reply: reply}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := Call{Path: r.URL.Path, Auth: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type")}
		switch r.URL.Path {
		case "/v1/audio/transcriptions":
			mr, err := r.MultipartReader()
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
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
				b, _ := io.ReadAll(p)
				rec.Fields = append(rec.Fields, p.FormName())
				switch p.FormName() {
				case "model":
					rec.Model = string(b)
				case "response_format":
					rec.ResponseFormat = string(b)
				case "file":
					rec.FileName, rec.FileType, rec.File = p.FileName(), p.Header.Get("Content-Type"), b
				}
			}
		case "/v1/audio/speech":
			_ = json.NewDecoder(r.Body).Decode(&rec.Speech)
		}
		f.mu.Lock()
		f.calls = append(f.calls, rec)
		f.mu.Unlock()
		f.reply(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

// Received returns the calls so far.
func (f *Provider) Received() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// OKTranscription answers a transcription with a sentence between spaces.
func OKTranscription(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"text":"  I would start with the requirements.  "}`)
}

// JSONError answers with an OpenAI-style error body.
func JSONError(status int, code, message string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","code":%q}}`, message, code)
	}
}
