package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/voice"
	"github.com/judgeworks/interview/internal/voice/voicetest"
	"github.com/judgeworks/interview/internal/wav"
	"github.com/judgeworks/shared/proctest"
	"github.com/judgeworks/shared/server"
)

// memAllowance stands in for Postgres where a test is about something else;
// the Postgres allowance has its own tests.
type memAllowance struct {
	mu      sync.Mutex
	used    map[interview.VoiceResource]int64
	refunds int
}

func (m *memAllowance) Spend(_ context.Context, _ string, r interview.VoiceResource, amount, limit int64) (bool, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.used == nil {
		m.used = map[interview.VoiceResource]int64{}
	}
	if m.used[r]+amount > limit {
		return false, time.Hour, nil
	}
	m.used[r] += amount
	return true, 0, nil
}

func (m *memAllowance) Refund(_ context.Context, _ string, r interview.VoiceResource, amount int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.used[r] -= amount
	m.refunds++
	return nil
}

const testUser = "user-1"

// testEnv serves the voice routes alone, for a user the test names: the
// session middleware they sit behind in the service is tested elsewhere.
type testEnv struct {
	e         *echo.Echo
	svc       *voice.Service
	h         *voiceHandler
	allowance *memAllowance
	logs      *proctest.Buffer
}

func newEnv(t *testing.T, cfg voice.Config) *testEnv {
	t.Helper()
	mem := &memAllowance{}
	env := newEnvWith(t, cfg, mem, testUser)
	env.allowance = mem
	return env
}

func newEnvWith(t *testing.T, cfg voice.Config, allowance interview.VoiceAllowance, user string) *testEnv {
	t.Helper()
	if cfg.DailySpeechChars == 0 {
		cfg.DailySpeechChars = voice.DefaultDailySpeechChars
	}
	if cfg.DailyTranscribeBytes == 0 {
		cfg.DailyTranscribeBytes = 100 << 20
	}
	env := &testEnv{svc: voice.New(cfg, allowance, nil), logs: &proctest.Buffer{}}
	env.h = &voiceHandler{svc: env.svc, grace: UploadGrace, userID: func(c echo.Context) (string, error) {
		// Tests of per-user limits name the user in a header.
		if u := c.Request().Header.Get("X-Test-User"); u != "" {
			return u, nil
		}
		return user, nil
	}}
	env.e = newEcho(env.logs)
	env.h.register(env.e)
	return env
}

// newEcho is the service's echo with its one error handler, logging to w.
func newEcho(w io.Writer) *echo.Echo {
	e := server.New(slog.New(slog.NewJSONHandler(w, nil)))
	e.HTTPErrorHandler = HandleError
	return e
}

func remoteConfig(f *voicetest.Provider) voice.Config {
	return voice.Config{BaseURL: f.URL + "/v1", APIKey: "test-key", STTModel: "whisper-large-v3", TTSModel: "tts-test", TTSVoice: "nova"}
}

type part struct {
	field, fileName, contentType string
	data                         []byte
}

func multipartBody(t testing.TB, parts ...part) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := make(textproto.MIMEHeader)
		cd := fmt.Sprintf(`form-data; name=%q`, p.field)
		if p.fileName != "" {
			cd += fmt.Sprintf(`; filename=%q`, p.fileName)
		}
		h.Set("Content-Disposition", cd)
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(p.data)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), mw.FormDataContentType()
}

func (env *testEnv) do(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	env.e.ServeHTTP(rec, req)
	return rec
}

