package httpapi_test

import (
	"crypto/rand"
	"crypto/rsa"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/account"
	"github.com/judgeworks/interview/internal/auth"
	"github.com/judgeworks/interview/internal/interviews"
)

// withCookie sends a request carrying a hand-made session cookie.
func withCookie(e *env, path, token string) response {
	e.t.Helper()
	c := e.client()
	req, _ := http.NewRequest("GET", e.srv.URL+path, nil)
	req.AddCookie(&http.Cookie{Name: "session", Value: token})
	resp, err := c.http.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return response{status: resp.StatusCode}
}

func TestBadSessionTokensAre401(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	var me struct {
		User struct {
			ID string `json:"_id"`
		} `json:"user"`
	}
	must(t, c.do("GET", "/api/auth/me", nil), http.StatusOK).json(t, &me)
	id := me.User.ID

	good, _ := auth.NewTokens(testSecret, "interview", time.Hour, nil)
	valid, _ := good.Issue(id)
	past, _ := auth.NewTokens(testSecret, "interview", time.Hour, func() time.Time { return time.Now().Add(-2 * time.Hour) })
	expired, _ := past.Issue(id)
	claims := jwt.RegisteredClaims{Subject: id, Issuer: "interview", ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))}
	hs384, _ := jwt.NewWithClaims(jwt.SigningMethodHS384, claims).SignedString(testSecret)
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, claims).SignedString(jwt.UnsafeAllowNoneSignatureType)
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	rs256, _ := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(key)
	other, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte("a different secret of enough length"))
	parts := strings.Split(valid, ".")
	sig := []byte(parts[2])
	sig[3] ^= 1
	tampered := parts[0] + "." + parts[1] + "." + string(sig)

	if r := withCookie(e, "/api/auth/me", valid); r.status != http.StatusOK {
		t.Fatalf("valid token refused: %d", r.status)
	}
	for name, tok := range map[string]string{
		"tampered": tampered, "expired": expired, "HS384": hs384, "alg none": none,
		"RS256": rs256, "other secret": other, "garbage": "abc",
	} {
		for _, path := range []string{"/api/auth/me", "/api/interview/history"} {
			if r := withCookie(e, path, tok); r.status != http.StatusUnauthorized {
				t.Errorf("%s on %s: %d, want 401", name, path, r.status)
			}
		}
	}
	// No cookie at all.
	anon := e.client()
	for _, p := range []struct{ method, path string }{
		{"GET", "/api/interview/history"}, {"POST", "/api/interview/start"}, {"POST", "/api/interview/answer"}, {"POST", "/api/interview/finish"}, {"GET", "/api/interview/x"},
	} {
		if code := must(t, anon.do(p.method, p.path, "{}"), http.StatusUnauthorized).errCode(t); code != "unauthenticated" {
			t.Fatalf("%s %s: %s", p.method, p.path, code)
		}
	}
}

func TestLoginFailureIsUniform(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	must(t, c.do("POST", "/api/auth/register", map[string]string{"fullName": "Bo", "email": "bo@example.com", "password": "password one"}), http.StatusCreated)
	wrongPassword := must(t, c.do("POST", "/api/auth/login", map[string]string{"email": "bo@example.com", "password": "password two"}), http.StatusUnauthorized)
	// Unknown email: the dummy-hash path.
	unknown := must(t, c.do("POST", "/api/auth/login", map[string]string{"email": "nobody@example.com", "password": "password two"}), http.StatusUnauthorized)
	malformed := must(t, c.do("POST", "/api/auth/login", map[string]string{"email": "not an email", "password": "x"}), http.StatusUnauthorized)
	if string(wrongPassword.body) != string(unknown.body) || string(unknown.body) != string(malformed.body) {
		t.Fatalf("bodies differ:\n%s\n%s\n%s", wrongPassword.body, unknown.body, malformed.body)
	}
	// The page shows the message as it comes: a sentence.
	var body struct{ Error struct{ Message string } }
	wrongPassword.json(t, &body)
	if body.Error.Message != "Email or password is incorrect." {
		t.Fatalf("message %q", body.Error.Message)
	}
	if wrongPassword.header.Get("Set-Cookie") != "" {
		t.Fatal("failed login set a cookie")
	}
	dup := must(t, c.do("POST", "/api/auth/register", map[string]string{"fullName": "Bo 2", "email": "BO@example.com", "password": "password three"}), http.StatusConflict)
	if dup.errCode(t) != "conflict" {
		t.Fatal("duplicate email not a conflict")
	}
}

