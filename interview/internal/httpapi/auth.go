package httpapi

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/auth"
	"github.com/judgeworks/interview/internal/throttle"
)

type userBody struct {
	User interview.User `json:"user"`
}

type registerRequest struct {
	FullName string `json:"fullName"`
	Email    string `json:"email"`
	Password string `json:"password"`
}

type loginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

type googleRequest struct {
	Credential string `json:"credential"`
}

type passwordRequest struct {
	CurrentPassword string `json:"currentPassword"`
	NewPassword     string `json:"newPassword"`
}

type deleteAccountRequest struct {
	Password string `json:"password"`
}

func (a *API) register(c echo.Context) error {
	if a.d.Throttle != nil {
		if err := a.d.Throttle.Register(c.Request().Context(), c.RealIP()); err != nil {
			return err
		}
	}
	var req registerRequest
	if err := readJSON(c, &req); err != nil {
		return err
	}
	u, err := a.d.Accounts.Register(c.Request().Context(), req.FullName, req.Email, req.Password)
	if err != nil {
		return err
	}
	if a.d.Throttle != nil {
		a.d.Throttle.Remember(c.Request().Context(), u.Email, a.device(c))
	}
	return a.signedIn(c, http.StatusCreated, u)
}

func (a *API) login(c echo.Context) error {
	var req loginRequest
	if err := readJSON(c, &req); err != nil {
		return err
	}
	done := func(error) {}
	if a.d.Throttle != nil {
		var err error
		if done, err = a.d.Throttle.Login(c.Request().Context(), req.Email, c.RealIP(), a.device(c)); err != nil {
			return err
		}
	}
	u, err := a.d.Accounts.Login(c.Request().Context(), req.Email, req.Password)
	done(err)
	if err != nil {
		return err
	}
	return a.signedIn(c, http.StatusOK, u)
}

// DeviceCookie names the browser to the sign-in limits: a random value set
// on a successful sign-in or registration and sent back on the next one.
// An account's sign-ins from a browser where it signed in before are held
// only to that browser's own limit (package throttle).
const DeviceCookie = "device"

// device returns the request's sign-in cookie value, or a new one, and
// sets the cookie for a throttle.KnownDeviceTTL from now either way.
func (a *API) device(c echo.Context) string {
	v := ""
	if ck, err := c.Cookie(DeviceCookie); err == nil && validDevice(ck.Value) {
		v = ck.Value
	} else {
		b := make([]byte, 32)
		_, _ = rand.Read(b) // crypto/rand.Read never fails
		v = base64.RawURLEncoding.EncodeToString(b)
	}
	c.SetCookie(&http.Cookie{
		Name: DeviceCookie, Value: v, Path: "/api/auth/",
		MaxAge: int(throttle.DefaultRules.KnownDeviceTTL / time.Second), HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: a.d.SecureCookies,
	})
	return v
}

// validDevice reports whether v can be a value device made: anything else
// is ignored, so a client cannot pick a value that fills the table.
func validDevice(v string) bool {
	b, err := base64.RawURLEncoding.DecodeString(v)
	return err == nil && len(b) == 32
}

func (a *API) google(c echo.Context) error {
	if !a.d.Accounts.GoogleEnabled() {
		return interview.Errorf(interview.NotImplemented, "Google sign-in is not configured")
	}
	var req googleRequest
	if err := readJSON(c, &req); err != nil {
		return err
	}
	u, err := a.d.Accounts.Google(c.Request().Context(), req.Credential)
	if err != nil {
		return err
	}
	return a.signedIn(c, http.StatusOK, u)
}

// logout is POST /api/auth/logout: this session's token stops working at
// once, a copy of it included; the account's other sessions stay. Without a
// valid session there is nothing to revoke, and the cookie is cleared all
// the same.
func (a *API) logout(c echo.Context) error {
	s, token, err := a.sessionToken(c)
	switch {
	case err == nil:
		// Any token issued until now expires within a TTL from now.
		if err := a.d.Accounts.SignOut(c.Request().Context(), s, token, time.Now().Add(a.d.Tokens.TTL())); err != nil {
			return err
		}
	case !interview.Is(err, interview.Unauthenticated):
		return err
	}
	c.SetCookie(auth.ClearedCookie(CookieName, a.d.SecureCookies))
	return c.NoContent(http.StatusNoContent)
}

