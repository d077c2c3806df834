package voice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/wav"
	"github.com/judgeworks/shared/server"
)

// Service does the voice work behind the two endpoints.
type Service struct {
	cfg       Config
	up        *upstream
	allowance interview.VoiceAllowance
	uploads   *uploads
	now       func() time.Time
	// Deadlines of the outbound calls; fields so tests can shorten them.
	transcribeTimeout, speechTimeout, espeakTimeout time.Duration
}

// New returns the voice service. client carries no timeout of its own: each
// call sets its deadline on the context. A nil client means a default one.
func New(cfg Config, allowance interview.VoiceAllowance, client *http.Client) *Service {
	if client == nil {
		client = &http.Client{}
	}
	s := &Service{
		cfg: cfg, allowance: allowance, now: time.Now,
		uploads:           newUploads(cfg.MaxUploads, cfg.MaxUploadsPerUser),
		transcribeTimeout: TranscribeTimeout, speechTimeout: speechTimeout, espeakTimeout: espeakTimeout,
	}
	s.up = &upstream{baseURL: cfg.BaseURL, apiKey: cfg.APIKey, client: client, now: func() time.Time { return s.now() }}
	return s
}

// Features reports which voice endpoints are on, for GET /api/config.
func (s *Service) Features() (transcribe, speech bool) { return s.cfg.Features() }

// Uploading reports how many transcription uploads hold a slot in this
// process.
func (s *Service) Uploading() int {
	s.uploads.mu.Lock()
	defer s.uploads.mu.Unlock()
	return s.uploads.total
}

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

// Receive reads one upload's audio into w, returning its container and
// size, or an error (400, 408, 413, 415) when the body is not one audio
// file within the limits, wrapped in *Unfinished when the body stopped
// arriving.
type Receive func(w io.Writer) (Container, int64, error)

// Unfinished is the error of an upload whose body did not arrive whole
// (the transport cut it for falling behind its pace, or its client ended
// it) after Received bytes. The bytes it sent stay spent from the
// allowance, so a stall held a slot at a price and cannot be repeated for
// free; an upload refused for what it holds gives its reservation back.
type Unfinished struct {
	Err      error
	Received int64
}

func (u *Unfinished) Error() string { return u.Err.Error() }
func (u *Unfinished) Unwrap() error { return u.Err }

// ErrTooLarge refuses an audio file over MaxUpload.
var ErrTooLarge = interview.Errorf(interview.TooLarge, "the audio file is larger than %d MB", MaxUpload>>20)

// Transcribe turns one uploaded answer into text. Everything that can
// refuse the upload is checked before receive reads a byte of it: the
// user's and the process's uploads in flight, and the daily allowance,
// which reserves the body's declared length (or the largest body accepted,
// when none is declared) and gives back what the audio did not use, or,
// for an upload that stopped arriving, what it did not send. The
// audio goes to an unlinked temporary file and streams from there to the
// provider, so memory holds buffers, never a file.
func (s *Service) Transcribe(ctx context.Context, userID string, declared int64, receive Receive) (string, error) {
	if on, _ := s.Features(); !on {
		return "", interview.Errorf(interview.NotImplemented, "transcription is not configured on this server (STT_MODEL)")
	}
	if declared > MaxBody {
		return "", ErrTooLarge
	}
	release, err := s.uploads.enter(userID)
	if err != nil {
		return "", err
	}
	defer release()
	reserve := declared
	if reserve < 0 || reserve > MaxBody {
		reserve = MaxBody
	}
	var text string
	err = s.spend(ctx, userID, interview.TranscribeBytes, reserve, s.cfg.DailyTranscribeBytes, func(ctx context.Context) (int64, error) {
		f, err := os.CreateTemp("", "voice-upload-*")
		if err != nil {
			return 0, fmt.Errorf("voice upload file: %w", err)
		}
		// Unlinked at once: the open file lives on until Close, and nothing
		// is left behind whatever happens to the process.
		_ = os.Remove(f.Name())
		defer f.Close()
		c, n, err := receive(f)
		if u := (*Unfinished)(nil); errors.As(err, &u) {
			return u.Received, err
		}
		if err != nil {
			return 0, err
		}
		ctx, cancel := context.WithTimeout(ctx, s.transcribeTimeout)
		defer cancel()
		if text, err = s.up.transcribe(ctx, s.cfg.STTModel, io.NewSectionReader(f, 0, n), n, c); err != nil {
			return 0, err
		}
		return n, nil
	})
	return text, err
}

// Speak returns text as a WAV whose RIFF and data sizes are right. text is
// already validated (1 to MaxSpeechChars characters).
func (s *Service) Speak(ctx context.Context, userID, text string) ([]byte, error) {
	if _, on := s.Features(); !on {
		return nil, interview.Errorf(interview.NotImplemented, "speech is not configured on this server (TTS_MODEL, or install espeak-ng)")
	}
	chars := int64(len([]rune(text)))
	var out []byte
	err := s.spend(ctx, userID, interview.SpeechChars, chars, s.cfg.DailySpeechChars, func(ctx context.Context) (int64, error) {
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
			return 0, err
		}
		out, err = wav.Fix(raw)
		if err != nil {
			return 0, interview.Wrap(err, interview.Upstream, "the speech service did not send a WAV file")
		}
		return chars, nil
	})
	return out, err
}

// spend reserves amount of the user's daily allowance, runs work, and keeps
// only what work reports it used, failed or not (at most amount). Work that
// fails reports 0 unless the user's side used something: a provider outage
// or a refused file must not use up the user's day, an upload that stalled
// must. A limit of 0 means no allowance is kept.
func (s *Service) spend(ctx context.Context, userID string, r interview.VoiceResource, amount, limit int64, work func(context.Context) (used int64, err error)) error {
	if limit == 0 {
		_, err := work(ctx)
		return err
	}
	ok, wait, err := s.allowance.Spend(ctx, userID, r, amount, limit)
	if err != nil {
		return fmt.Errorf("voice allowance: %w", err)
	}
	if !ok {
		what := "speech"
		if r == interview.TranscribeBytes {
			what = "transcription"
		}
		return interview.Limited(wait, "today's %s allowance is used up; it resets at midnight UTC", what)
	}
	used, werr := work(ctx)
	if back := amount - min(max(used, 0), amount); back > 0 {
		// The request's context may be the reason work failed; the refund
		// still has to happen.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := s.allowance.Refund(rctx, userID, r, back); err != nil {
			if werr == nil {
				// The work is done and the user should have it; they lose
				// at most this reservation's unused part for today.
				server.LoggerFrom(ctx).Error("voice allowance refund failed", "resource", string(r), "err", err)
				return nil
			}
			return errors.Join(werr, fmt.Errorf("voice allowance refund: %w", err))
		}
	}
	return werr
}