func TestRegisterValidation(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	cases := []struct {
		name string
		body any
	}{
		{"not JSON", "{"},
		{"array", "[]"},
		{"wrong type", `{"fullName": 1, "email": "a@b.co", "password": "long enough"}`},
		{"empty name", map[string]string{"fullName": "  ", "email": "a@b.co", "password": "long enough"}},
		{"long name", map[string]string{"fullName": strings.Repeat("n", 101), "email": "a@b.co", "password": "long enough"}},
		{"bad email", map[string]string{"fullName": "A", "email": "a@", "password": "long enough"}},
		{"short password", map[string]string{"fullName": "A", "email": "a@b.co", "password": "1234567"}},
		{"long password", map[string]string{"fullName": "A", "email": "a@b.co", "password": strings.Repeat("p", 73)}},
		{"NUL in name", map[string]string{"fullName": "A\x00B", "email": "a@b.co", "password": "long enough"}},
		{"NUL in email", map[string]string{"fullName": "A", "email": "a\x00@b.co", "password": "long enough"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if code := must(t, c.do("POST", "/api/auth/register", tc.body), http.StatusBadRequest).errCode(t); code != "invalid_argument" {
				t.Fatalf("code %s", code)
			}
		})
	}
}

func TestStartAndAnswerValidation(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	ok := map[string]any{"candidateName": "A", "role": "R", "experience": "E", "difficulty": "easy", "totalQuestions": 1}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range ok {
			m[a] = b
		}
		m[k] = v
		return m
	}
	cases := []struct {
		name string
		body any
	}{
		{"no body", ""},
		{"empty candidate", with("candidateName", "")},
		{"blank role", with("role", "   ")},
		{"long experience", with("experience", strings.Repeat("e", 101))},
		{"NUL in role", with("role", "R\x00")},
		{"unknown difficulty", with("difficulty", "extreme")},
		{"zero questions", with("totalQuestions", 0)},
		{"too many questions", with("totalQuestions", 21)},
		{"fractional questions", with("totalQuestions", 2.5)},
		{"string questions", with("totalQuestions", "3")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if code := must(t, c.do("POST", "/api/interview/start", tc.body), http.StatusBadRequest).errCode(t); code != "invalid_argument" {
				t.Fatalf("code %s", code)
			}
		})
	}
	if e.iv.opens.Load() != 0 {
		t.Fatalf("interviewer asked %d times for invalid setups", e.iv.opens.Load())
	}
	s := c.start(2)
	for name, body := range map[string]map[string]string{
		"empty answer":   {"sessionId": s.SessionID, "questionId": "q1", "answer": " \n "},
		"long answer":    {"sessionId": s.SessionID, "questionId": "q1", "answer": strings.Repeat("a", 10001)},
		"no question id": {"sessionId": s.SessionID, "answer": "x"},
		"NUL in answer":  {"sessionId": s.SessionID, "questionId": "q1", "answer": "a\x00b"},
		"NUL in id":      {"sessionId": s.SessionID, "questionId": "q1\x00", "answer": "ab"},
	} {
		if code := must(t, c.do("POST", "/api/interview/answer", body), http.StatusBadRequest).errCode(t); code != "invalid_argument" {
			t.Fatalf("%s: %s", name, code)
		}
	}
	if r := must(t, c.answer(s.SessionID, "q2", "not yet asked"), http.StatusConflict); r.errCode(t) != "conflict" || !strings.Contains(string(r.body), "not the current question") {
		t.Fatalf("not yet asked: %s", r.body)
	}
	big := `{"sessionId": "` + strings.Repeat("x", 70<<10) + `"}`
	if code := must(t, c.do("POST", "/api/interview/finish", big), http.StatusRequestEntityTooLarge).errCode(t); code != "payload_too_large" {
		t.Fatal(code)
	}
	if e.iv.evals.Load() != 0 {
		t.Fatalf("%d evaluations of invalid answers", e.iv.evals.Load())
	}
}

