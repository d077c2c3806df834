package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview/internal/httpapi"
	"github.com/judgeworks/interview/internal/postgres"
	"github.com/judgeworks/interview/internal/throttle"
)

// raw sends a request with exactly the given content type and headers.
func (c *client) raw(method, path, contentType, body string, header ...string) response {
	c.e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.e.srv.URL+path, rd)
	if err != nil {
		c.e.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: out}
}

func multipartBody(t *testing.T) (string, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, err := w.CreateFormFile("file", "a.wav")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte("RIFF....WAVE"))
	w.Close()
	return w.FormDataContentType(), buf.String()
}

// Every endpoint that acts for a user refuses a request without a valid
// session, before doing anything.
func TestProtectedEndpointsNeedASession(t *testing.T) {
	e := newEnv(t)
	owner := e.signUp()
	s := owner.start(2)
	mpType, mpBody := multipartBody(t)
	endpoints := []struct {
		method, path, contentType, body string
	}{
		{"GET", "/api/auth/me", "", ""},
		{"POST", "/api/interview/start", "application/json", `{"candidateName":"A","role":"r","experience":"e","difficulty":"easy","totalQuestions":1}`},
		{"GET", "/api/interview/" + s.SessionID, "", ""},
		{"POST", "/api/interview/answer", "application/json", fmt.Sprintf(`{"sessionId":%q,"questionId":"q1","answer":"x"}`, s.SessionID)},
		{"POST", "/api/interview/retry", "application/json", fmt.Sprintf(`{"sessionId":%q,"questionId":"q1","answer":"x"}`, s.SessionID)},
		{"POST", "/api/interview/finish", "application/json", fmt.Sprintf(`{"sessionId":%q}`, s.SessionID)},
		{"POST", "/api/interview/" + s.SessionID + "/share", "", ""},
		{"DELETE", "/api/interview/" + s.SessionID + "/share", "", ""},
		{"GET", "/api/interview/history", "", ""},
		{"GET", "/api/interview/families?role=Data%20analyst", "", ""},
		{"POST", "/api/voice/transcribe", mpType, mpBody},
		{"POST", "/api/voice/speech", "application/json", `{"text":"hello"}`},
	}
	cookies := []struct{ name, value string }{
		{"no cookie", ""},
		{"garbage", "session=not-a-token"},
		{"empty", "session="},
	}
	for _, ep := range endpoints {
		for _, ck := range cookies {
			t.Run(ep.method+" "+ep.path+" "+ck.name, func(t *testing.T) {
				c := e.client()
				var hdr []string
				if ck.value != "" {
					hdr = []string{"Cookie", ck.value}
				}
				r := c.raw(ep.method, ep.path, ep.contentType, ep.body, hdr...)
				if r.status != http.StatusUnauthorized || r.errCode(t) != "unauthenticated" {
					t.Fatalf("status %d body %s, want 401 unauthenticated", r.status, r.body)
				}
			})
		}
	}
	if e.iv.opens.Load() != 1 || e.iv.evals.Load() != 0 || e.iv.summaries.Load() != 0 {
		t.Fatalf("the interviewer was called without a session: opens %d evals %d summaries %d",
			e.iv.opens.Load(), e.iv.evals.Load(), e.iv.summaries.Load())
	}
}

