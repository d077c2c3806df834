// Package voice turns a recorded answer into text and a question into
// speech: POST /api/voice/transcribe and POST /api/voice/speech. Both talk to
// an OpenAI-compatible endpoint; speech falls back to a local espeak-ng when
// no speech model is configured. A per-user daily allowance, kept in
// Postgres, stops one account from spending a provider's free tier.
package voice

import (
	"fmt"
	"os/exec"
	"strconv"
	"time"
)

// Limits of the two endpoints.
const (
	// MaxUpload is the largest audio file accepted, the transcription
	// endpoints' own limit.
	MaxUpload = 25 << 20
	// multipartSlack covers boundaries and part headers around the file.
	multipartSlack = 64 << 10
	// MaxSpeechChars is the longest text spoken in one request, in
	// characters (runes).
	MaxSpeechChars = 200
	// maxSpeechBody bounds the JSON body of a speech request.
	maxSpeechBody = 16 << 10
	// maxSpeechWAV bounds the audio read back from a speech engine: 200
	// characters are about 15 s of speech, under 3 MB even at 48 kHz 16-bit
	// stereo.
	maxSpeechWAV = 16 << 20

	transcribeTimeout = 60 * time.Second
	speechTimeout     = 30 * time.Second
	espeakTimeout     = 10 * time.Second
)

// Defaults of the daily allowance: about one interview's worth. A 10-question
// interview reads out about 10 questions of up to 200 characters plus the
// welcome (~2,500 characters), so 6,000 leaves room for replays. Ten spoken
// answers of two minutes are about 20 MB as Safari's AAC (~1 MB/min), far
// less as Opus; 40 MB covers that twice over while one user cannot upload
// more than a few full-size files a day.
const (
	DefaultDailySpeechChars     = 6000
	DefaultDailyTranscribeBytes = 40 << 20
	DefaultTTSVoice             = "alloy"
)

// Config is the voice part of the service's settings, read once in main.
type Config struct {
	BaseURL  string // OpenAI-compatible base URL including /v1
	APIKey   string
	STTModel string
	TTSModel string
	TTSVoice string
	// EspeakPath is the espeak-ng binary for offline speech; empty when not
	// installed.
	EspeakPath string

	DailySpeechChars     int64
	DailyTranscribeBytes int64
}

// LoadConfig reads the voice settings. VOICE_BASE_URL and VOICE_API_KEY
// override LLM_BASE_URL and LLM_API_KEY, so speech can use another provider
// than the interviewer's chat model.
func LoadConfig(getenv func(string) string) (Config, error) {
	first := func(keys ...string) string {
		for _, k := range keys {
			if v := getenv(k); v != "" {
				return v
			}
		}
		return ""
	}
	cfg := Config{
		BaseURL:              first("VOICE_BASE_URL", "LLM_BASE_URL"),
		APIKey:               first("VOICE_API_KEY", "LLM_API_KEY"),
		STTModel:             getenv("STT_MODEL"),
		TTSModel:             getenv("TTS_MODEL"),
		TTSVoice:             first("TTS_VOICE"),
		DailySpeechChars:     DefaultDailySpeechChars,
		DailyTranscribeBytes: DefaultDailyTranscribeBytes,
	}
	if cfg.TTSVoice == "" {
		cfg.TTSVoice = DefaultTTSVoice
	}
	if p, err := exec.LookPath("espeak-ng"); err == nil {
		cfg.EspeakPath = p
	}
	for _, s := range []struct {
		key string
		dst *int64
	}{
		{"VOICE_DAILY_SPEECH_CHARS", &cfg.DailySpeechChars},
		{"VOICE_DAILY_TRANSCRIBE_BYTES", &cfg.DailyTranscribeBytes},
	} {
		v := getenv(s.key)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return Config{}, fmt.Errorf("%s must be a whole number ≥ 0, got %q", s.key, v)
		}
		*s.dst = n
	}
	return cfg, nil
}

// remoteSpeech reports whether speech goes to the configured endpoint.
func (c Config) remoteSpeech() bool { return c.TTSModel != "" && c.BaseURL != "" }

// Features reports which voice endpoints are on, for GET /api/config.
func (c Config) Features() (transcribe, speech bool) {
	return c.STTModel != "" && c.BaseURL != "", c.remoteSpeech() || c.EspeakPath != ""
}
