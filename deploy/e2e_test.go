package deploy

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/deploy/harness"
	"github.com/judgeworks/shared/pgtest"
	"github.com/judgeworks/shared/proctest"
)

func TestMain(m *testing.M) {
	os.Exit(proctest.Main(func() int { return pgtest.Main(m) }))
}

// stack is the judge and interview built from source and the real Caddy
// with deploy/Caddyfile in front, each on a free loopback port, with a fresh
// database: what `make run` starts, minus the terminal.
type stack struct {
	base  string // Caddy, e.g. http://127.0.0.1:41234
	caddy *proctest.Proc
}

// judgeKey is at least 32 characters: a judge with a language model refuses shorter keys.
const judgeKey = "e2e-key-0123456789abcdefghijklmnopqrstuv"

// startStack starts the stack on a fresh database of the shared test server;
// every process stops when t ends (see startSuiteStack).
func startStack(t *testing.T) *stack {
	t.Helper()
	s := startSuiteStack(t, harness.Config{DatabaseURL: pgtest.NewDatabase(t)})
	return &stack{base: s.URL, caddy: s.Caddy}
}

// call sends a JSON request and decodes a JSON answer into out (if non-nil).
func call(t *testing.T, c *http.Client, method, url string, header http.Header, body, out any) *http.Response {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %d, body is not the expected JSON: %v\n%s", method, url, resp.StatusCode, err, raw)
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	return resp
}

func wantStatus(t *testing.T, resp *http.Response, want int) {
	t.Helper()
	if resp.StatusCode != want {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: status %d, want %d\n%s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want, body)
	}
}

// checkSecurityHeaders asserts the headers the Caddyfile adds to every answer.
func checkSecurityHeaders(t *testing.T, resp *http.Response) {
	t.Helper()
	h := resp.Header
	where := resp.Request.URL.Path
	for k, v := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "strict-origin-when-cross-origin",
		"X-Frame-Options":        "DENY",
	} {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", where, k, got, v)
		}
	}
	csp := h.Get("Content-Security-Policy")
	for _, part := range []string{
		"default-src 'self'",
		"frame-ancestors 'none'",
		"script-src 'self' https://accounts.google.com/gsi/client",
		"frame-src https://accounts.google.com/gsi/",
		"connect-src 'self' https://accounts.google.com/gsi/",
		"https://accounts.google.com/gsi/style",
	} {
		if !strings.Contains(csp, part) {
			t.Errorf("%s: Content-Security-Policy %q lacks %q", where, csp, part)
		}
	}
	if s := h.Get("Server"); s != "" {
		t.Errorf("%s: Server header %q should be removed", where, s)
	}
}

func TestThroughCaddy(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: starts Postgres, both services and Caddy")
	}
	s := startStack(t)
	t.Run("judge", func(t *testing.T) { testJudge(t, s) })
	t.Run("interview", func(t *testing.T) { testInterview(t, s) })
	t.Run("page", func(t *testing.T) { testPage(t, s) })
	t.Run("upload", func(t *testing.T) { testUpload(t, s) })
	t.Run("access log", func(t *testing.T) { testAccessLog(t, s) })
}