// User B can reach nothing of user A's through any endpoint, and sees only
// their own data.
func TestPerUserIsolationOnEveryEndpoint(t *testing.T) {
	e := newEnv(t)
	a, b := e.signUp(), e.signUp()
	done := a.start(1)
	must(t, a.answer(done.SessionID, "q1", "A's finished answer"), http.StatusOK)
	must(t, a.do("POST", "/api/interview/finish", map[string]string{"sessionId": done.SessionID}), http.StatusOK)
	open := a.start(3)
	must(t, a.answer(open.SessionID, "q1", "A's open answer"), http.StatusOK)
	evals := e.iv.evals.Load()

	notFound := must(t, b.do("GET", "/api/interview/00000000-0000-4000-8000-000000000000", nil), http.StatusNotFound).body
	for _, id := range []string{done.SessionID, open.SessionID} {
		cases := []struct {
			name string
			do   func() response
		}{
			{"get", func() response { return b.do("GET", "/api/interview/"+id, nil) }},
			{"answer", func() response { return b.answer(id, "q2", "B's answer") }},
			{"answer with A's current question", func() response { return b.answer(id, "q1", "B's answer") }},
			{"second try at A's last question", func() response {
				return b.do("POST", "/api/interview/retry", map[string]string{"sessionId": id, "questionId": "q1", "answer": "B's try"})
			}},
			{"finish", func() response { return b.do("POST", "/api/interview/finish", map[string]string{"sessionId": id}) }},
			{"share", func() response { return b.do("POST", "/api/interview/"+id+"/share", nil) }},
			{"unshare", func() response { return b.do("DELETE", "/api/interview/"+id+"/share", nil) }},
		}
		for _, c := range cases {
			r := c.do()
			if r.status != http.StatusNotFound || string(r.body) != string(notFound) {
				t.Fatalf("%s of A's interview %s: %d %s, want the missing-interview 404", c.name, id, r.status, r.body)
			}
		}
	}
	if e.iv.evals.Load() != evals || e.iv.summaries.Load() != 1 {
		t.Fatal("B's requests reached the interviewer")
	}

	// B's own views hold only B's data.
	var me struct {
		User struct{ Email string } `json:"user"`
	}
	var ame struct {
		User struct{ Email string } `json:"user"`
	}
	must(t, b.do("GET", "/api/auth/me", nil), http.StatusOK).json(t, &me)
	must(t, a.do("GET", "/api/auth/me", nil), http.StatusOK).json(t, &ame)
	if me.User.Email == ame.User.Email {
		t.Fatal("B's session names A")
	}
	var hist []struct {
		ID string `json:"_id"`
	}
	must(t, b.do("GET", "/api/interview/history", nil), http.StatusOK).json(t, &hist)
	if len(hist) != 0 {
		t.Fatalf("B's history shows %v", hist)
	}
	mine := b.start(1)
	must(t, b.answer(mine.SessionID, "q1", "B's own"), http.StatusOK)
	must(t, b.do("POST", "/api/interview/finish", map[string]string{"sessionId": mine.SessionID}), http.StatusOK)
	must(t, b.do("GET", "/api/interview/history", nil), http.StatusOK).json(t, &hist)
	if len(hist) != 1 || hist[0].ID != mine.SessionID {
		t.Fatalf("B's history %v, want only %s", hist, mine.SessionID)
	}
	must(t, a.do("GET", "/api/interview/history", nil), http.StatusOK).json(t, &hist)
	if len(hist) != 1 || hist[0].ID != done.SessionID {
		t.Fatalf("A's history %v, want only %s", hist, done.SessionID)
	}
	// A's open interview is untouched and still A's to continue.
	var sess sessionBody
	must(t, a.do("GET", "/api/interview/"+open.SessionID, nil), http.StatusOK).json(t, &sess)
	if len(sess.QuestionResults) != 1 || sess.QuestionResults[0].Answer != "A's open answer" || sess.CurrentQuestion.ID != "q2" {
		t.Fatalf("A's interview changed: %+v", sess)
	}
	must(t, a.answer(open.SessionID, "q2", "A continues"), http.StatusOK)
}