func (env *testEnv) upload(t testing.TB, parts ...part) *httptest.ResponseRecorder {
	body, ct := multipartBody(t, parts...)
	req := httptest.NewRequest(http.MethodPost, "/api/voice/transcribe", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	return env.do(req)
}

func (env *testEnv) speak(text any) *httptest.ResponseRecorder {
	var body []byte
	switch v := text.(type) {
	case []byte:
		body = v
	default:
		body, _ = json.Marshal(map[string]any{"text": v})
	}
	req := httptest.NewRequest(http.MethodPost, "/api/voice/speech", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return env.do(req)
}

// errorCode reads {"error": {"code"}} and fails the test if the body has
// another shape.
func errorCode(t *testing.T, rec *httptest.ResponseRecorder) interview.Code {
	t.Helper()
	var body struct {
		Error struct {
			Code    interview.Code `json:"code"`
			Message string         `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Code == "" || body.Error.Message == "" {
		t.Fatalf("error body %s is not {\"error\": {\"code\", \"message\"}}", rec.Body)
	}
	return body.Error.Code
}

var statusCodes = map[int]interview.Code{
	400: interview.Invalid, 413: interview.TooLarge, 415: interview.Unsupported, 429: interview.RateLimited,
	501: interview.NotImplemented, 502: interview.Upstream, 503: interview.Unavailable,
}

func TestTranscribeRefusesBadForms(t *testing.T) {
	f := voicetest.NewProvider(t, voicetest.OKTranscription)
	env := newEnv(t, remoteConfig(f))
	clip := voicetest.Audio(voicetest.WebMHeader, 2048)
	file := part{field: "file", fileName: "answer.webm", contentType: "audio/webm", data: clip}

	tests := []struct {
		name   string
		parts  []part
		status int
		msg    string
	}{
		{"no parts", nil, 400, "no audio file"},
		{"only a field", []part{{field: "note", data: []byte("hi")}}, 400, "unexpected form field"},
		{"two files", []part{file, file}, 400, "exactly one"},
		{"extra field before the file", []part{{field: "language", data: []byte("en")}, file}, 400, `unexpected form field \"language\"`},
		{"extra field after the file", []part{file, {field: "model", data: []byte("x")}}, 400, `unexpected form field \"model\"`},
		{"empty file", []part{{field: "file", fileName: "a.webm", contentType: "audio/webm"}}, 400, "empty"},
		{"png declared as audio", []part{{field: "file", fileName: "a.webm", contentType: "audio/webm", data: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")}}, 415, "not audio"},
		{"text file", []part{{field: "file", fileName: "a.txt", contentType: "text/plain", data: []byte("hello there")}}, 415, "not audio"},
		{"AAC ADTS", []part{{field: "file", fileName: "a.aac", contentType: "audio/aac", data: []byte{0xFF, 0xF1, 0x50, 0x80, 0x01, 0x3F, 0xFC}}}, 415, "not audio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := env.upload(t, tt.parts...)
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.msg) {
				t.Fatalf("status %d body %s; want %d containing %q", rec.Code, rec.Body, tt.status, tt.msg)
			}
			if code := errorCode(t, rec); code != statusCodes[tt.status] {
				t.Fatalf("code %q for status %d", code, tt.status)
			}
		})
	}
	t.Run("not multipart", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/api/voice/transcribe", bytes.NewReader(clip))
		req.Header.Set("Content-Type", "audio/webm")
		if rec := env.do(req); rec.Code != 400 || !strings.Contains(rec.Body.String(), "multipart/form-data") {
			t.Fatalf("status %d body %s", rec.Code, rec.Body)
		}
	})
	t.Run("broken multipart", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/api/voice/transcribe", strings.NewReader("--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nOggS"))
		req.Header.Set("Content-Type", "multipart/form-data; boundary=xyz")
		if rec := env.do(req); rec.Code != 400 {
			t.Fatalf("status %d body %s", rec.Code, rec.Body)
		}
	})
	if n := len(f.Received()); n != 0 {
		t.Fatalf("refused uploads reached the provider %d times", n)
	}
	if env.allowance.used[interview.TranscribeBytes] != 0 {
		t.Fatal("refused uploads were charged to the allowance")
	}
}

func TestTranscribeSendsEachTypeAsItIs(t *testing.T) {
	f := voicetest.NewProvider(t, voicetest.OKTranscription)
	env := newEnv(t, remoteConfig(f))
	tests := []struct {
		name     string
		data     []byte
		ext, typ string
	}{
		{"webm/opus (Chrome, Firefox)", voicetest.Audio(voicetest.WebMHeader, 3000), ".webm", "audio/webm"},
		{"mp4 (Safari)", voicetest.Audio(voicetest.MP4Header, 3000), ".m4a", "audio/mp4"},
		{"m4a", voicetest.Audio(voicetest.M4AHeader, 3000), ".m4a", "audio/mp4"},
		{"mp3 with ID3", voicetest.Audio(voicetest.ID3Header, 3000), ".mp3", "audio/mpeg"},
		{"mp3 frames", voicetest.Audio(voicetest.MP3Frame, 3000), ".mp3", "audio/mpeg"},
		{"ogg by sox", voicetest.Sox(t, "a.ogg", "-r", "16000", "-c", "1"), ".ogg", "audio/ogg"},
		{"wav by sox", voicetest.Sox(t, "a.wav", "-r", "16000", "-c", "1", "-b", "16"), ".wav", "audio/wav"},
		{"flac by sox", voicetest.Sox(t, "a.flac", "-r", "16000", "-c", "1"), ".flac", "audio/flac"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The declared name and type are wrong on purpose: the bytes decide.
			rec := env.upload(t, part{field: "file", fileName: "blob", contentType: "application/octet-stream", data: tt.data})
			if rec.Code != 200 {
				t.Fatalf("status %d body %s", rec.Code, rec.Body)
			}
			var out map[string]string
			if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out["text"] != "I would start with the requirements." {
				t.Fatalf("body %s (%v)", rec.Body, err)
			}
			calls := f.Received()
			if len(calls) != i+1 {
				t.Fatalf("provider called %d times", len(calls))
			}
			got := calls[i]
			if got.Path != "/v1/audio/transcriptions" || got.Auth != "Bearer test-key" {
				t.Fatalf("path %q auth %q", got.Path, got.Auth)
			}
			if got.Model != "whisper-large-v3" || got.ResponseFormat != "json" {
				t.Fatalf("model %q format %q", got.Model, got.ResponseFormat)
			}
			if got.FileName != "audio"+tt.ext || got.FileType != tt.typ {
				t.Fatalf("file sent as %q %q, want audio%s %s", got.FileName, got.FileType, tt.ext, tt.typ)
			}
			if !bytes.Equal(got.File, tt.data) {
				t.Fatal("provider received different bytes")
			}
		})
	}
	// The reservation was the body's length; what is kept is the audio's.
	var sent int64
	for _, tt := range tests {
		sent += int64(len(tt.data))
	}
	if used := env.allowance.used[interview.TranscribeBytes]; used != sent {
		t.Fatalf("allowance charged %d bytes for %d bytes of audio", used, sent)
	}
}

// countingReader produces an endless file part after a multipart header and
// counts what the server pulled.
type countingReader struct {
	r    io.Reader
	read int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += int64(n)
	return n, err
}

type fill byte

func (f fill) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(f)
	}
	return len(p), nil
}