func testJudge(t *testing.T, s *stack) {
	c := &http.Client{Timeout: 30 * time.Second}
	auth := http.Header{"Authorization": {"Bearer " + judgeKey}}
	req := map[string]any{
		"model": "local/lexical-latest",
		"state": "The card payment failed twice and I was charged double. Refund me now!",
		"questions": map[string]any{
			"refund": map[string]any{"type": "noul", "instructions": "Does the customer ask for a refund?"},
			"team": map[string]any{"type": "choice", "instructions": "Which team should handle this ticket?",
				"criteria": map[string]any{
					"billing":   "payments, charges, invoices and refunds",
					"technical": "bugs, crashes and error messages in the app",
				}},
		},
	}
	var got struct {
		Model   string `json:"model"`
		Answers map[string]struct {
			Type          string             `json:"type"`
			Noul          *float64           `json:"noul"`
			Choice        string             `json:"choice"`
			Probabilities map[string]float64 `json:"probabilities"`
		} `json:"answers"`
		Usage struct {
			InputTokens int `json:"input_tokens"`
		} `json:"usage"`
	}
	resp := call(t, c, http.MethodPost, s.base+"/v1/systemone", auth, req, &got)
	wantStatus(t, resp, http.StatusOK)
	checkSecurityHeaders(t, resp)
	if resp.Header.Get("x-request-id") == "" {
		t.Error("no x-request-id from the judge through Caddy")
	}
	if got.Model == "" || strings.HasSuffix(got.Model, "-latest") {
		t.Errorf("model %q: want the exact version behind the alias", got.Model)
	}
	if len(got.Answers) != 2 {
		t.Fatalf("answers %+v, want refund and team", got.Answers)
	}
	if a := got.Answers["refund"]; a.Type != "noul" || a.Noul == nil || *a.Noul < 0 || *a.Noul > 1 {
		t.Errorf("refund answer %+v", a)
	}
	team := got.Answers["team"]
	sum := 0.0
	for _, p := range team.Probabilities {
		sum += p
	}
	if team.Type != "choice" || (team.Choice != "billing" && team.Choice != "technical") || math.Abs(sum-1) > 1e-6 {
		t.Errorf("team answer %+v (probabilities sum %v)", team, sum)
	}
	if got.Usage.InputTokens <= 0 {
		t.Errorf("usage %+v", got.Usage)
	}

	// The judge's own errors pass the proxy unchanged.
	var e struct {
		Detail struct {
			ErrorType string `json:"error_type"`
			Message   string `json:"message"`
		} `json:"detail"`
	}
	resp = call(t, c, http.MethodPost, s.base+"/v1/systemone", nil, req, &e)
	wantStatus(t, resp, http.StatusForbidden) // no key: 403, as the hosted service answers
	if e.Detail.ErrorType != "authentication_error" || e.Detail.Message == "" {
		t.Errorf("403 body is not the System One error shape: %+v", e)
	}

	var models struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	wantStatus(t, call(t, c, http.MethodGet, s.base+"/v1/models", auth, nil, &models), http.StatusOK)
	if len(models.Models) == 0 {
		t.Error("GET /v1/models lists no models")
	}
}

// newUser registers a fresh account and returns a client holding its cookie.
func newUser(t *testing.T, s *stack) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar, Timeout: 60 * time.Second}
	var b [6]byte
	_, _ = rand.Read(b[:])
	email := "e2e-" + hex.EncodeToString(b[:]) + "@example.com"
	var reg struct {
		User struct {
			ID    string `json:"_id"`
			Email string `json:"email"`
		} `json:"user"`
	}
	resp := call(t, c, http.MethodPost, s.base+"/api/auth/register", nil,
		map[string]string{"fullName": "Ada Lovelace", "email": email, "password": "correct horse battery staple"}, &reg)
	wantStatus(t, resp, http.StatusCreated)
	if reg.User.ID == "" || reg.User.Email != email {
		t.Fatalf("register answered %+v", reg)
	}
	return c
}

func testInterview(t *testing.T, s *stack) {
	finishInterview(t, s)
}

// finishInterview registers a user who runs an interview of two questions
// to its report; it returns the user's client and the interview's id.
func finishInterview(t *testing.T, s *stack) (*http.Client, string) {
	t.Helper()
	c := newUser(t, s)
	var me struct {
		User struct {
			ID string `json:"_id"`
		} `json:"user"`
	}
	wantStatus(t, call(t, c, http.MethodGet, s.base+"/api/auth/me", nil, nil, &me), http.StatusOK)
	if me.User.ID == "" {
		t.Fatal("me: no user behind the session cookie")
	}

	const total = 2
	var started struct {
		SessionID string `json:"sessionId"`
		Welcome   string `json:"welcome"`
		Question  struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		} `json:"question"`
	}
	resp := call(t, c, http.MethodPost, s.base+"/api/interview/start", nil, map[string]any{
		"candidateName": "Ada", "role": "Backend Engineer", "experience": "3 years",
		"difficulty": "medium", "totalQuestions": total,
		// No follow-ups, so that each answer moves to the next main question
		// (follow-ups are walked through in the interview's API tests and
		// the browser test).
		"followUps": 0,
	}, &started)
	wantStatus(t, resp, http.StatusCreated)
	checkSecurityHeaders(t, resp)
	if started.SessionID == "" || started.Question.ID == "" || started.Question.Text == "" {
		t.Fatalf("start answered %+v", started)
	}

	q := started.Question
	for i := 1; i <= total; i++ {
		var ans struct {
			Evaluation struct {
				Score int `json:"score"`
			} `json:"evaluation"`
			NextQuestion *struct {
				ID   string `json:"id"`
				Text string `json:"text"`
			} `json:"nextQuestion"`
			IsLastQuestion bool `json:"isLastQuestion"`
		}
		resp := call(t, c, http.MethodPost, s.base+"/api/interview/answer", nil, map[string]any{
			"sessionId": started.SessionID, "questionId": q.ID,
			"answer": "I would start by measuring: add request tracing and look at the p99 latency per endpoint. " +
				"Then I would check the database for missing indexes with EXPLAIN ANALYZE, add caching where reads " +
				"dominate, and load test the change before rolling it out behind a feature flag.",
		}, &ans)
		wantStatus(t, resp, http.StatusOK)
		if ans.Evaluation.Score < 0 || ans.Evaluation.Score > 100 {
			t.Errorf("answer %d: score %d outside 0..100", i, ans.Evaluation.Score)
		}
		if last := i == total; ans.IsLastQuestion != last || (ans.NextQuestion == nil) != last {
			t.Fatalf("answer %d of %d: isLastQuestion %v, nextQuestion %+v", i, total, ans.IsLastQuestion, ans.NextQuestion)
		}
		if ans.NextQuestion != nil {
			q = *ans.NextQuestion
		}
	}

	var report struct {
		OverallScore    *int              `json:"overallScore"`
		ScoredQuestions int               `json:"scoredQuestions"`
		QuestionResults []json.RawMessage `json:"questionResults"`
		Feedback        string            `json:"feedback"`
	}
	wantStatus(t, call(t, c, http.MethodPost, s.base+"/api/interview/finish", nil,
		map[string]string{"sessionId": started.SessionID}, &report), http.StatusOK)
	// An answer that does not address its question is not scored, and a
	// report with nothing scored has no overall score (docs/api.md).
	switch {
	case report.OverallScore == nil && report.ScoredQuestions != 0:
		t.Errorf("report without an overall score, but %d answers scored", report.ScoredQuestions)
	case report.OverallScore != nil && (report.ScoredQuestions == 0 || *report.OverallScore < 0 || *report.OverallScore > 100):
		t.Errorf("report overallScore %d with %d answers scored", *report.OverallScore, report.ScoredQuestions)
	}
	if len(report.QuestionResults) != total || report.Feedback == "" {
		t.Errorf("report has %d question results and feedback %q", len(report.QuestionResults), report.Feedback)
	}

	var history []struct {
		ID string `json:"_id"`
	}
	wantStatus(t, call(t, c, http.MethodGet, s.base+"/api/interview/history", nil, nil, &history), http.StatusOK)
	if len(history) != 1 || history[0].ID != started.SessionID {
		t.Errorf("history %+v, want exactly the finished interview %s", history, started.SessionID)
	}
	return c, started.SessionID
}

