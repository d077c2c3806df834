package voice

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/voice/voicetest"
)

// A provider that never answers fails each call at its deadline.
func TestProviderTimeout(t *testing.T) {
	f := voicetest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	svc := New(Config{BaseURL: f.URL + "/v1", APIKey: "test-key", STTModel: "whisper-large-v3", TTSModel: "tts-test", TTSVoice: "nova"}, nil, nil)
	svc.transcribeTimeout, svc.speechTimeout = 100*time.Millisecond, 100*time.Millisecond
	ctx := context.Background()
	start := time.Now()
	_, err := svc.Speak(ctx, "user-1", "hello")
	if !interview.Is(err, interview.Upstream) || !strings.Contains(interview.ErrorFrom(err).Message, "in time") {
		t.Fatalf("speech: %v", err)
	}
	clip := voicetest.Audio([]byte("OggS"), 100)
	_, err = svc.Transcribe(ctx, "user-1", int64(len(clip)), func(w io.Writer) (Container, int64, error) {
		n, err := io.Copy(w, bytes.NewReader(clip))
		return ogg, n, err
	})
	if !interview.Is(err, interview.Upstream) || !strings.Contains(interview.ErrorFrom(err).Message, "in time") {
		t.Fatalf("transcription: %v", err)
	}
	// The provider never answers: a generous bound tells.
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("deadline not applied: took %v", d)
	}
}