func TestTranscribeRefusesOversizeWhileReading(t *testing.T) {
	f := voicetest.NewProvider(t, voicetest.OKTranscription)
	env := newEnv(t, remoteConfig(f))
	const size = 26 << 20
	head := "--b0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.webm\"\r\nContent-Type: audio/webm\r\n\r\n"
	tail := "\r\n--b0undary--\r\n"

	t.Run("streamed without a length", func(t *testing.T) {
		body := &countingReader{r: io.MultiReader(strings.NewReader(head), bytes.NewReader(voicetest.WebMHeader), io.LimitReader(fill('a'), size), strings.NewReader(tail))}
		req := httptest.NewRequest(http.MethodPost, "/api/voice/transcribe", body)
		req.ContentLength = -1
		req.Header.Set("Content-Type", "multipart/form-data; boundary=b0undary")
		rec := env.do(req)
		if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "25 MB") || errorCode(t, rec) != interview.TooLarge {
			t.Fatalf("status %d body %s", rec.Code, rec.Body)
		}
		// Read up to the limit, plus at most the reader's buffer: never the
		// whole 26 MB.
		if limit := int64(voice.MaxBody); body.read > limit {
			t.Fatalf("server read %d bytes, more than %d", body.read, limit)
		}
		if body.read < voice.MaxUpload {
			t.Fatalf("server read only %d bytes; the limit was not what refused it", body.read)
		}
	})
	t.Run("declared length", func(t *testing.T) {
		body := &countingReader{r: io.LimitReader(fill('a'), size)}
		req := httptest.NewRequest(http.MethodPost, "/api/voice/transcribe", body)
		req.ContentLength = size
		req.Header.Set("Content-Type", "multipart/form-data; boundary=b0undary")
		if rec := env.do(req); rec.Code != http.StatusRequestEntityTooLarge {
			t.Fatalf("status %d body %s", rec.Code, rec.Body)
		}
		if body.read != 0 {
			t.Fatalf("read %d bytes of a body already known to be too large", body.read)
		}
	})
	t.Run("exactly 25 MB passes", func(t *testing.T) {
		clip := voicetest.Audio(voicetest.WebMHeader, voice.MaxUpload)
		if rec := env.upload(t, part{field: "file", fileName: "a.webm", data: clip}); rec.Code != 200 {
			t.Fatalf("status %d body %s", rec.Code, rec.Body)
		}
		calls := f.Received()
		if len(calls) != 1 || len(calls[0].File) != voice.MaxUpload {
			t.Fatalf("provider got %d calls", len(calls))
		}
	})
}

