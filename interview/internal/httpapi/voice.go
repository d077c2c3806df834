package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/voice"
	"github.com/judgeworks/shared/server"
)

// Limits of the upload route.
const (
	// UploadReadTimeout bounds reading one upload: 25 MiB in two minutes
	// needs about 1.8 Mbit/s; a recorded answer (1 to 3 MB) needs far less.
	// It replaces the server's 30 s read timeout on this route only.
	UploadReadTimeout = 2 * time.Minute
	// UploadWriteTimeout bounds the whole transcription request: the
	// upload, then the provider's voice.TranscribeTimeout, with room to
	// answer.
	UploadWriteTimeout = UploadReadTimeout + voice.TranscribeTimeout + 30*time.Second
	// maxSpeechBody bounds the JSON body of a speech request.
	maxSpeechBody = 16 << 10
)

// voiceHandler serves POST /api/voice/transcribe and POST /api/voice/speech
// for the voice service: it reads the upload or the text and writes the
// answer. userID reads the request's signed-in user.
type voiceHandler struct {
	svc    *voice.Service
	userID func(echo.Context) (string, error)
	// grace is the upload's UploadGrace; tests hold uploads longer.
	grace time.Duration
}

// register mounts the two routes on e. They stay outside the API group's
// 64 KB body limit: uploads are bounded here, at 25 MiB, while reading.
// The upload route alone gets longer than the server's read and write
// timeouts (UploadReadTimeout, UploadWriteTimeout).
func (h *voiceHandler) register(e *echo.Echo) {
	e.POST("/api/voice/transcribe", h.transcribe, server.Deadlines(UploadReadTimeout, UploadWriteTimeout))
	e.POST("/api/voice/speech", h.speech)
}

// transcribe handles POST /api/voice/transcribe: a multipart body with
// exactly one file part of at most 25 MiB and nothing else; 200 {text}.
// A body declared too large, an upload over the user's or the server's
// limit in flight, or over the daily allowance is refused (413, 429)
// before a byte of it is read.
func (h *voiceHandler) transcribe(c echo.Context) error {
	user, err := h.userID(c)
	if err != nil {
		return err
	}
	r := c.Request()
	// The route's read deadline, as server.Deadlines set it on entry.
	limit := time.Now().Add(UploadReadTimeout)
	text, err := h.svc.Transcribe(r.Context(), user, r.ContentLength, func(dst io.Writer) (voice.Container, int64, error) {
		body := pace(c.Response(), r, h.grace, limit)
		container, size, err := readUpload(c.Response(), r, dst)
		if err != nil && body.broken != nil {
			return voice.Container{}, 0, &voice.Unfinished{Err: err, Received: body.n}
		}
		return container, size, err
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"text": text})
}

// sniffLen is how much of a file Sniff needs: the longest signature ends
// at byte 12.
const sniffLen = 16

// readUpload copies the one audio file of a transcription request to dst
// and names its container. It refuses while reading: the body is capped at
// voice.MaxBody and the file at voice.MaxUpload+1 bytes, so a 26 MB upload is cut off
// at 25 MiB; the container is named from the file's first bytes, so a file
// that is not audio is refused before the rest is read. The whole body is
// read, so a second file or a stray field is refused before the provider
// sees anything.
func readUpload(w http.ResponseWriter, r *http.Request, dst io.Writer) (voice.Container, int64, error) {
	r.Body = http.MaxBytesReader(w, r.Body, voice.MaxBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return voice.Container{}, 0, interview.Errorf(interview.Invalid, "send the audio as multipart/form-data with one file part")
	}
	var (
		container voice.Container
		size      int64
		seen      bool
	)
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return voice.Container{}, 0, bodyError(err)
		}
		if part.FileName() == "" {
			return voice.Container{}, 0, interview.Errorf(interview.Invalid,
				"unexpected form field %q: send only the audio file", clip(part.FormName(), 40))
		}
		if seen {
			return voice.Container{}, 0, interview.Errorf(interview.Invalid, "send exactly one audio file, not several")
		}
		seen = true
		if container, size, err = copyAudio(dst, part); err != nil {
			return voice.Container{}, 0, err
		}
	}
	if !seen {
		return voice.Container{}, 0, interview.Errorf(interview.Invalid, "no audio file in the request")
	}
	return container, size, nil
}

// copyAudio sniffs the part's first bytes, then copies the part to dst.
func copyAudio(dst io.Writer, part *multipart.Part) (voice.Container, int64, error) {
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(part, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return voice.Container{}, 0, bodyError(err)
	}
	head = head[:n]
	if n == 0 {
		return voice.Container{}, 0, interview.Errorf(interview.Invalid, "the audio file is empty")
	}
	container, ok := voice.Sniff(head)
	if !ok {
		return voice.Container{}, 0, interview.Errorf(interview.Unsupported,
			"the file is not audio this server accepts (webm, ogg, wav, mp4/m4a, mp3, flac)")
	}
	if _, err := dst.Write(head); err != nil {
		return voice.Container{}, 0, fmt.Errorf("voice upload file: %w", err)
	}
	rest, err := copyPart(dst, io.LimitReader(part, voice.MaxUpload+1-int64(n)))
	if err != nil {
		return voice.Container{}, 0, err
	}
	size := int64(n) + rest
	if size > voice.MaxUpload {
		return voice.Container{}, 0, voice.ErrTooLarge
	}
	return container, size, nil
}