// An HTML form on another site can send only form, multipart or text
// bodies; none of them is acted on, even with a session cookie attached.
func TestCrossSiteBodiesAreRefused(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	s := c.start(2)
	mpType, mpBody := multipartBody(t)
	forms := []struct{ contentType, body string }{
		{"text/plain", `{"sessionId":"` + s.SessionID + `","questionId":"q1","answer":"forged"}`},
		{"application/x-www-form-urlencoded", "sessionId=" + s.SessionID + "&questionId=q1&answer=forged"},
		{mpType, mpBody},
		{"", `{"sessionId":"` + s.SessionID + `"}`}, // a body without any type
	}
	paths := []string{"/api/auth/register", "/api/auth/login", "/api/auth/logout", "/api/auth/google",
		"/api/interview/start", "/api/interview/answer", "/api/interview/retry", "/api/interview/finish", "/api/voice/speech"}
	for _, p := range paths {
		for _, f := range forms {
			r := c.raw("POST", p, f.contentType, f.body)
			if r.status != http.StatusUnsupportedMediaType || r.errCode(t) != "unsupported_media_type" {
				t.Fatalf("POST %s as %q: %d %s, want 415", p, f.contentType, r.status, r.body)
			}
		}
	}
	// Nothing happened: still signed in, the question unanswered, no interviewer call.
	must(t, c.do("GET", "/api/auth/me", nil), http.StatusOK)
	var sess sessionBody
	must(t, c.do("GET", "/api/interview/"+s.SessionID, nil), http.StatusOK).json(t, &sess)
	if len(sess.QuestionResults) != 0 || e.iv.evals.Load() != 0 || e.iv.opens.Load() != 1 {
		t.Fatalf("a refused request acted: %+v, evals %d", sess, e.iv.evals.Load())
	}
	// JSON with parameters is JSON; a bodiless logout (what the page sends) passes.
	must(t, c.raw("POST", "/api/interview/answer", "application/json; charset=utf-8",
		`{"sessionId":"`+s.SessionID+`","questionId":"q1","answer":"real"}`), http.StatusOK)
	must(t, c.raw("POST", "/api/auth/logout", "", ""), http.StatusNoContent)
}

func TestCookieFlags(t *testing.T) {
	for _, production := range []bool{false, true} {
		t.Run(fmt.Sprintf("production=%v", production), func(t *testing.T) {
			e := newEnv(t, func(d *httpapi.Deps, _ *postgres.Store, _ *pgxpool.Pool) { d.SecureCookies = production })
			c := e.client()
			check := func(r response, cleared bool) {
				t.Helper()
				cookies := (&http.Response{Header: r.header}).Cookies()
				if len(cookies) != 1 || cookies[0].Name != httpapi.CookieName {
					t.Fatalf("cookies %v", cookies)
				}
				ck := cookies[0]
				if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" || ck.Secure != production {
					t.Fatalf("cookie %q: HttpOnly %v SameSite %v Path %q Secure %v", r.header.Get("Set-Cookie"), ck.HttpOnly, ck.SameSite, ck.Path, ck.Secure)
				}
				if cleared != (ck.Value == "" && ck.MaxAge < 0) {
					t.Fatalf("cookie %q: cleared %v", r.header.Get("Set-Cookie"), cleared)
				}
				if !cleared && (ck.MaxAge <= 0 || ck.Value == "") {
					t.Fatalf("session cookie without a value or lifetime: %q", r.header.Get("Set-Cookie"))
				}
			}
			creds := map[string]string{"fullName": "Flag Tester", "email": "flags@example.com", "password": "long enough password"}
			check(must(t, c.do("POST", "/api/auth/register", creds), http.StatusCreated), false)
			check(must(t, c.do("POST", "/api/auth/login", creds), http.StatusOK), false)
			check(must(t, c.do("POST", "/api/auth/logout", nil), http.StatusNoContent), true)
		})
	}
}

// throttledEnv trusts loopback as the proxy, so X-Forwarded-For names the
// client, as behind Caddy.
func throttledEnv(t *testing.T, proxies []*net.IPNet) *env {
	return newEnv(t, func(d *httpapi.Deps, _ *postgres.Store, pool *pgxpool.Pool) {
		d.Throttle = throttle.NewAuth(postgres.NewBuckets(pool), postgres.NewKnownDevices(pool), throttle.DefaultRules)
		d.TrustedProxies = proxies
	})
}

