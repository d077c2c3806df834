package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/interview/internal/auth"
	"github.com/judgeworks/interview/internal/interviews"
)

type meBody struct {
	User struct {
		ID          string `json:"_id"`
		Email       string `json:"email"`
		HasPassword bool   `json:"hasPassword"`
	} `json:"user"`
}

func (c *client) me() meBody {
	c.e.t.Helper()
	var m meBody
	must(c.e.t, c.do("GET", "/api/auth/me", nil), http.StatusOK).json(c.e.t, &m)
	return m
}

// clearsCookie reports whether r tells the browser to drop the session.
func clearsCookie(r response) bool {
	for _, v := range r.header.Values("Set-Cookie") {
		if strings.HasPrefix(v, "session=;") && strings.Contains(v, "Max-Age=0") {
			return true
		}
	}
	return false
}

// Someone registers the victim's email first and keeps the cookie. When
// the owner signs in with Google, the account is linked to them: the
// squatter's session must end there, not seven days later.
func TestGoogleLinkingRevokesTheSquattersSession(t *testing.T) {
	e, sign := googleEnv(t)
	squatter := e.client()
	must(t, squatter.do("POST", "/api/auth/register", map[string]string{"fullName": "Squatter", "email": "victim@example.com", "password": "squatter password"}), http.StatusCreated)
	if !squatter.me().User.HasPassword {
		t.Fatal("a password account says it has no password")
	}
	kept := sessionToken(t, e, squatter)

	owner := e.client()
	must(t, owner.do("POST", "/api/auth/google", map[string]string{"credential": sign("g-victim", "victim@example.com", true)}), http.StatusOK)
	if m := owner.me(); m.User.Email != "victim@example.com" || m.User.HasPassword {
		t.Fatalf("owner after linking: %+v", m.User)
	}

	r := must(t, squatter.do("GET", "/api/auth/me", nil), http.StatusUnauthorized)
	if r.errCode(t) != "unauthenticated" || !clearsCookie(r) {
		t.Fatalf("squatter's refusal %s, cookie cleared %v", r.body, clearsCookie(r))
	}
	// A squatter who kept a copy of the token gets nowhere with it either.
	replay := e.client()
	setToken(e, replay, kept)
	must(t, replay.do("POST", "/api/interview/start", map[string]any{
		"candidateName": "S", "role": "r", "experience": "e", "difficulty": "easy", "totalQuestions": 1,
	}), http.StatusUnauthorized)
	must(t, replay.do("GET", "/api/interview/history", nil), http.StatusUnauthorized)
	owner.me()
}

// sessionToken returns the session token in c's jar.
func sessionToken(t *testing.T, e *env, c *client) string {
	t.Helper()
	u, _ := url.Parse(e.srv.URL)
	for _, ck := range c.http.Jar.Cookies(u) {
		if ck.Name == "session" {
			return ck.Value
		}
	}
	t.Fatal("no session cookie")
	return ""
}

// setToken puts a session token of the test's making into c's jar.
func setToken(e *env, c *client, token string) {
	u, _ := url.Parse(e.srv.URL)
	c.http.Jar.SetCookies(u, []*http.Cookie{{Name: "session", Value: token, Path: "/"}})
}

func TestPasswordChangeRevokesOtherSessions(t *testing.T) {
	e := newEnv(t)
	here := e.client()
	must(t, here.do("POST", "/api/auth/register", map[string]string{"fullName": "Pat", "email": "pat@example.com", "password": "first password"}), http.StatusCreated)
	there := e.client()
	must(t, there.do("POST", "/api/auth/login", map[string]string{"email": "pat@example.com", "password": "first password"}), http.StatusOK)
	stolen := sessionToken(t, e, there)
	before := sessionToken(t, e, here)

	// A wrong current password is 403: the session is fine, the proof is not.
	r := must(t, here.do("POST", "/api/auth/password", map[string]string{"currentPassword": "wrong password", "newPassword": "second password"}), http.StatusForbidden)
	if r.errCode(t) != "permission_denied" {
		t.Fatalf("wrong current password: %s", r.body)
	}
	must(t, here.do("POST", "/api/auth/password", map[string]string{"currentPassword": "first password", "newPassword": "short"}), http.StatusBadRequest)
	must(t, there.do("GET", "/api/auth/me", nil), http.StatusOK) // nothing changed yet

	r = must(t, here.do("POST", "/api/auth/password", map[string]string{"currentPassword": "first password", "newPassword": "second password"}), http.StatusNoContent)
	if !strings.Contains(r.header.Get("Set-Cookie"), "session=") || sessionToken(t, e, here) == before {
		t.Fatalf("this session's cookie was not reissued: %q", r.header.Get("Set-Cookie"))
	}
	here.me() // this session stays valid
	must(t, there.do("GET", "/api/auth/me", nil), http.StatusUnauthorized)
	other := e.client()
	setToken(e, other, stolen)
	must(t, other.do("GET", "/api/interview/history", nil), http.StatusUnauthorized)
	setToken(e, other, before) // this session's own old token is revoked too
	must(t, other.do("GET", "/api/auth/me", nil), http.StatusUnauthorized)

	must(t, e.client().do("POST", "/api/auth/login", map[string]string{"email": "pat@example.com", "password": "first password"}), http.StatusUnauthorized)
	must(t, e.client().do("POST", "/api/auth/login", map[string]string{"email": "pat@example.com", "password": "second password"}), http.StatusOK)
}

