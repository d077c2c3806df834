package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/judgeworks/interview/internal/account"
	"github.com/judgeworks/interview/internal/problem"
	"github.com/judgeworks/shared/auth"
)

type userBody struct {
	User account.User `json:"user"`
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
		if done, err = a.d.Throttle.Login(c.Request().Context(), req.Email, c.RealIP()); err != nil {
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

func (a *API) google(c echo.Context) error {
	if !a.d.Accounts.GoogleEnabled() {
		return problem.New(problem.NotImplemented, "Google sign-in is not configured")
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

func (a *API) logout(c echo.Context) error {
	c.SetCookie(auth.ClearedCookie(CookieName, a.d.SecureCookies))
	return c.NoContent(http.StatusNoContent)
}

func (a *API) me(c echo.Context) error {
	id, err := a.UserID(c)
	if err != nil {
		return err
	}
	u, err := a.d.Accounts.User(c.Request().Context(), id)
	if problem.Is(err, problem.NotFound) {
		c.SetCookie(auth.ClearedCookie(CookieName, a.d.SecureCookies))
		return problem.New(problem.Unauthenticated, "this account no longer exists")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, userBody{User: u})
}

func (a *API) signedIn(c echo.Context, status int, u account.User) error {
	tok, err := a.d.Tokens.Issue(u.ID)
	if err != nil {
		return err
	}
	c.SetCookie(auth.SessionCookie(CookieName, tok, a.d.Tokens.TTL(), a.d.SecureCookies))
	return c.JSON(status, userBody{User: u})
}