// ageBuckets makes every throttle bucket older by d, as the database's
// clock would after d.
func (e *env) ageBuckets(d time.Duration) {
	e.t.Helper()
	if _, err := e.pool.Exec(context.Background(),
		`UPDATE quota_buckets SET updated_at = updated_at - make_interval(secs => $1)`, d.Seconds()); err != nil {
		e.t.Fatal(err)
	}
}

// retryAfterNear fails unless r is a 429 whose Retry-After is want or, as
// time passed between the attempts, a little less.
func retryAfterNear(t *testing.T, r response, want time.Duration) {
	t.Helper()
	if r.status != http.StatusTooManyRequests || r.errCode(t) != "rate_limited" {
		t.Fatalf("%d %s, want rate_limited", r.status, r.body)
	}
	if got := retryAfter(t, r, want); got <= want-10*time.Second {
		t.Fatalf("Retry-After %v, want %v or a little less", got, want)
	}
}

func loopback(t *testing.T) []*net.IPNet {
	_, n, err := net.ParseCIDR("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	return []*net.IPNet{n}
}

func TestLoginThrottle(t *testing.T) {
	e := throttledEnv(t, loopback(t))
	owner, attacker := e.client(), e.client()
	home, away := "192.0.2.10", "203.0.113.66"
	creds := map[string]string{"fullName": "Owner", "email": "owner@example.com", "password": "correct horse battery"}
	jsonBody := func(m map[string]string) string {
		return fmt.Sprintf(`{"email":%q,"password":%q}`, m["email"], m["password"])
	}
	must(t, owner.raw("POST", "/api/auth/register", "application/json",
		`{"fullName":"Owner","email":"owner@example.com","password":"correct horse battery"}`, "X-Forwarded-For", home), http.StatusCreated)
	must(t, owner.raw("POST", "/api/auth/login", "application/json", jsonBody(creds), "X-Forwarded-For", home), http.StatusOK)

	wrong := map[string]string{"email": "owner@example.com", "password": "guess"}
	for i := range throttle.DefaultRules.LoginPerAccount.Burst {
		r := attacker.raw("POST", "/api/auth/login", "application/json", jsonBody(wrong), "X-Forwarded-For", away)
		if r.status != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d %s", i+1, r.status, r.body)
		}
	}
	r := attacker.raw("POST", "/api/auth/login", "application/json", jsonBody(wrong), "X-Forwarded-For", away)
	retryAfterNear(t, r, 30*time.Second)
	// Even the right password is refused from the attacker's address now:
	// a 429 says nothing about the guess.
	r = attacker.raw("POST", "/api/auth/login", "application/json", jsonBody(creds), "X-Forwarded-For", away)
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("right password from the throttled address: %d", r.status)
	}
	// The owner, at home, is not locked out.
	must(t, owner.raw("POST", "/api/auth/login", "application/json", jsonBody(creds), "X-Forwarded-For", home), http.StatusOK)
	// After the documented wait, one more guess.
	e.ageBuckets(30 * time.Second)
	must(t, attacker.raw("POST", "/api/auth/login", "application/json", jsonBody(wrong), "X-Forwarded-For", away), http.StatusUnauthorized)
	must(t, attacker.raw("POST", "/api/auth/login", "application/json", jsonBody(wrong), "X-Forwarded-For", away), http.StatusTooManyRequests)
}