func TestProviderFailures(t *testing.T) {
	tests := []struct {
		name       string
		reply      func(http.ResponseWriter, *http.Request)
		status     int
		retryAfter string
		msg        string
	}{
		{
			name: "429 with Retry-After",
			reply: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "7")
				voicetest.JSONError(429, "rate_limit_exceeded", "Rate limit reached")(w, r)
			},
			status: 429, retryAfter: "7", msg: "rate limited",
		},
		{
			name: "429 with retry-after-ms",
			reply: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("retry-after-ms", "1500")
				voicetest.JSONError(429, "rate_limit_exceeded", "Rate limit reached")(w, r)
			},
			status: 429, retryAfter: "2", msg: "rate limited",
		},
		{
			name:   "429 naming no delay",
			reply:  voicetest.JSONError(429, "rate_limit_exceeded", "Rate limit reached"),
			status: 429, retryAfter: "5", msg: "rate limited",
		},
		{
			name:   "terms not accepted (code)",
			reply:  voicetest.JSONError(400, "model_terms_required", "The model requires terms acceptance. Please have the org admin accept the terms at https://console.example/playground"),
			status: 503, msg: "terms are accepted",
		},
		{
			name:   "terms not accepted (words)",
			reply:  voicetest.JSONError(403, "forbidden", "You must accept the terms of use for this model"),
			status: 503, msg: "terms are accepted",
		},
		{name: "provider 503", reply: voicetest.JSONError(503, "overloaded", "try later"), status: 502, msg: "status 503"},
		{name: "provider 500", reply: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }, status: 502, msg: "status 500"},
		{name: "bad key", reply: voicetest.JSONError(401, "invalid_api_key", "Invalid API Key"), status: 502, msg: "status 401"},
		{name: "plain 400", reply: voicetest.JSONError(400, "invalid_value", "bad"), status: 502, msg: "status 400"},
	}
	for _, tt := range tests {
		for _, endpoint := range []string{"transcribe", "speech"} {
			t.Run(tt.name+" "+endpoint, func(t *testing.T) {
				f := voicetest.NewProvider(t, tt.reply)
				env := newEnv(t, remoteConfig(f))
				var rec *httptest.ResponseRecorder
				if endpoint == "transcribe" {
					rec = env.upload(t, part{field: "file", fileName: "a.ogg", data: voicetest.Audio([]byte("OggS"), 100)})
				} else {
					rec = env.speak("What is a goroutine?")
				}
				if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.msg) {
					t.Fatalf("status %d body %s; want %d containing %q", rec.Code, rec.Body, tt.status, tt.msg)
				}
				if code := errorCode(t, rec); code != statusCodes[tt.status] {
					t.Fatalf("code %q for status %d", code, tt.status)
				}
				if got := rec.Header().Get("Retry-After"); got != tt.retryAfter {
					t.Fatalf("Retry-After %q, want %q", got, tt.retryAfter)
				}
				if strings.Contains(rec.Body.String(), "console.example") {
					t.Fatal("the provider's message leaked to the client")
				}
				if len(f.Received()) != 1 {
					t.Fatalf("provider called %d times", len(f.Received()))
				}
				for r, used := range env.allowance.used {
					if used != 0 {
						t.Fatalf("failed call left %d of %s charged", used, r)
					}
				}
			})
		}
	}
}

