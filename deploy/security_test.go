package deploy

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/deploy/harness"
)

// Secrets the security stack runs with. Each is distinctive, so finding it
// in a log line cannot be a coincidence.
const (
	secJudgeKey   = "sec-judge-key-7Hq2Vx9Lm4-at-least-32-chars"
	secLLMKey     = "sk-sec-provider-key-3Wd8Rt6Yp1"
	secJWTSecret  = "sec-jwt-secret-5Nf1Kc7Zb3-at-least-32-bytes"
	secDBPassword = "sec-db-password-9Gs4Jw2Ex8"
	secPassword   = "sec-user-password-6Bv3Mn5Qa"
	secWrongPass  = "sec-wrong-password-2Tc9Hy4Ud"
	secWrongKey   = "sec-wrong-judge-key-8Pk1Zr6Lw"
)

// secStack is the production-mode stack behind Caddy with every secret set
// and a fake provider for the language model, the judge's llm-latest and
// speech-to-text.
type secStack struct {
	*harness.Stack
	pg  *harness.Postgres
	llm *fakeLLM
}

func startSecStack(t *testing.T) *secStack {
	t.Helper()
	if testing.Short() {
		t.Skip("security suite: starts Postgres, both services and Caddy")
	}
	pg := startSuitePostgres(t, secDBPassword)
	llm := newFakeLLM(t)
	s := startSuiteStack(t, harness.Config{
		DatabaseURL: pg.URL,
		JudgeKeys:   secJudgeKey,
		JudgeEnv:    append(llmEnv(llm, secLLMKey), "JUDGE_LLM_READOUT=probabilities"),
		InterviewEnv: append(llmEnv(llm, secLLMKey), "APP_ENV=production", "JWT_SECRET="+secJWTSecret,
			"STT_MODEL=whisper-fake"),
	})
	return &secStack{Stack: s, pg: pg, llm: llm}
}

// send makes one request through Caddy with the given headers and returns
// the response with its body read.
func (s *secStack) send(t *testing.T, method, path string, header http.Header, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

func jsonHeader(session string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}}
	if session != "" {
		h.Set("Cookie", "session="+session)
	}
	return h
}

func jsonBody(v any) io.Reader {
	b, _ := json.Marshal(v)
	return bytes.NewReader(b)
}

// sessionCookie returns the session cookie a response set. The stack runs
// in production, so the cookie is Secure and a cookie jar would not send it
// over the test's plain HTTP; the tests send it by hand.
func sessionCookie(resp *http.Response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == "session" {
			return c
		}
	}
	return nil
}

// wantError checks the interview's pinned error body and its code.
func wantError(t *testing.T, what string, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if resp.StatusCode != status || json.Unmarshal(body, &e) != nil || e.Error.Code != code || e.Error.Message == "" {
		t.Errorf("%s: %d %s, want %d with code %s in the pinned error body", what, resp.StatusCode, body, status, code)
	}
}

