package voice

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/judgeworks/interview"
)

// upstream calls the OpenAI-compatible audio endpoints with plain net/http:
// the transcription call is a multipart upload whose file part must carry
// our sniffed extension and MIME type, and the speech call returns raw audio
// bytes; both are simpler to control here than through an SDK, and the
// error bodies need our own reading anyway (terms-not-accepted, Retry-After).
type upstream struct {
	baseURL string
	apiKey  string
	client  *http.Client
	now     func() time.Time
}

// transcribe sends size bytes of audio to POST {base}/audio/transcriptions.
func (u *upstream) transcribe(ctx context.Context, model string, audio io.Reader, size int64, c Container) (string, error) {
	// The multipart envelope is built around the audio, which streams from
	// its temporary file: nothing holds the whole file in memory.
	var head, tail bytes.Buffer
	mw := multipart.NewWriter(&head)
	if err := mw.WriteField("model", model); err != nil {
		return "", err
	}
	if err := mw.WriteField("response_format", "json"); err != nil {
		return "", err
	}
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", `form-data; name="file"; filename="audio`+c.Ext+`"`)
	h.Set("Content-Type", c.MIME)
	if _, err := mw.CreatePart(h); err != nil {
		return "", err
	}
	// Close writes only the closing boundary; send it to its own buffer.
	closing := multipart.NewWriter(&tail)
	if err := closing.SetBoundary(mw.Boundary()); err != nil {
		return "", err
	}
	if err := closing.Close(); err != nil {
		return "", err
	}
	total := int64(head.Len()) + size + int64(tail.Len())
	body := io.MultiReader(&head, audio, &tail)
	resp, err := u.post(ctx, "/audio/transcriptions", mw.FormDataContentType(), body, total)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", u.failure(resp, model)
	}
	var out struct {
		Text *string `json:"text"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil || out.Text == nil {
		return "", interview.Wrap(fmt.Errorf("transcription reply: %v", err), interview.Upstream,
			"the transcription service answered in an unexpected format")
	}
	return strings.TrimSpace(*out.Text), nil
}

// speech asks POST {base}/audio/speech for a WAV. The bytes are returned as
// they came; the caller fixes and checks them.
func (u *upstream) speech(ctx context.Context, model, voice, text string) ([]byte, error) {
	req, err := json.Marshal(map[string]string{
		"model":           model,
		"voice":           voice,
		"input":           text,
		"response_format": "wav",
	})
	if err != nil {
		return nil, err
	}
	resp, err := u.post(ctx, "/audio/speech", "application/json", bytes.NewReader(req), int64(len(req)))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, u.failure(resp, model)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxSpeechWAV+1))
	if err != nil {
		return nil, interview.Wrap(err, interview.Upstream, "the speech service broke off its answer")
	}
	if len(b) > maxSpeechWAV {
		return nil, interview.Errorf(interview.Upstream, "the speech service sent more than %d MB", maxSpeechWAV>>20)
	}
	return b, nil
}

func (u *upstream) post(ctx context.Context, path, contentType string, body io.Reader, size int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(u.baseURL, "/")+path, body)
	if err != nil {
		return nil, interview.Wrap(err, interview.Upstream, "the voice service URL is invalid")
	}
	// A known length: some providers refuse chunked uploads.
	req.ContentLength = size
	req.Header.Set("Content-Type", contentType)
	if u.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+u.apiKey)
	}
	resp, err := u.client.Do(req)
	if err != nil {
		msg := "the voice service could not be reached"
		if ctx.Err() != nil {
			msg = "the voice service did not answer in time"
		}
		return nil, interview.Wrap(err, interview.Upstream, msg)
	}
	return resp, nil
}

// failure turns a provider's non-200 answer into the error the client
// sees. What the provider said goes to the log only, and redacted: see
// providerDetail.
func (u *upstream) failure(resp *http.Response, model string) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var body struct {
		Error struct {
			Message string          `json:"message"`
			Code    json.RawMessage `json:"code"`
			Type    string          `json:"type"`
		} `json:"error"`
	}
	_ = json.Unmarshal(raw, &body)
	var code string
	if err := json.Unmarshal(body.Error.Code, &code); err != nil {
		code = string(body.Error.Code)
	}
	cause := fmt.Errorf("voice provider status %d: %s", resp.StatusCode, providerDetail(resp.StatusCode, raw, u.apiKey))

	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		p := interview.Wrap(cause, interview.RateLimited, "the voice service is rate limited; try again shortly")
		p.RetryAfter = retryAfter(resp.Header, u.now())
		return p
	case termsRequired(resp.StatusCode, code, body.Error.Message):
		return interview.Wrap(cause, interview.Unavailable,
			fmt.Sprintf("the voice provider will not serve model %q until its terms are accepted in the provider's console", model))
	}
	return interview.Wrap(cause, interview.Upstream, fmt.Sprintf("the voice service failed (status %d)", resp.StatusCode))
}

// termsRequired recognises the "accept the model's terms first" refusal.
// Groq answers 400 with code model_terms_required; other providers say it
// in words, so a 400/403 whose message asks to accept terms counts too.
func termsRequired(status int, code, message string) bool {
	if code == "model_terms_required" {
		return true
	}
	if status != http.StatusBadRequest && status != http.StatusForbidden {
		return false
	}
	m := strings.ToLower(message)
	return strings.Contains(m, "terms") && strings.Contains(m, "accept")
}

// defaultRetryAfter is sent when the provider's 429 names no delay.
const defaultRetryAfter = 5 * time.Second

// retryAfter reads the provider's delay: Retry-After in seconds or as an
// HTTP date, or OpenAI's retry-after-ms.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < 86400 {
			return time.Duration(s * float64(time.Second))
		}
		if t, err := http.ParseTime(v); err == nil {
			if d := t.Sub(now); d > 0 && d < 24*time.Hour {
				return d
			}
			return time.Second
		}
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 86400e3 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	return defaultRetryAfter
}