// Without a trusted proxy, X-Forwarded-For is the client's own claim and
// is ignored: changing it does not buy fresh attempts.
func TestForwardedForFromUntrustedPeerIsIgnored(t *testing.T) {
	e := throttledEnv(t, nil)
	c := e.client()
	// Every guess names another address and another account, so only the
	// peer's own bucket can refuse: its burst passes, then it refuses. A
	// busy machine may refill a token or two (one per 6 s) while the
	// guesses are sent, so the refusal is looked for within twice the
	// burst, not at burst+1.
	burst := throttle.DefaultRules.LoginPerAddress.Burst
	for i := range 2 * burst {
		r := c.raw("POST", "/api/auth/login", "application/json",
			fmt.Sprintf(`{"email":"nobody%d@example.com","password":"guess"}`, i), "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i))
		if r.status == http.StatusUnauthorized {
			continue
		}
		if i < burst {
			t.Fatalf("guess %d, within the burst: %d", i+1, r.status)
		}
		retryAfterNear(t, r, 6*time.Second)
		return
	}
	t.Fatalf("%d guesses from one peer, each claiming another address, were never refused", 2*burst)
}

func TestRegisterThrottle(t *testing.T) {
	e := throttledEnv(t, loopback(t))
	reg := func(i int, addr string) response {
		return e.client().raw("POST", "/api/auth/register", "application/json",
			fmt.Sprintf(`{"fullName":"U %d","email":"reg%d@example.com","password":"long enough password"}`, i, i), "X-Forwarded-For", addr)
	}
	for i := range throttle.DefaultRules.RegisterPerAddress.Burst {
		must(t, reg(i, "203.0.113.5"), http.StatusCreated)
	}
	every := throttle.DefaultRules.RegisterPerAddress.Every
	retryAfterNear(t, reg(100, "203.0.113.5"), every)
	must(t, reg(101, "203.0.113.6"), http.StatusCreated)
	e.ageBuckets(every)
	must(t, reg(102, "203.0.113.5"), http.StatusCreated)
	// Six addresses cannot use up the service's registrations.
	for i := range 6 {
		for j := range 30 {
			reg(1000+100*i+j, fmt.Sprintf("198.51.100.%d", i))
		}
	}
	must(t, reg(2000, "192.0.2.200"), http.StatusCreated)
}

// Someone behind the owner's address (one NAT, or a proxy whose address
// was not made trusted) fails sign-ins with random emails and against the
// owner's account until everything from there is 429. The owner's correct
// password still signs in from the browser where they signed in before;
// the same password from a browser new to the account is refused, like
// the guesser's.
func TestOthersFailuresNeverRefuseTheOwnersPassword(t *testing.T) {
	e := throttledEnv(t, loopback(t))
	shared := "192.0.2.50"
	login := func(c *client, email, password string) response {
		return c.raw("POST", "/api/auth/login", "application/json",
			fmt.Sprintf(`{"email":%q,"password":%q}`, email, password), "X-Forwarded-For", shared)
	}
	owner := e.client()
	must(t, owner.raw("POST", "/api/auth/register", "application/json",
		`{"fullName":"Alice","email":"alice@example.com","password":"alice's password"}`, "X-Forwarded-For", shared), http.StatusCreated)
	guesser := e.client()
	refused := 0
	for i := range 25 {
		if login(guesser, fmt.Sprintf("random%d@example.com", i), "guess").status == http.StatusTooManyRequests {
			refused++
		}
		if login(guesser, "alice@example.com", "guess").status == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("50 failures from one address were never refused")
	}
	must(t, login(guesser, "alice@example.com", "alice's password"), http.StatusTooManyRequests)
	must(t, login(e.client(), "alice@example.com", "alice's password"), http.StatusTooManyRequests)
	for range 3 {
		must(t, login(owner, "alice@example.com", "alice's password"), http.StatusOK)
	}
	// The cookie that names the browser is the service's own, for sign-in only.
	r := must(t, login(owner, "alice@example.com", "alice's password"), http.StatusOK)
	var device string
	for _, v := range r.header.Values("Set-Cookie") {
		if strings.HasPrefix(v, httpapi.DeviceCookie+"=") {
			device = v
		}
	}
	for _, want := range []string{"Path=/api/auth/", "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(device, want) {
			t.Errorf("sign-in cookie %q lacks %s", device, want)
		}
	}
}
