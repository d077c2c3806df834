package voice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/judgeworks/interview/internal/wav"
)

// Service does the voice work behind the two endpoints.
type Service struct {
	cfg       Config
	up        *upstream
	allowance Allowance
	now       func() time.Time
	// Deadlines of the outbound calls; fields so tests can shorten them.
	transcribeTimeout, speechTimeout, espeakTimeout time.Duration
}

// New returns the voice service. client carries no timeout of its own: each
// call sets its deadline on the context. A nil client means a default one.
func New(cfg Config, allowance Allowance, client *http.Client) *Service {
	if client == nil {
		client = &http.Client{}
	}
	s := &Service{
		cfg: cfg, allowance: allowance, now: time.Now,
		transcribeTimeout: transcribeTimeout, speechTimeout: speechTimeout, espeakTimeout: espeakTimeout,
	}
	s.up = &upstream{baseURL: cfg.BaseURL, apiKey: cfg.APIKey, client: client, now: func() time.Time { return s.now() }}
	return s
}

// Features reports which voice endpoints are on, for GET /api/config.
func (s *Service) Features() (transcribe, speech bool) { return s.cfg.Features() }

// Describe says in one line how voice runs, for the start-up log.
func (s *Service) Describe() string {
	t, sp := s.Features()
	stt, tts := "off (no STT_MODEL or base URL)", "off (no TTS_MODEL and no espeak-ng)"
	if t {
		stt = "model " + s.cfg.STTModel
	}
	switch {
	case s.cfg.remoteSpeech():
		tts = fmt.Sprintf("model %s voice %s", s.cfg.TTSModel, s.cfg.TTSVoice)
	case sp:
		tts = "offline espeak-ng"
	}
	return "transcription: " + stt + "; speech: " + tts
}

// Transcribe turns one recorded answer into text.
func (s *Service) Transcribe(ctx context.Context, userID string, audio []byte, c Container) (string, error) {
	if on, _ := s.Features(); !on {
		return "", errorf(KindDisabled, "transcription is not configured on this server (STT_MODEL)")
	}
	var text string
	err := s.spend(ctx, userID, TranscribeBytes, int64(len(audio)), s.cfg.DailyTranscribeBytes, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, s.transcribeTimeout)
		defer cancel()
		var err error
		text, err = s.up.transcribe(ctx, s.cfg.STTModel, audio, c)
		return err
	})
	return text, err
}

// Speak returns text as a WAV whose RIFF and data sizes are right. text is
// already validated (1 to MaxSpeechChars characters).
func (s *Service) Speak(ctx context.Context, userID, text string) ([]byte, error) {
	if _, on := s.Features(); !on {
		return nil, errorf(KindDisabled, "speech is not configured on this server (TTS_MODEL, or install espeak-ng)")
	}
	var out []byte
	err := s.spend(ctx, userID, SpeechChars, int64(len([]rune(text))), s.cfg.DailySpeechChars, func(ctx context.Context) error {
		var (
			raw []byte
			err error
		)
		if s.cfg.remoteSpeech() {
			ctx, cancel := context.WithTimeout(ctx, s.speechTimeout)
			defer cancel()
			raw, err = s.up.speech(ctx, s.cfg.TTSModel, s.cfg.TTSVoice, text)
		} else {
			raw, err = espeak(ctx, s.cfg.EspeakPath, text, s.espeakTimeout)
		}
		if err != nil {
			return err
		}
		out, err = wav.Fix(raw)
		if err != nil {
			return &Error{Kind: KindUpstream, Message: "the speech service did not send a WAV file", Detail: err.Error()}
		}
		return nil
	})
	return out, err
}

// spend reserves amount of the user's daily allowance, runs work, and gives
// the reservation back when work fails: a provider outage must not use up
// the user's day. A limit of 0 means no allowance is kept.
func (s *Service) spend(ctx context.Context, userID string, r Resource, amount, limit int64, work func(context.Context) error) error {
	if limit == 0 {
		return work(ctx)
	}
	now := s.now()
	ok, err := s.allowance.Spend(ctx, userID, now, r, amount, limit)
	if err != nil {
		return fmt.Errorf("voice allowance: %w", err)
	}
	if !ok {
		what := "speech"
		if r == TranscribeBytes {
			what = "transcription"
		}
		return &Error{
			Kind:       KindAllowanceSpent,
			Message:    fmt.Sprintf("today's %s allowance is used up; it resets at midnight UTC", what),
			RetryAfter: untilTomorrow(now),
		}
	}
	werr := work(ctx)
	if werr != nil {
		// The request's context may be the reason work failed; the refund
		// still has to happen.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := s.allowance.Refund(rctx, userID, now, r, amount); err != nil {
			return errors.Join(werr, fmt.Errorf("voice allowance refund: %w", err))
		}
	}
	return werr
}

// logFailure records what the user is not shown.
func logFailure(logger *slog.Logger, err error) {
	var e *Error
	if errors.As(err, &e) && e.Detail != "" {
		logger.Warn("voice upstream failure", "kind", e.Kind, "detail", e.Detail)
	}
}
