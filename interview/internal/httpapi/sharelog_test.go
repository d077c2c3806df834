package httpapi_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview/internal/httpapi"
	"github.com/judgeworks/interview/internal/postgres"
	"github.com/judgeworks/shared/proctest"
)

// A share link's token is a working link to a report: the access log
// shows the paths that carry one with the token replaced, found or not.
func TestShareTokensStayOutOfTheAccessLog(t *testing.T) {
	logs := &proctest.Buffer{}
	e := newEnv(t, func(d *httpapi.Deps, _ *postgres.Store, _ *pgxpool.Pool) {
		d.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	})
	_, token := e.signUp().sharedReport()
	reader := e.client()
	must(t, reader.do("GET", "/api/shared/"+token, nil), http.StatusOK)
	reader.do("GET", "/shared/"+token, nil)
	reader.do("GET", "/api/shared/"+token+"/extra", nil)
	unknown := strings.Repeat("A", 43)
	must(t, reader.do("GET", "/api/shared/"+unknown, nil), http.StatusNotFound)

	out := logs.String()
	for _, tok := range []string{token, unknown} {
		if strings.Contains(out, tok) {
			t.Fatalf("a share token is in the access log:\n%s", out)
		}
	}
	if !strings.Contains(out, `"path":"/api/shared/REDACTED"`) {
		t.Fatalf("no redacted share path in the access log:\n%s", out)
	}
}

// sharedReport answers and finishes a one-question interview and shares its
// report; it returns the interview's id and the link's token.
func (c *client) sharedReport() (id, token string) {
	c.e.t.Helper()
	s := c.start(1)
	must(c.e.t, c.answer(s.SessionID, "q1", "an answer"), http.StatusOK)
	must(c.e.t, c.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusOK)
	var link struct {
		Token string `json:"token"`
	}
	must(c.e.t, c.do("POST", "/api/interview/"+s.SessionID+"/share", nil), http.StatusCreated).json(c.e.t, &link)
	return s.SessionID, link.Token
}