func TestSQLMetacharactersStoredVerbatim(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	nasty := []string{`Robert'); DROP TABLE users;--`, `"; DELETE FROM interviews; --`, `\x00\\ $1 %_ ' '' E'\n'`, `ünïcødé ☃ 𝄞`}
	name := nasty[0]
	email := `o'brien+x%_$1{}@example.com`
	r := must(t, c.do("POST", "/api/auth/register", map[string]string{"fullName": name, "email": email, "password": `pa'ss"; --word`}), http.StatusCreated)
	if !strings.Contains(string(r.body), `Robert'); DROP TABLE users;--`) {
		t.Fatalf("name not verbatim: %s", r.body)
	}
	must(t, c.do("POST", "/api/auth/login", map[string]string{"email": email, "password": `pa'ss"; --word`}), http.StatusOK)
	var s started
	must(t, c.do("POST", "/api/interview/start", map[string]any{
		"candidateName": nasty[1], "role": nasty[2], "experience": nasty[3], "difficulty": "hard", "totalQuestions": 1,
	}), http.StatusCreated).json(t, &s)
	answer := strings.Join(nasty, " | ")
	must(t, c.answer(s.SessionID, s.Question.ID, answer), http.StatusOK)
	var sess sessionBody
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
	if sess.CandidateName != nasty[1] || sess.Role != nasty[2] || sess.Experience != nasty[3] || sess.QuestionResults[0].Answer != answer {
		t.Fatalf("not verbatim: %+v", sess)
	}
	var me struct {
		User struct {
			FullName, Email string
		} `json:"user"`
	}
	must(t, c.do("GET", "/api/auth/me", nil), http.StatusOK).json(t, &me)
	if me.User.FullName != name || me.User.Email != email {
		t.Fatalf("user %+v", me.User)
	}
}

func TestServiceEndpoints(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	must(t, c.do("GET", "/healthz", nil), http.StatusOK)
	must(t, c.do("GET", "/readyz", nil), http.StatusOK)
	var cfg struct {
		GoogleClientID string `json:"googleClientId"`
		Voice          struct {
			Transcribe, Speech bool
		} `json:"voice"`
		Mode              string         `json:"mode"`
		Limits            map[string]int `json:"limits"`
		Difficulties      []string       `json:"difficulties"`
		DefaultDifficulty string         `json:"defaultDifficulty"`
	}
	must(t, c.do("GET", "/api/config", nil), http.StatusOK).json(t, &cfg)
	if cfg.Mode != "fake" || cfg.GoogleClientID != "" {
		t.Fatalf("config %+v", cfg)
	}
	// The difficulty levels the page offers are the ones a start accepts,
	// easiest first, and the default is one of them.
	if !slices.Equal(cfg.Difficulties, interview.Difficulties()) || !slices.Contains(cfg.Difficulties, cfg.DefaultDifficulty) {
		t.Fatalf("config difficulties %v, default %q", cfg.Difficulties, cfg.DefaultDifficulty)
	}
	user := e.signUp()
	for _, d := range cfg.Difficulties {
		s := user.startWith(map[string]any{"difficulty": d, "totalQuestions": 1})
		must(t, user.do("DELETE", "/api/interview/"+s.SessionID, nil), http.StatusNoContent)
	}
	// The page's bounds are the service's own, and nothing else.
	want := map[string]int{
		"minQuestions": interviews.MinQuestions, "maxQuestions": interviews.MaxQuestions,
		"maxFollowUps": interviews.MaxFollowUps, "defaultFollowUps": interviews.DefaultFollowUps,
		"maxSetupText": interviews.MaxSetupChars, "minPassword": account.MinPasswordChars,
		"maxAnswer": interviews.MaxAnswerChars, "maxJobDescription": interviews.MaxJobDescription,
		"maxInProgress": interviews.DefaultLimits().MaxInProgress,
	}
	if !maps.Equal(cfg.Limits, want) {
		t.Fatalf("config limits %v, want %v", cfg.Limits, want)
	}
	if code := must(t, c.do("GET", "/api/no/such/thing", nil), http.StatusNotFound).errCode(t); code != "not_found" {
		t.Fatal(code)
	}
	if code := must(t, c.do("POST", "/healthz", nil), http.StatusMethodNotAllowed).errCode(t); code != "method_not_allowed" {
		t.Fatal(code)
	}
	if code := must(t, c.do("POST", "/api/auth/google", map[string]string{"credential": "x"}), http.StatusNotImplemented).errCode(t); code != "not_implemented" {
		t.Fatal(code)
	}
	m := must(t, c.do("GET", "/metrics", nil), http.StatusOK)
	if !strings.Contains(string(m.body), `interview_http_requests_total{method="GET",route="/api/config",status="200"} 1`) {
		t.Fatalf("metrics lack the config request:\n%s", m.body)
	}
	if r := c.do("GET", "/healthz", nil); r.header.Get("x-request-id") == "" {
		t.Fatal("no x-request-id")
	}
	e.pool.Close()
	if code := must(t, c.do("GET", "/readyz", nil), http.StatusServiceUnavailable).errCode(t); code != "unavailable" {
		t.Fatal(code)
	}
}