func TestGoogleOnlyAccountHasNoPasswordToChange(t *testing.T) {
	e, sign := googleEnv(t)
	g := e.client()
	must(t, g.do("POST", "/api/auth/google", map[string]string{"credential": sign("g-7", "g7@example.com", true)}), http.StatusOK)
	r := must(t, g.do("POST", "/api/auth/password", map[string]string{"currentPassword": "", "newPassword": "a new password"}), http.StatusBadRequest)
	if !strings.Contains(string(r.body), "Google") {
		t.Fatalf("refusal %s does not say why", r.body)
	}
	g.me()
}

func TestLogoutAllRevokesEverySession(t *testing.T) {
	e := newEnv(t)
	a := e.client()
	must(t, a.do("POST", "/api/auth/register", map[string]string{"fullName": "Lou", "email": "lou@example.com", "password": "lou password"}), http.StatusCreated)
	b := e.client()
	must(t, b.do("POST", "/api/auth/login", map[string]string{"email": "lou@example.com", "password": "lou password"}), http.StatusOK)
	aToken := sessionToken(t, e, a)
	bystander := e.signUp()

	r := must(t, b.do("POST", "/api/auth/logout-all", nil), http.StatusNoContent)
	if !clearsCookie(r) {
		t.Fatalf("logout-all kept this cookie: %v", r.header.Values("Set-Cookie"))
	}
	must(t, a.do("GET", "/api/auth/me", nil), http.StatusUnauthorized)
	must(t, b.do("GET", "/api/auth/me", nil), http.StatusUnauthorized)
	replay := e.client()
	setToken(e, replay, aToken)
	must(t, replay.do("GET", "/api/auth/me", nil), http.StatusUnauthorized)
	bystander.me() // another user's sessions are untouched

	// Signing in again gives a session at the new version.
	must(t, a.do("POST", "/api/auth/login", map[string]string{"email": "lou@example.com", "password": "lou password"}), http.StatusOK)
	a.me()
	must(t, e.client().do("POST", "/api/auth/logout-all", nil), http.StatusUnauthorized)
}