func TestSpeechRemote(t *testing.T) {
	streamed := voicetest.Espeak(t, "Why Go?")
	var reply []byte
	f := voicetest.NewProvider(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "audio/wav")
		_, _ = w.Write(reply)
	})
	env := newEnv(t, remoteConfig(f))

	t.Run("streamed WAV is fixed", func(t *testing.T) {
		reply = streamed
		rec := env.speak("  Why Go?  ")
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "audio/wav" {
			t.Fatalf("status %d type %q body %.200s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		if _, err := wav.Decode(rec.Body.Bytes()); err != nil {
			t.Fatalf("served WAV fails the strict decoder: %v", err)
		}
		want, _ := wav.Fix(streamed)
		if !bytes.Equal(rec.Body.Bytes(), want) {
			t.Fatal("served audio differs from the provider's, beyond the sizes")
		}
		got := f.Received()[0]
		wantReq := map[string]string{"model": "tts-test", "voice": "nova", "input": "Why Go?", "response_format": "wav"}
		if got.Path != "/v1/audio/speech" || got.Auth != "Bearer test-key" || fmt.Sprint(got.Speech) != fmt.Sprint(wantReq) {
			t.Fatalf("provider got %s %q %v", got.Path, got.Auth, got.Speech)
		}
		if env.allowance.used[interview.SpeechChars] != 7 {
			t.Fatalf("charged %d characters for 7", env.allowance.used[interview.SpeechChars])
		}
	})
	for name, body := range map[string][]byte{
		"mp3 instead of WAV":  voicetest.Audio(voicetest.ID3Header, 500),
		"JSON instead of WAV": []byte(`{"audio":"..."}`),
		"truncated header":    streamed[:20],
		"empty":               nil,
	} {
		t.Run(name, func(t *testing.T) {
			reply = body
			before := env.allowance.used[interview.SpeechChars]
			rec := env.speak("Why Go?")
			if rec.Code != 502 || !strings.Contains(rec.Body.String(), "did not send a WAV") {
				t.Fatalf("status %d body %s", rec.Code, rec.Body)
			}
			if env.allowance.used[interview.SpeechChars] != before {
				t.Fatal("a failed synthesis was charged")
			}
		})
	}
}