var scriptSrc = regexp.MustCompile(`<script[^>]+src="(/[^"]+\.js)"`)

func testPage(t *testing.T, s *stack) {
	c := &http.Client{Timeout: 30 * time.Second}
	for _, path := range []string{"/", "/history"} {
		resp := call(t, c, http.MethodGet, s.base+path, nil, nil, nil)
		wantStatus(t, resp, http.StatusOK)
		checkSecurityHeaders(t, resp)
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("GET %s: Content-Type %q, want the web client's HTML", path, ct)
		}
	}
	resp := call(t, c, http.MethodGet, s.base+"/", nil, nil, nil)
	page, _ := io.ReadAll(resp.Body)
	m := scriptSrc.FindSubmatch(page)
	if m == nil {
		t.Fatalf("GET /: no module script in the page; is the web client built?\n%s", page)
	}

	// The app's script is large enough to be compressed; ask as a browser does.
	req, _ := http.NewRequest(http.MethodGet, s.base+string(m[1]), nil)
	req.Header.Set("Accept-Encoding", "zstd, gzip")
	raw, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Body.Close()
	n, _ := io.Copy(io.Discard, raw.Body)
	if raw.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", m[1], raw.StatusCode)
	}
	if enc := raw.Header.Get("Content-Encoding"); enc != "zstd" && enc != "gzip" {
		t.Errorf("GET %s (%d bytes on the wire): Content-Encoding %q, want zstd or gzip", m[1], n, enc)
	}

	// Unknown API paths stay JSON, not the app's HTML.
	resp = call(t, c, http.MethodGet, s.base+"/api/no-such-thing", nil, nil, nil)
	wantStatus(t, resp, http.StatusNotFound)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("GET /api/no-such-thing: Content-Type %q, want JSON", ct)
	}
}