// copyPart copies src to dst telling a failed read (the client's fault,
// or its connection's) from a failed write (ours).
func copyPart(dst io.Writer, src io.Reader) (int64, error) {
	var written int64
	buf := make([]byte, 32<<10)
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			if _, err := dst.Write(buf[:n]); err != nil {
				return written, fmt.Errorf("voice upload file: %w", err)
			}
			written += int64(n)
		}
		if errors.Is(rerr, io.EOF) {
			return written, nil
		}
		if rerr != nil {
			return written, bodyError(rerr)
		}
	}
}

// bodyError names what went wrong reading the request body.
func bodyError(err error) error {
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &mb):
		return voice.ErrTooLarge
	case server.ReadTimedOut(err):
		return interview.Wrap(err, interview.Timeout, fmt.Sprintf("the upload stalled, or took longer than %s; try again, or a shorter recording", UploadReadTimeout))
	}
	return interview.Wrap(err, interview.Invalid, "the multipart body is malformed")
}

// speech handles POST /api/voice/speech: {text} of 1 to 200 characters;
// 200 audio/wav.
func (h *voiceHandler) speech(c echo.Context) error {
	user, err := h.userID(c)
	if err != nil {
		return err
	}
	if _, on := h.svc.Features(); !on {
		return interview.Errorf(interview.NotImplemented, "speech is not configured on this server")
	}
	text, err := readSpeechRequest(c.Request().Body)
	if err != nil {
		return err
	}
	audio, err := h.svc.Speak(c.Request().Context(), user, text)
	if err != nil {
		return err
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
		if server.ReadTimedOut(err) {
			return "", interview.Wrap(err, interview.Timeout, "the request body did not arrive in time")
		}
		return "", interview.Errorf(interview.Invalid, `send JSON {"text": "..."}`)
	}
	if dec.More() {
		return "", interview.Errorf(interview.Invalid, `send one JSON object {"text": "..."}`)
	}
	if req.Text == nil {
		return "", interview.Errorf(interview.Invalid, "text is required")
	}
	text := strings.TrimSpace(*req.Text)
	if !utf8.ValidString(text) {
		return "", interview.Errorf(interview.Invalid, "text is not valid UTF-8")
	}
	n := utf8.RuneCountInString(text)
	if n == 0 {
		return "", interview.Errorf(interview.Invalid, "text is empty")
	}
	if n > voice.MaxSpeechChars {
		return "", interview.Errorf(interview.Invalid,
			"text has %d characters; at most %d are spoken per request", n, voice.MaxSpeechChars)
	}
	return text, nil
}

// clip shortens s to at most n bytes without splitting a character, for
// quoting what a client sent.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// MinUploadRate is the slowest an upload may arrive once UploadGrace has
// passed: 8 KiB/s (64 kbit/s), below any connection that can send a
// recording. The pace holds over every stretch of the upload, not only on
// average since its start: bytes sent ahead of it count for at most
// UploadGrace, so a body that sends most of a file and then stalls or
// trickles loses its slot within seconds, however much it sent first,
// instead of holding it for UploadReadTimeout.
const (
	MinUploadRate = 8 << 10
	UploadGrace   = 10 * time.Second
)

// pacedBody is a request body that fails with the server's read timeout
// once it falls behind MinUploadRate: after each read the connection's read
// deadline moves to when the bytes so far stop covering the pace (never
// more than grace ahead, never past the route's own deadline, limit). Once
// the body is whole the deadline is lifted, since Go's server cancels a
// request whose connection fails a read even after its body, and the
// provider's answer may take longer than the pace allows.
type pacedBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	limit time.Time
	grace time.Duration
	due   time.Time
	// n counts the bytes read; broken is the read error that cut the body
	// short (a passed deadline, a client gone), nil while it arrives.
	n      int64
	broken error
}

// pace wraps r's body so that it must keep up with MinUploadRate (grace:
// UploadGrace unless positive) from now on, within limit.
func pace(w http.ResponseWriter, r *http.Request, grace time.Duration, limit time.Time) *pacedBody {
	if grace <= 0 {
		grace = UploadGrace
	}
	p := &pacedBody{ReadCloser: r.Body, rc: http.NewResponseController(w), limit: limit,
		grace: grace, due: time.Now().Add(grace)}
	p.setDeadline(p.due)
	r.Body = p
	return p
}

func (p *pacedBody) Read(b []byte) (int, error) {
	n, err := p.ReadCloser.Read(b)
	p.n += int64(n)
	switch {
	case err == nil:
		p.due = p.due.Add(time.Duration(n) * time.Second / MinUploadRate)
		if ahead := time.Now().Add(p.grace); p.due.After(ahead) {
			p.due = ahead
		}
		p.setDeadline(p.due)
	case errors.Is(err, io.EOF):
		_ = p.rc.SetReadDeadline(time.Time{})
	case p.broken == nil:
		p.broken = err
	}
	return n, err
}

func (p *pacedBody) setDeadline(d time.Time) {
	if d.After(p.limit) {
		d = p.limit
	}
	// Not supported only on a writer that is no connection (a test's
	// recorder): then the route's deadline alone applies.
	_ = p.rc.SetReadDeadline(d)
}