func TestSpeechValidation(t *testing.T) {
	f := voicetest.NewProvider(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) })
	env := newEnv(t, remoteConfig(f))
	tests := []struct {
		name string
		body any
		msg  string
	}{
		{"no text field", []byte(`{"words":"hi"}`), "text is required"},
		{"empty", "", "text is empty"},
		{"only spaces", "   \n\t ", "text is empty"},
		{"201 characters", strings.Repeat("a", 201), "201 characters"},
		{"201 two-byte characters", strings.Repeat("é", 201), "201 characters"},
		{"number", 42, `send JSON`},
		{"not JSON", []byte("say hello"), "send JSON"},
		{"two objects", []byte(`{"text":"a"}{"text":"b"}`), "one JSON object"},
		{"huge body", []byte(`{"text":"` + strings.Repeat("a", maxSpeechBody) + `"}`), "send JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := env.speak(tt.body)
			if rec.Code != 400 || !strings.Contains(rec.Body.String(), tt.msg) {
				t.Fatalf("status %d body %s; want 400 containing %q", rec.Code, rec.Body, tt.msg)
			}
		})
	}
	if len(f.Received()) != 0 {
		t.Fatal("invalid requests reached the provider")
	}
	// 200 two-byte characters (400 bytes) are within the limit: the limit
	// counts characters, not bytes. The provider fails, so this is a 502.
	if rec := env.speak(strings.Repeat("é", 200)); rec.Code != 502 {
		t.Fatalf("200 characters: status %d body %s", rec.Code, rec.Body)
	}
}

func TestSpeechOfflineEspeak(t *testing.T) {
	path, err := exec.LookPath("espeak-ng")
	if err != nil {
		t.Fatalf("espeak-ng (make deps installs it): %v", err)
	}
	env := newEnv(t, voice.Config{EspeakPath: path})
	if tr, sp := env.svc.Features(); tr || !sp {
		t.Fatalf("features transcribe=%v speech=%v; want false, true", tr, sp)
	}
	for _, text := range []string{
		"Describe a system you designed end to end.",
		"--help me; $(rm -rf /) `id` | cat", // options and shell syntax are just words
	} {
		rec := env.speak(text)
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "audio/wav" {
			t.Fatalf("status %d body %.200s", rec.Code, rec.Body)
		}
		info, err := wav.Decode(rec.Body.Bytes())
		if err != nil {
			t.Fatalf("espeak-ng WAV after fixing fails the strict decoder: %v", err)
		}
		if info.Duration() < time.Second {
			t.Fatalf("%q spoken in %v; espeak-ng read something else", text, info.Duration())
		}
	}
	// Transcription has no offline engine.
	rec := env.upload(t, part{field: "file", fileName: "a.ogg", data: voicetest.Audio([]byte("OggS"), 100)})
	if rec.Code != 501 || !strings.Contains(rec.Body.String(), "not configured") {
		t.Fatalf("transcribe offline: status %d body %s", rec.Code, rec.Body)
	}
}

func TestDisabled(t *testing.T) {
	env := newEnv(t, voice.Config{TTSModel: "tts-test", STTModel: "whisper"}) // models but no endpoint, no espeak-ng
	if tr, sp := env.svc.Features(); tr || sp {
		t.Fatalf("features transcribe=%v speech=%v; want both off", tr, sp)
	}
	if rec := env.speak("hello"); rec.Code != 501 {
		t.Fatalf("speech: status %d body %s", rec.Code, rec.Body)
	}
	body := &countingReader{r: strings.NewReader("--x\r\n")}
	req := httptest.NewRequest(http.MethodPost, "/api/voice/transcribe", body)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	if rec := env.do(req); rec.Code != 501 {
		t.Fatalf("transcribe: status %d body %s", rec.Code, rec.Body)
	}
}

func TestAllowanceSpentGives429(t *testing.T) {
	f := voicetest.NewProvider(t, voicetest.OKTranscription)
	cfg := remoteConfig(f)
	cfg.DailyTranscribeBytes = 1000
	env := newEnv(t, cfg)
	clip := voicetest.Audio([]byte("OggS"), 600)
	if rec := env.upload(t, part{field: "file", fileName: "a.ogg", data: clip}); rec.Code != 200 {
		t.Fatalf("first: status %d body %s", rec.Code, rec.Body)
	}
	rec := env.upload(t, part{field: "file", fileName: "a.ogg", data: clip})
	if rec.Code != 429 || !strings.Contains(rec.Body.String(), "allowance") {
		t.Fatalf("second: status %d body %s", rec.Code, rec.Body)
	}
	if ra := rec.Header().Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
	if len(f.Received()) != 1 {
		t.Fatal("a request over the allowance reached the provider")
	}
}

