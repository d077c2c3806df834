// Package voice turns a recorded answer into text and a question into
// speech, the service behind POST /api/voice/transcribe and POST
// /api/voice/speech (their transport is package httpapi's). Both talk to an
// OpenAI-compatible endpoint; speech falls back to a local espeak-ng when
// no speech model is configured. The uploads in flight are bounded per
// user and per process, and a per-user daily allowance
// (interview.VoiceAllowance, kept in Postgres) stops one account from
// spending a provider's free tier.
package voice

import "time"

// Limits of the two endpoints.
const (
	// MaxUpload is the largest audio file accepted, the transcription
	// endpoints' own limit.
	MaxUpload = 25 << 20
	// MaxBody is the largest transcription request body: the file plus
	// 64 KiB for the boundaries and part headers around it.
	MaxBody = MaxUpload + 64<<10
	// MaxSpeechChars is the longest text spoken in one request, in
	// characters (runes).
	MaxSpeechChars = 200
	// maxSpeechWAV bounds the audio read back from a speech engine: 200
	// characters are about 15 s of speech, under 3 MB even at 48 kHz 16-bit
	// stereo.
	maxSpeechWAV = 16 << 20

	// TranscribeTimeout bounds the provider's transcription of one
	// upload.
	TranscribeTimeout = 60 * time.Second
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

// Defaults of the upload limits, checked before a body is read. Each
// upload in flight costs a 32 KB buffer and a temporary file of up to
// 25 MiB, so 8 at once are 200 MiB of disk, not of memory; two per user
// leave room for a retry while one is still sending.
const (
	DefaultMaxUploads        = 8
	DefaultMaxUploadsPerUser = 2
)

// Config is the voice part of the service's settings, read once with the
// rest (the config package) and passed down.
type Config struct {
	BaseURL  string // OpenAI-compatible base URL including /v1
	APIKey   string
	STTModel string
	TTSModel string
	TTSVoice string
	// EspeakPath is the espeak-ng binary for offline speech; empty when not
	// installed.
	EspeakPath string

	// DailySpeechChars and DailyTranscribeBytes are each user's daily
	// allowance; 0 keeps none.
	DailySpeechChars     int64
	DailyTranscribeBytes int64
	// MaxUploads and MaxUploadsPerUser bound the transcription uploads in
	// flight in this process; 0 means the default.
	MaxUploads        int
	MaxUploadsPerUser int
}

// remoteSpeech reports whether speech goes to the configured endpoint.
func (c Config) remoteSpeech() bool { return c.TTSModel != "" && c.BaseURL != "" }

// Features reports which voice endpoints are on, for GET /api/config.
func (c Config) Features() (transcribe, speech bool) {
	return c.STTModel != "" && c.BaseURL != "", c.remoteSpeech() || c.EspeakPath != ""
}
