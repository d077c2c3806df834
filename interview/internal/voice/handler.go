package voice

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/judgeworks/interview/internal/problem"
	"github.com/judgeworks/shared/server"
)

// Handler serves POST /api/voice/transcribe and POST /api/voice/speech. It
// must sit behind the service's session middleware; userID reads the
// signed-in user that middleware stored.
type Handler struct {
	svc    *Service
	userID func(echo.Context) (string, error)
}

// NewHandler returns the HTTP side of svc.
func NewHandler(svc *Service, userID func(echo.Context) (string, error)) *Handler {
	return &Handler{svc: svc, userID: userID}
}

// Register mounts the two routes on e. They stay outside the API group's
// 64 KB body limit: uploads are bounded here, at 25 MB, while reading.
func (h *Handler) Register(e *echo.Echo) {
	e.POST("/api/voice/transcribe", h.Transcribe)
	e.POST("/api/voice/speech", h.Speech)
}

// Transcribe handles POST /api/voice/transcribe: a multipart body with
// exactly one file part of at most 25 MB and nothing else; 200 {text}.
func (h *Handler) Transcribe(c echo.Context) error {
	user, err := h.userID(c)
	if err != nil {
		return err
	}
	if on, _ := h.svc.Features(); !on {
		return h.fail(c, errorf(KindDisabled, "transcription is not configured on this server"))
	}
	audio, err := readUpload(c.Response(), c.Request())
	if err != nil {
		return err
	}
	container, ok := Sniff(audio)
	if !ok {
		return problem.New(problem.Unsupported,
			"the file is not audio this server accepts (webm, ogg, wav, mp4/m4a, mp3, flac)")
	}
	text, err := h.svc.Transcribe(c.Request().Context(), user, audio, container)
	if err != nil {
		return h.fail(c, err)
	}
	return c.JSON(http.StatusOK, map[string]string{"text": text})
}

// readUpload reads the one audio file of a transcription request. It
// refuses while reading: the body is capped a little above MaxUpload, the
// file part at MaxUpload+1 bytes, so nothing beyond the limit is ever held
// and a 26 MB upload is cut off at 25 MB.
func readUpload(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	tooLarge := problem.New(problem.TooLarge, "the audio file is larger than %d MB", MaxUpload>>20)
	if r.ContentLength > MaxUpload+multipartSlack {
		return nil, tooLarge
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxUpload+multipartSlack)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, problem.New(problem.Invalid, "send the audio as multipart/form-data with one file part")
	}
	var audio []byte
	seen := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if isMaxBytes(err) {
				return nil, tooLarge
			}
			return nil, problem.New(problem.Invalid, "the multipart body is malformed")
		}
		if part.FileName() == "" {
			return nil, problem.New(problem.Invalid,
				"unexpected form field %q: send only the audio file", truncate(part.FormName(), 40))
		}
		if seen {
			return nil, problem.New(problem.Invalid, "send exactly one audio file, not several")
		}
		seen = true
		audio, err = readPart(part)
		if err != nil {
			if isMaxBytes(err) || errors.Is(err, errPartTooLarge) {
				return nil, tooLarge
			}
			return nil, problem.New(problem.Invalid, "the multipart body is malformed")
		}
	}
	if !seen {
		return nil, problem.New(problem.Invalid, "no audio file in the request")
	}
	if len(audio) == 0 {
		return nil, problem.New(problem.Invalid, "the audio file is empty")
	}
	return audio, nil
}

var errPartTooLarge = errors.New("file part over the limit")

func readPart(p *multipart.Part) ([]byte, error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(p, MaxUpload+1))
	if err != nil {
		return nil, err
	}
	if n > MaxUpload {
		return nil, errPartTooLarge
	}
	return buf.Bytes(), nil
}

func isMaxBytes(err error) bool {
	var mb *http.MaxBytesError
	return errors.As(err, &mb)
}

// Speech handles POST /api/voice/speech: {text} of 1 to 200 characters;
// 200 audio/wav.
func (h *Handler) Speech(c echo.Context) error {
	user, err := h.userID(c)
	if err != nil {
		return err
	}
	if _, on := h.svc.Features(); !on {
		return h.fail(c, errorf(KindDisabled, "speech is not configured on this server"))
	}
	text, err := readSpeechRequest(c.Request().Body)
	if err != nil {
		return err
	}
	audio, err := h.svc.Speak(c.Request().Context(), user, text)
	if err != nil {
		return h.fail(c, err)
	}
	// Every request synthesises afresh; the clip is for this page only.
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, "audio/wav", audio)
}

// readSpeechRequest decodes and checks {text}. Surrounding white space does
// not count towards the limit and is not spoken.
func readSpeechRequest(body io.Reader) (string, error) {
	var req struct {
		Text *string `json:"text"`
	}
	dec := json.NewDecoder(io.LimitReader(body, maxSpeechBody+1))
	if err := dec.Decode(&req); err != nil {
		return "", problem.New(problem.Invalid, `send JSON {"text": "..."}`)
	}
	if dec.More() {
		return "", problem.New(problem.Invalid, `send one JSON object {"text": "..."}`)
	}
	if req.Text == nil {
		return "", problem.New(problem.Invalid, "text is required")
	}
	text := strings.TrimSpace(*req.Text)
	if !utf8.ValidString(text) {
		return "", problem.New(problem.Invalid, "text is not valid UTF-8")
	}
	n := utf8.RuneCountInString(text)
	if n == 0 {
		return "", problem.New(problem.Invalid, "text is empty")
	}
	if n > MaxSpeechChars {
		return "", problem.New(problem.Invalid,
			"text has %d characters; at most %d are spoken per request", n, MaxSpeechChars)
	}
	return text, nil
}

// fail logs what the user is not shown and turns a voice error into the
// service's HTTP error.
func (h *Handler) fail(c echo.Context, err error) error {
	logFailure(server.Logger(c), err)
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	switch e.Kind {
	case KindDisabled:
		return problem.Wrap(err, problem.NotImplemented, e.Message)
	case KindRateLimited, KindAllowanceSpent:
		c.Response().Header().Set("Retry-After", RetryAfterSeconds(e.RetryAfter))
		return problem.Wrap(err, problem.RateLimited, e.Message)
	case KindTermsRequired:
		return problem.Wrap(err, problem.Unavailable, e.Message)
	}
	return problem.Wrap(err, problem.Upstream, e.Message)
}