func FuzzSpeechRequest(f *testing.F) {
	f.Add([]byte(`{"text":"hello"}`))
	f.Add([]byte(`{"text":"   "}`))
	f.Add([]byte(`{"text":null}`))
	f.Add([]byte(`{"text":"\ud800"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		text, err := readSpeechRequest(bytes.NewReader(body))
		if err != nil {
			return
		}
		n := len([]rune(text))
		if n < 1 || n > voice.MaxSpeechChars || strings.TrimSpace(text) != text {
			t.Fatalf("accepted %q (%d characters)", text, n)
		}
	})
}

func FuzzUpload(f *testing.F) {
	ok, ct := multipartBody(f, part{field: "file", fileName: "a.ogg", data: []byte("OggS....")})
	_, boundary, _ := strings.Cut(ct, "boundary=")
	f.Add(ok, boundary)
	two, ct2 := multipartBody(f, part{field: "x", data: []byte("1")}, part{field: "file", fileName: "a", data: []byte("z")})
	_, b2, _ := strings.Cut(ct2, "boundary=")
	f.Add(two, b2)
	f.Fuzz(func(t *testing.T, body []byte, boundary string) {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("Content-Type", mime.FormatMediaType("multipart/form-data", map[string]string{"boundary": boundary}))
		var audio bytes.Buffer
		c, n, err := readUpload(httptest.NewRecorder(), req, &audio)
		if err != nil {
			return
		}
		if n != int64(audio.Len()) || n == 0 || n > voice.MaxUpload || audio.Len() > len(body) {
			t.Fatalf("accepted %d bytes (%d written) from a %d-byte body", n, audio.Len(), len(body))
		}
		if got, ok := voice.Sniff(audio.Bytes()); !ok || got != c {
			t.Fatalf("accepted a file sniffed as %v (%v), reported %v", got, ok, c)
		}
	})
}

func TestNeedsSession(t *testing.T) {
	f := voicetest.NewProvider(t, voicetest.OKTranscription)
	env := newEnv(t, remoteConfig(f))
	h := &voiceHandler{svc: env.svc, grace: UploadGrace, userID: func(echo.Context) (string, error) {
		return "", interview.Errorf(interview.Unauthenticated, "sign in first")
	}}
	env.e = newEcho(io.Discard)
	h.register(env.e)
	body, ct := multipartBody(t, part{field: "file", fileName: "a.ogg", data: voicetest.Audio([]byte("OggS"), 100)})
	counted := &countingReader{r: bytes.NewReader(body)}
	req := httptest.NewRequest(http.MethodPost, "/api/voice/transcribe", counted)
	req.Header.Set("Content-Type", ct)
	if rec := env.do(req); rec.Code != 401 || errorCode(t, rec) != interview.Unauthenticated {
		t.Fatalf("transcribe: status %d body %s", rec.Code, rec.Body)
	}
	if counted.read != 0 {
		t.Fatalf("read %d bytes of an unauthenticated upload", counted.read)
	}
	if rec := env.speak("hello"); rec.Code != 401 {
		t.Fatalf("speech: status %d body %s", rec.Code, rec.Body)
	}
	if len(f.Received()) != 0 {
		t.Fatal("unauthenticated requests reached the provider")
	}
}

// A provider slower than the upload's pace allows still answers: the pace
// applies to the body, and once it is whole the connection's read deadline
// must not cut the request (Go's server cancels a request's context when a
// read on its connection fails, even after the body).
func TestSlowProviderAfterPacedUpload(t *testing.T) {
	f := voicetest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(3 * time.Second)
		voicetest.OKTranscription(w, r)
	})
	env := newEnv(t, remoteConfig(f))
	env.h.grace = time.Second
	srv := httptest.NewServer(env.e)
	t.Cleanup(srv.Close)

	resp, err := http.DefaultClient.Do(streamedUpload(t, srv.URL, "ada", 4096))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d body %s", resp.StatusCode, body)
	}
}