func TestDeleteAccountRemovesItsInterviews(t *testing.T) {
	e := newEnv(t)
	c := e.signUp()
	id := c.me().User.ID
	done := c.start(1)
	must(t, c.answer(done.SessionID, "q1", "an answer"), http.StatusOK)
	must(t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": done.SessionID}), http.StatusOK)
	c.start(2)
	other := e.signUp()
	kept := other.start(2)

	r := must(t, c.do("DELETE", "/api/auth/me", map[string]string{"password": "not my password"}), http.StatusForbidden)
	if r.errCode(t) != "permission_denied" {
		t.Fatalf("wrong password: %s", r.body)
	}
	must(t, c.do("DELETE", "/api/auth/me", nil), http.StatusForbidden) // no password at all
	c.me()

	r = must(t, c.do("DELETE", "/api/auth/me", map[string]string{"password": "long enough password"}), http.StatusNoContent)
	if !clearsCookie(r) {
		t.Fatal("the cookie of a deleted account was kept")
	}
	ctx := context.Background()
	var users, ivs int
	if err := e.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM users WHERE id = $1), (SELECT count(*) FROM interviews WHERE user_id = $1)`, id).Scan(&users, &ivs); err != nil {
		t.Fatal(err)
	}
	if users != 0 || ivs != 0 {
		t.Fatalf("after deletion: %d users, %d interviews left", users, ivs)
	}
	must(t, c.do("GET", "/api/auth/me", nil), http.StatusUnauthorized)
	// Another user's interview is untouched.
	must(t, other.do("GET", "/api/interview/"+kept.SessionID, nil), http.StatusOK)
}

// A Google-only account has no password to ask for: deleting it needs a
// sign-in within the last ten minutes.
func TestDeleteGoogleAccountNeedsRecentSignIn(t *testing.T) {
	e, sign := googleEnv(t)
	old := e.client()
	must(t, old.do("POST", "/api/auth/google", map[string]string{"credential": sign("g-old", "old@example.com", true)}), http.StatusOK)
	id := old.me().User.ID
	tokens, err := auth.NewTokens(testSecret, "interview", time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	stale, err := tokens.IssueSession(auth.Session{Subject: id, AuthTime: time.Now().Add(-11 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	setToken(e, old, stale)
	r := must(t, old.do("DELETE", "/api/auth/me", nil), http.StatusForbidden)
	if r.errCode(t) != "permission_denied" || !strings.Contains(string(r.body), "10 minutes") {
		t.Fatalf("stale sign-in: %s", r.body)
	}
	old.me() // still signed in

	fresh := e.client()
	must(t, fresh.do("POST", "/api/auth/google", map[string]string{"credential": sign("g-old", "old@example.com", true)}), http.StatusOK)
	must(t, fresh.do("DELETE", "/api/auth/me", nil), http.StatusNoContent)
	must(t, old.do("GET", "/api/auth/me", nil), http.StatusUnauthorized)
}

func TestAccountEndpointsNeedASession(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	for _, r := range []response{
		c.do("POST", "/api/auth/password", map[string]string{"currentPassword": "x", "newPassword": "long enough"}),
		c.do("POST", "/api/auth/logout-all", nil),
		c.do("DELETE", "/api/auth/me", map[string]string{"password": "x"}),
		c.do("GET", "/api/interview/active", nil),
		c.do("DELETE", "/api/interview/00000000-0000-4000-8000-000000000000", nil),
	} {
		must(t, r, http.StatusUnauthorized)
	}
}

// A plain sign-out ends that session: the token stops working at once, a
// copy of it taken before included, on every replica; the account's other
// sessions stay.
func TestLogoutRevokesThisSession(t *testing.T) {
	e := newEnv(t)
	here := e.client()
	must(t, here.do("POST", "/api/auth/register", map[string]string{"fullName": "Sam", "email": "sam@example.com", "password": "sam password"}), http.StatusCreated)
	there := e.client()
	must(t, there.do("POST", "/api/auth/login", map[string]string{"email": "sam@example.com", "password": "sam password"}), http.StatusOK)
	copied := sessionToken(t, e, here)
	replica := serveEnv(t, e.pool, nil, nil, interviews.DefaultLimits())

	r := must(t, here.do("POST", "/api/auth/logout", nil), http.StatusNoContent)
	if !clearsCookie(r) {
		t.Fatalf("logout kept the cookie: %v", r.header.Values("Set-Cookie"))
	}
	for _, en := range []*env{e, replica} {
		thief := en.client()
		setToken(en, thief, copied)
		r := must(t, thief.do("GET", "/api/auth/me", nil), http.StatusUnauthorized)
		if r.errCode(t) != "unauthenticated" || !clearsCookie(r) {
			t.Fatalf("a signed-out token: %s", r.body)
		}
		must(t, thief.do("GET", "/api/interview/history", nil), http.StatusUnauthorized)
	}
	there.me() // the other session is untouched
	// Signing out again, or without a session, is still 204.
	must(t, here.do("POST", "/api/auth/logout", nil), http.StatusNoContent)
	must(t, e.client().do("POST", "/api/auth/logout", nil), http.StatusNoContent)
	must(t, here.do("POST", "/api/auth/login", map[string]string{"email": "sam@example.com", "password": "sam password"}), http.StatusOK)
	here.me()
}

// Someone registers the owner's email with a password (never verified),
// renames the account, practises and shares a report. When the owner signs
// in with Google, the account starts clean: none of it is theirs.
func TestGoogleLinkingStartsClean(t *testing.T) {
	e, sign := googleEnv(t)
	squatter := e.client()
	must(t, squatter.do("POST", "/api/auth/register", map[string]string{"fullName": "Planted Name", "email": "owner@example.com", "password": "squatter password"}), http.StatusCreated)
	done, token := squatter.sharedReport()
	pending := squatter.start(2)

	owner := e.client()
	var u struct {
		User struct {
			FullName string `json:"fullName"`
		} `json:"user"`
	}
	must(t, owner.do("POST", "/api/auth/google", map[string]string{"credential": sign("g-owner", "owner@example.com", true)}), http.StatusOK).json(t, &u)
	if u.User.FullName != "G User" {
		t.Fatalf("the owner's name is %q, want Google's", u.User.FullName)
	}
	var history, active []map[string]any
	must(t, owner.do("GET", "/api/interview/history", nil), http.StatusOK).json(t, &history)
	must(t, owner.do("GET", "/api/interview/active", nil), http.StatusOK).json(t, &active)
	if len(history) != 0 || len(active) != 0 {
		t.Fatalf("the owner inherited %d finished and %d pending interviews", len(history), len(active))
	}
	for _, id := range []string{done, pending.SessionID} {
		must(t, owner.do("GET", "/api/interview/"+id, nil), http.StatusNotFound)
	}
	must(t, e.client().do("GET", "/api/shared/"+token, nil), http.StatusNotFound)
	must(t, squatter.do("GET", "/api/auth/me", nil), http.StatusUnauthorized)
	must(t, e.client().do("POST", "/api/auth/login", map[string]string{"email": "owner@example.com", "password": "squatter password"}), http.StatusUnauthorized)
	if m := owner.me(); m.User.Email != "owner@example.com" || m.User.HasPassword {
		t.Fatalf("owner: %+v", m.User)
	}
}
