package httpapi_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/judgeworks/interview/internal/httpapi"
	"github.com/judgeworks/interview/internal/postgres"
)

// logBuffer is a log destination safe for the server's goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A share link's token is a working link to a report: the access log
// shows the paths that carry one with the token replaced, found or not.
func TestShareTokensStayOutOfTheAccessLog(t *testing.T) {
	logs := &logBuffer{}
	e := newEnv(t, func(d *httpapi.Deps, _ *postgres.Store, _ *pgxpool.Pool) {
		d.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	})
	owner := e.signUp()
	s := owner.start(1)
	must(t, owner.answer(s.SessionID, "q1", "an answer"), http.StatusOK)
	must(t, owner.do("POST", "/api/interview/finish", map[string]string{"sessionId": s.SessionID}), http.StatusOK)
	var link struct {
		Token string `json:"token"`
	}
	must(t, owner.do("POST", "/api/interview/"+s.SessionID+"/share", nil), http.StatusCreated).json(t, &link)
	reader := e.client()
	must(t, reader.do("GET", "/api/shared/"+link.Token, nil), http.StatusOK)
	reader.do("GET", "/shared/"+link.Token, nil)
	reader.do("GET", "/api/shared/"+link.Token+"/extra", nil)
	unknown := strings.Repeat("A", 43)
	must(t, reader.do("GET", "/api/shared/"+unknown, nil), http.StatusNotFound)

	out := logs.String()
	for _, tok := range []string{link.Token, unknown} {
		if strings.Contains(out, tok) {
			t.Fatalf("a share token is in the access log:\n%s", out)
		}
	}
	if !strings.Contains(out, `"path":"/api/shared/REDACTED"`) {
		t.Fatalf("no redacted share path in the access log:\n%s", out)
	}
}
