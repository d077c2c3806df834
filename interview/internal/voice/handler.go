package voice

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
// 64 KB body limit: uploads are bounded here, at 25 MiB, while reading.
// The upload route alone gets longer than the server's read and write
// timeouts (UploadReadTimeout, UploadWriteTimeout).
func (h *Handler) Register(e *echo.Echo) {
	e.POST("/api/voice/transcribe", h.Transcribe, server.Deadlines(UploadReadTimeout, UploadWriteTimeout))
	e.POST("/api/voice/speech", h.Speech)
}

// Transcribe handles POST /api/voice/transcribe: a multipart body with
// exactly one file part of at most 25 MiB and nothing else; 200 {text}.
// A body declared too large, an upload over the user's or the server's
// limit in flight, or over the daily allowance is refused (413, 429)
// before a byte of it is read.
func (h *Handler) Transcribe(c echo.Context) error {
	user, err := h.userID(c)
	if err != nil {
		return err
	}
	r := c.Request()
	// The route's read deadline, as server.Deadlines set it on entry.
	limit := time.Now().Add(UploadReadTimeout)
	text, err := h.svc.Transcribe(r.Context(), user, r.ContentLength, func(dst io.Writer) (Container, int64, error) {
		body := pace(c.Response(), r, h.svc.cfg.UploadGrace, limit)
		container, size, err := readUpload(c.Response(), r, dst)
		if err != nil && body.broken != nil {
			return Container{}, 0, &unfinished{err: err, received: body.n}
		}
		return container, size, err
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"text": text})
}

func errTooLarge() error {
	return interview.Errorf(interview.TooLarge, "the audio file is larger than %d MB", MaxUpload>>20)
}

// sniffLen is how much of a file Sniff needs: the longest signature ends
// at byte 12.
const sniffLen = 16

// readUpload copies the one audio file of a transcription request to dst
// and names its container. It refuses while reading: the body is capped at
// MaxBody and the file at MaxUpload+1 bytes, so a 26 MB upload is cut off
// at 25 MiB; the container is named from the file's first bytes, so a file
// that is not audio is refused before the rest is read. The whole body is
// read, so a second file or a stray field is refused before the provider
// sees anything.
func readUpload(w http.ResponseWriter, r *http.Request, dst io.Writer) (Container, int64, error) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return Container{}, 0, interview.Errorf(interview.Invalid, "send the audio as multipart/form-data with one file part")
	}
	var (
		container Container
		size      int64
		seen      bool
	)
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Container{}, 0, bodyError(err)
		}
		if part.FileName() == "" {
			return Container{}, 0, interview.Errorf(interview.Invalid,
				"unexpected form field %q: send only the audio file", cut(part.FormName(), 40))
		}
		if seen {
			return Container{}, 0, interview.Errorf(interview.Invalid, "send exactly one audio file, not several")
		}
		seen = true
		if container, size, err = copyAudio(dst, part); err != nil {
			return Container{}, 0, err
		}
	}
	if !seen {
		return Container{}, 0, interview.Errorf(interview.Invalid, "no audio file in the request")
	}
	return container, size, nil
}

// copyAudio sniffs the part's first bytes, then copies the part to dst.
func copyAudio(dst io.Writer, part *multipart.Part) (Container, int64, error) {
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(part, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return Container{}, 0, bodyError(err)
	}
	head = head[:n]
	if n == 0 {
		return Container{}, 0, interview.Errorf(interview.Invalid, "the audio file is empty")
	}
	container, ok := Sniff(head)
	if !ok {
		return Container{}, 0, interview.Errorf(interview.Unsupported,
			"the file is not audio this server accepts (webm, ogg, wav, mp4/m4a, mp3, flac)")
	}
	if _, err := dst.Write(head); err != nil {
		return Container{}, 0, fmt.Errorf("voice upload file: %w", err)
	}
	rest, err := copyPart(dst, io.LimitReader(part, MaxUpload+1-int64(n)))
	if err != nil {
		return Container{}, 0, err
	}
	size := int64(n) + rest
	if size > MaxUpload {
		return Container{}, 0, errTooLarge()
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
		return errTooLarge()
	case server.ReadTimedOut(err):
		return interview.Wrap(err, interview.Timeout, fmt.Sprintf("the upload stalled, or took longer than %s; try again, or a shorter recording", UploadReadTimeout))
	}
	return interview.Wrap(err, interview.Invalid, "the multipart body is malformed")
}

// Speech handles POST /api/voice/speech: {text} of 1 to 200 characters;
// 200 audio/wav.
func (h *Handler) Speech(c echo.Context) error {
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
	if n > MaxSpeechChars {
		return "", interview.Errorf(interview.Invalid,
			"text has %d characters; at most %d are spoken per request", n, MaxSpeechChars)
	}
	return text, nil
}