// audioBody streams a multipart body with one WAV-looking file part of size
// bytes, so that 20 MB never sits in memory twice.
func audioBody(size int) (io.Reader, string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, err := mw.CreateFormFile("file", "answer.wav")
		if err == nil {
			// A RIFF/WAVE header with true sizes, then silence.
			hdr := make([]byte, 44)
			copy(hdr, "RIFF")
			putLE32(hdr[4:], uint32(size-8))
			copy(hdr[8:], "WAVEfmt ")
			putLE32(hdr[16:], 16)
			hdr[20], hdr[22] = 1, 1 // PCM, mono
			putLE32(hdr[24:], 16000)
			putLE32(hdr[28:], 32000)
			hdr[32], hdr[34] = 2, 16
			copy(hdr[36:], "data")
			putLE32(hdr[40:], uint32(size-44))
			if _, err = part.Write(hdr); err == nil {
				_, err = io.CopyN(part, zeros{}, int64(size-44))
			}
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	return pr, mw.FormDataContentType()
}

func putLE32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func testUpload(t *testing.T, s *stack) {
	c := newUser(t, s)
	post := func(size int) (*http.Response, []byte) {
		body, ct := audioBody(size)
		req, _ := http.NewRequest(http.MethodPost, s.base+"/api/voice/transcribe", body)
		req.Header.Set("Content-Type", ct)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("upload of %d bytes: %v", size, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}

	// 20 MB must reach the service. Without a speech-to-text model it
	// answers 501 (or another status of its own); a 413 would mean the proxy
	// cut the body off, and a proxy error has no JSON body.
	resp, body := post(20 << 20)
	if resp.StatusCode == http.StatusRequestEntityTooLarge || resp.StatusCode == http.StatusBadGateway {
		t.Fatalf("20 MB upload: %d from the proxy path, want the service's answer\n%s", resp.StatusCode, body)
	}
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if resp.StatusCode != http.StatusOK {
		if err := json.Unmarshal(body, &e); err != nil || e.Error.Code == "" {
			t.Fatalf("20 MB upload: %d without the service's error body: %q", resp.StatusCode, body)
		}
	}
	if resp.Header.Get("x-request-id") == "" {
		t.Error("20 MB upload: the answer did not come from the service (no x-request-id)")
	}
	t.Logf("20 MB upload: the service answered %d %s", resp.StatusCode, e.Error.Code)
}

// testAccessLog checks that Caddy wrote JSON access log lines for the
// requests above to stdout.
func testAccessLog(t *testing.T, s *stack) {
	found := false
	for line := range strings.Lines(s.caddy.Output()) {
		var entry struct {
			Logger  string `json:"logger"`
			Status  int    `json:"status"`
			Request struct {
				URI    string `json:"uri"`
				Method string `json:"method"`
			} `json:"request"`
		}
		if json.Unmarshal([]byte(line), &entry) != nil || !strings.HasPrefix(entry.Logger, "http.log.access") {
			continue
		}
		if entry.Request.Method == http.MethodPost && entry.Request.URI == "/v1/systemone" && entry.Status == http.StatusOK {
			found = true
		}
	}
	if !found {
		t.Errorf("no JSON access log line for POST /v1/systemone 200 in Caddy's output (its end is shown below)")
	}
}

// TestCaddyBodyLimit runs deploy/Caddyfile in front of an upstream that reads
// every byte, so that the proxy's own limit is what is measured: the service
// in the end-to-end test may answer before reading a body at all.
func TestCaddyBodyLimit(t *testing.T) {
	caddyBin, err := exec.LookPath("caddy")
	if err != nil {
		t.Fatal("caddy is not installed: run make deps")
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil {
			// The proxy cut the body off; what the client sees is Caddy's answer.
			return
		}
		fmt.Fprint(w, n)
	}))
	defer upstream.Close()
	work := t.TempDir()
	port, err := proctest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	proctest.Run(t, proctest.Cmd{Name: "caddy", Path: caddyBin, Dir: work,
		Args: []string{"run", "--config", filepath.Join(repoRoot(t), "deploy/Caddyfile"), "--adapter", "caddyfile"},
		Env: append(proctest.BaseEnv(work), fmt.Sprintf("CADDY_ADDR=:%d", port),
			"JUDGE_UPSTREAM="+strings.TrimPrefix(upstream.URL, "http://"),
			"INTERVIEW_UPSTREAM="+strings.TrimPrefix(upstream.URL, "http://"))}, base+"/healthz")

	const mib = 1 << 20
	for _, tc := range []struct {
		name   string
		path   string
		size   int64
		status int
	}{
		{"20 MB upload passes", "/api/voice/transcribe", 20 * mib, http.StatusOK},
		{"25 MiB file plus multipart framing passes", "/api/voice/transcribe", 25*mib + 4096, http.StatusOK},
		{"judge path has the same limit", "/v1/systemone", 25 * mib, http.StatusOK},
		{"40 MB is refused by the proxy", "/api/voice/transcribe", 40 * mib, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, base+tc.path, io.LimitReader(zeros{}, tc.size))
			req.ContentLength = -1 // chunked, as a streaming browser upload may be
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("%d bytes: status %d, want %d (%s)", tc.size, resp.StatusCode, tc.status, body)
			}
			if tc.status == http.StatusOK && string(body) != fmt.Sprint(tc.size) {
				t.Errorf("upstream received %s bytes, want %d", body, tc.size)
			}
		})
	}
}