func (a *API) me(c echo.Context) error {
	id, err := a.userID(c)
	if err != nil {
		return err
	}
	u, err := a.d.Accounts.User(c.Request().Context(), id)
	if interview.Is(err, interview.NotFound) {
		c.SetCookie(auth.ClearedCookie(CookieName, a.d.SecureCookies))
		return interview.Errorf(interview.Unauthenticated, "this account no longer exists")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, userBody{User: u})
}

// changePassword is POST /api/auth/password: every other session of the
// account is revoked; this one gets a cookie at the new version.
func (a *API) changePassword(c echo.Context) error {
	s, err := a.session(c)
	if err != nil {
		return err
	}
	var req passwordRequest
	if err := readJSON(c, &req); err != nil {
		return err
	}
	done, err := a.passwordAttempt(c, s.Subject)
	if err != nil {
		return err
	}
	v, err := a.d.Accounts.ChangePassword(c.Request().Context(), s.Subject, req.CurrentPassword, req.NewPassword)
	done(err)
	if err != nil {
		return wrongPassword(err)
	}
	// The password was just proved: the reissued session counts as a
	// fresh sign-in.
	if err := a.setSession(c, auth.Session{Subject: s.Subject, Version: v}); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// logoutAll is POST /api/auth/logout-all: every session of the account,
// this one included, is revoked.
func (a *API) logoutAll(c echo.Context) error {
	s, err := a.session(c)
	if err != nil {
		return err
	}
	if err := a.d.Accounts.SignOutEverywhere(c.Request().Context(), s.Subject); err != nil {
		return err
	}
	c.SetCookie(auth.ClearedCookie(CookieName, a.d.SecureCookies))
	return c.NoContent(http.StatusNoContent)
}

// deleteAccount is DELETE /api/auth/me {password}: the account and its
// interviews are deleted. A Google-only account sends no password (an
// empty body will do) and needs a recent sign-in instead.
func (a *API) deleteAccount(c echo.Context) error {
	s, err := a.session(c)
	if err != nil {
		return err
	}
	var req deleteAccountRequest
	if c.Request().ContentLength != 0 {
		if err := readJSON(c, &req); err != nil {
			return err
		}
	}
	done, err := a.passwordAttempt(c, s.Subject)
	if err != nil {
		return err
	}
	err = a.d.Accounts.Delete(c.Request().Context(), s.Subject, req.Password, s.AuthTime, time.Now())
	done(err)
	if err != nil {
		return wrongPassword(err)
	}
	c.SetCookie(auth.ClearedCookie(CookieName, a.d.SecureCookies))
	return c.NoContent(http.StatusNoContent)
}

// passwordAttempt holds a signed-in user's password checks to the sign-in
// limits of their account, so that a stolen cookie is no faster way to
// guess the password than the sign-in form.
func (a *API) passwordAttempt(c echo.Context, userID string) (func(error), error) {
	if a.d.Throttle == nil {
		return func(error) {}, nil
	}
	u, err := a.d.Accounts.User(c.Request().Context(), userID)
	if err != nil {
		return nil, err
	}
	return a.d.Throttle.Login(c.Request().Context(), u.Email, c.RealIP(), a.device(c))
}

// wrongPassword answers a wrong password of a signed-in user with 403, not
// 401: the session is fine, and a 401 would tell the page it was signed out.
func wrongPassword(err error) error {
	if interview.Is(err, interview.Unauthenticated) {
		return interview.Wrap(err, interview.Forbidden, interview.ErrorFrom(err).Message)
	}
	return err
}

func (a *API) signedIn(c echo.Context, status int, u interview.User) error {
	if err := a.setSession(c, auth.Session{Subject: u.ID, Version: u.SessionVersion}); err != nil {
		return err
	}
	return c.JSON(status, userBody{User: u})
}

// setSession sets the session cookie for s; a zero AuthTime means signed
// in now.
func (a *API) setSession(c echo.Context, s auth.Session) error {
	tok, err := a.d.Tokens.IssueSession(s)
	if err != nil {
		return err
	}
	c.SetCookie(auth.SessionCookie(CookieName, tok, a.d.Tokens.TTL(), a.d.SecureCookies))
	return nil
}