// TestSecurityThroughCaddy runs the production-mode stack with known
// secrets and attacks it through the proxy: headers, cookie flags,
// cross-site form posts, hostile uploads; then reads every process's log
// for any secret it saw.
func TestSecurityThroughCaddy(t *testing.T) {
	s := startSecStack(t)

	// A victim account with a running interview; its session cookie is what
	// a cross-site request would carry in the worst case.
	email := "victim@example.com"
	resp, body := s.send(t, http.MethodPost, "/api/auth/register", jsonHeader(""),
		jsonBody(map[string]string{"fullName": "Victim", "email": email, "password": secPassword}))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d %s", resp.StatusCode, body)
	}
	cookie := sessionCookie(resp)
	if cookie == nil {
		t.Fatal("register set no session cookie")
	}
	session := cookie.Value
	resp, body = s.send(t, http.MethodPost, "/api/interview/start", jsonHeader(session), jsonBody(map[string]any{
		"candidateName": "Victim", "role": "Backend Engineer", "experience": "3 years", "difficulty": "medium", "totalQuestions": 2}))
	var started struct {
		SessionID string `json:"sessionId"`
		Question  struct {
			ID string `json:"id"`
		} `json:"question"`
	}
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &started) != nil || started.SessionID == "" {
		t.Fatalf("start: %d %s", resp.StatusCode, body)
	}

	t.Run("cookie flags", func(t *testing.T) {
		if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || !cookie.Secure || cookie.Path != "/" || cookie.MaxAge <= 0 {
			t.Errorf("session cookie through the proxy %+v: want HttpOnly, SameSite=Strict, Secure (production), Path=/, a Max-Age", cookie)
		}
		resp, body := s.send(t, http.MethodPost, "/api/auth/login", jsonHeader(""),
			jsonBody(map[string]string{"email": email, "password": secPassword}))
		c := sessionCookie(resp)
		if resp.StatusCode != http.StatusOK || c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || !c.Secure {
			t.Errorf("login: %d %s, cookie %+v", resp.StatusCode, body, c)
		}
		if c == nil {
			return
		}
		// Signing out ends that session (a copy of its token is refused),
		// not the account's others.
		resp, _ = s.send(t, http.MethodPost, "/api/auth/logout", jsonHeader(c.Value), nil)
		if cleared := sessionCookie(resp); resp.StatusCode != http.StatusNoContent || cleared == nil || cleared.MaxAge >= 0 || cleared.Value != "" {
			t.Errorf("logout: %d, cookie %+v: want 204 and the cookie cleared", resp.StatusCode, cleared)
		}
		if resp, body := s.send(t, http.MethodGet, "/api/auth/me", jsonHeader(c.Value), nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("a signed-out token: %d %s", resp.StatusCode, body)
		}
		if resp, body := s.send(t, http.MethodGet, "/api/auth/me", jsonHeader(session), nil); resp.StatusCode != http.StatusOK {
			t.Errorf("another session after a sign-out: %d %s", resp.StatusCode, body)
		}
	})

	t.Run("security headers", func(t *testing.T) {
		auth := http.Header{"Authorization": {"Bearer " + secJudgeKey}, "Content-Type": {"application/json"}}
		for _, tc := range []struct {
			method, path string
			header       http.Header
			body         any
			status       int
		}{
			{http.MethodGet, "/", nil, nil, http.StatusOK},
			{http.MethodGet, "/api/config", nil, nil, http.StatusOK},
			{http.MethodGet, "/api/auth/me", nil, nil, http.StatusUnauthorized},
			{http.MethodGet, "/api/no-such-thing", nil, nil, http.StatusNotFound},
			{http.MethodPost, "/v1/systemone", auth, noulRequest("local/lexical-latest"), http.StatusOK},
			{http.MethodPost, "/v1/systemone", auth, noulRequest("llm-latest"), http.StatusOK},
			{http.MethodGet, "/v1/models", nil, nil, http.StatusForbidden}, // no key: 403, as the hosted service answers
		} {
			var rd io.Reader
			if tc.body != nil {
				rd = jsonBody(tc.body)
			}
			resp, body := s.send(t, tc.method, tc.path, tc.header, rd)
			if resp.StatusCode != tc.status {
				t.Errorf("%s %s: %d %s, want %d", tc.method, tc.path, resp.StatusCode, body, tc.status)
			}
			checkSecurityHeaders(t, resp)
			if pp := resp.Header.Get("Permissions-Policy"); !strings.Contains(pp, "microphone=(self)") || !strings.Contains(pp, "camera=()") {
				t.Errorf("%s %s: Permissions-Policy %q", tc.method, tc.path, pp)
			}
		}
	})

	t.Run("cross-site form posts cannot act", func(t *testing.T) {
		stranger := "stranger@example.com"
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
			// What an HTML form on another site can send: a simple content
			// type, any body (JSON-looking text included), the victim's cookie
			// if a browser attached it, and the attacker's Origin.
			h := http.Header{"Content-Type": {ct}, "Origin": {"https://evil.example"}, "Cookie": {"session=" + session}}
			for _, tc := range []struct {
				path string
				body any
			}{
				{"/api/auth/register", map[string]string{"fullName": "Mallory", "email": stranger, "password": "mallory-password"}},
				{"/api/auth/login", map[string]string{"email": email, "password": secPassword}},
				{"/api/interview/answer", map[string]string{"sessionId": started.SessionID, "questionId": started.Question.ID, "answer": "planted by another site"}},
				{"/api/interview/finish", map[string]string{"sessionId": started.SessionID}},
			} {
				resp, body := s.send(t, http.MethodPost, tc.path, h, jsonBody(tc.body))
				wantError(t, ct+" "+tc.path, resp, body, http.StatusUnsupportedMediaType, "unsupported_media_type")
				if c := sessionCookie(resp); c != nil {
					t.Errorf("%s %s set a session cookie", ct, tc.path)
				}
			}
		}
		// Nothing happened: the interview has no answer and no report, and
		// the stranger's email is still free.
		resp, body := s.send(t, http.MethodGet, "/api/interview/"+started.SessionID, jsonHeader(session), nil)
		var sess struct {
			Status          string            `json:"status"`
			QuestionResults []json.RawMessage `json:"questionResults"`
			Report          json.RawMessage   `json:"report"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &sess) != nil {
			t.Fatalf("session: %d %s", resp.StatusCode, body)
		}
		if len(sess.QuestionResults) != 0 || (len(sess.Report) > 0 && string(sess.Report) != "null") {
			t.Errorf("a cross-site post acted on the interview: %s", body)
		}
		resp, body = s.send(t, http.MethodPost, "/api/auth/register", jsonHeader(""),
			jsonBody(map[string]string{"fullName": "Stranger", "email": stranger, "password": "stranger-password"}))
		if resp.StatusCode != http.StatusCreated {
			t.Errorf("a cross-site post registered %s: the real registration got %d %s", stranger, resp.StatusCode, body)
		}
	})

	t.Run("hostile uploads", func(t *testing.T) {
		upload := func(parts func(*multipart.Writer), cut bool) (*http.Response, []byte) {
			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			parts(mw)
			if !cut {
				_ = mw.Close()
			}
			h := http.Header{"Content-Type": {mw.FormDataContentType()}, "Cookie": {"session=" + session}}
			return s.send(t, http.MethodPost, "/api/voice/transcribe", h, &buf)
		}
		file := func(data []byte) func(*multipart.Writer) {
			return func(mw *multipart.Writer) {
				w, _ := mw.CreateFormFile("file", "answer.wav")
				_, _ = w.Write(data)
			}
		}
		// The fake provider answers, so a refusal is the service's own.
		wav := make([]byte, 4096)
		copy(wav, "RIFF\x00\x10\x00\x00WAVEfmt ")
		resp, body := upload(file(wav), false)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("a valid WAV upload: %d %s: the rest of this test would prove nothing", resp.StatusCode, body)
		}
		resp, body = upload(file([]byte("#!/bin/sh\nrm -rf / # not audio, named .wav\n")), false)
		wantError(t, "script named answer.wav", resp, body, http.StatusUnsupportedMediaType, "unsupported_media_type")
		resp, body = upload(file([]byte("<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>")), false)
		wantError(t, "SVG with a script", resp, body, http.StatusUnsupportedMediaType, "unsupported_media_type")
		resp, body = upload(file([]byte("RIF")), false)
		wantError(t, "file truncated inside its magic bytes", resp, body, http.StatusUnsupportedMediaType, "unsupported_media_type")
		resp, body = upload(file(wav), true)
		wantError(t, "multipart body cut off before its closing boundary", resp, body, http.StatusBadRequest, "invalid_argument")

		// 26 MiB: over the service's limit (25 MiB of file plus 64 KiB of
		// envelope) and the proxy's (26 MiB of body). Whichever refuses first,
		// the client gets 413; the service's answer has the pinned body.
		big, ct := audioBody(26 << 20)
		resp, body = s.send(t, http.MethodPost, "/api/voice/transcribe", http.Header{"Content-Type": {ct}, "Cookie": {"session=" + session}}, big)
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("26 MiB upload: %d %s, want 413", resp.StatusCode, body)
		} else if resp.Header.Get("x-request-id") != "" {
			wantError(t, "26 MiB upload, refused by the service", resp, body, http.StatusRequestEntityTooLarge, "payload_too_large")
		}
		t.Logf("26 MiB upload: 413 from the %s", map[bool]string{true: "service", false: "proxy"}[resp.Header.Get("x-request-id") != ""])
	})

	t.Run("no secret in any log line", func(t *testing.T) {
		// Requests that carry every secret: keys, passwords right and wrong,
		// the session token.
		auth := http.Header{"Authorization": {"Bearer " + secJudgeKey}, "Content-Type": {"application/json"}}
		if resp, body := s.send(t, http.MethodPost, "/v1/systemone", auth, jsonBody(noulRequest("llm-latest"))); resp.StatusCode != http.StatusOK {
			t.Errorf("judge with its key: %d %s", resp.StatusCode, body)
		}
		bad := http.Header{"Authorization": {"Bearer " + secWrongKey}, "Content-Type": {"application/json"}}
		if resp, _ := s.send(t, http.MethodPost, "/v1/systemone", bad, jsonBody(noulRequest("llm-latest"))); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("judge with a wrong key: %d", resp.StatusCode)
		}
		resp, body := s.send(t, http.MethodPost, "/api/auth/login", jsonHeader(""), jsonBody(map[string]string{"email": email, "password": secWrongPass}))
		wantError(t, "wrong password", resp, body, http.StatusUnauthorized, "unauthenticated")
		resp, body = s.send(t, http.MethodPost, "/api/auth/login", jsonHeader(""), jsonBody(map[string]string{"email": email, "password": secPassword}))
		if c := sessionCookie(resp); resp.StatusCode != http.StatusOK || c == nil {
			t.Fatalf("login: %d %s", resp.StatusCode, body)
		} else {
			session = c.Value
		}
		// An answer scored through the judge (interview → judge → provider,
		// each hop with its key) and a report.
		resp, body = s.send(t, http.MethodPost, "/api/interview/answer", jsonHeader(session), jsonBody(map[string]string{
			"sessionId": started.SessionID, "questionId": started.Question.ID, "answer": "A token bucket per key; my password is " + secPassword}))
		if resp.StatusCode != http.StatusOK {
			t.Errorf("answer: %d %s", resp.StatusCode, body)
		}
		if resp, body := s.send(t, http.MethodPost, "/api/interview/finish", jsonHeader(session), jsonBody(map[string]string{"sessionId": started.SessionID})); resp.StatusCode != http.StatusOK {
			t.Errorf("finish: %d %s", resp.StatusCode, body)
		}
		if n := len(s.llm.chatCalls()); n == 0 {
			t.Error("the provider was never called: the keys were not exercised")
		}
		for _, c := range s.llm.chatCalls() {
			if c.Auth != "Bearer "+secLLMKey {
				t.Fatalf("provider call with Authorization %q", c.Auth)
			}
		}

		logs := map[string]string{"postgres": s.pg.Output()}
		for _, p := range s.Procs() {
			logs[p.Name] = p.Output()
		}
		secrets := map[string]string{
			"JUDGE_API_KEYS": secJudgeKey, "LLM_API_KEY": secLLMKey, "JWT_SECRET": secJWTSecret,
			"database password": secDBPassword, "user password": secPassword, "wrong password": secWrongPass,
			"wrong judge key": secWrongKey, "session token": session,
		}
		lines := 0
		for name, out := range logs {
			for line := range strings.Lines(out) {
				lines++
				for what, secret := range secrets {
					if strings.Contains(line, secret) {
						t.Errorf("%s logged the %s: %s", name, what, line)
					}
				}
			}
		}
		// The check is only as good as the logs it read: every process must
		// have logged the requests above.
		for _, name := range []string{"judge", "interview", "caddy"} {
			if !strings.Contains(logs[name], "/v1/systemone") && !strings.Contains(logs[name], "/api/") {
				t.Errorf("%s logged no request line: the log capture is broken", name)
			}
		}
		t.Logf("read %d log lines from %d processes; none holds any of %d secrets", lines, len(logs), len(secrets))
	})
}
