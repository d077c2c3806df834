package harness

import (
	"context"
	"net/url"

	"github.com/judgeworks/shared/pgtest"
)

// Postgres is a throwaway server of its own, unlike the shared one of
// pgtest's NewDatabase: the fault suite stops and restarts it on the same
// port (Stop, Start), and the secrets suite gives it a password
// (scram-sha-256) to look for in logs (Output).
type Postgres struct {
	*pgtest.Server
	// URL reaches the database "stack" as the superuser, password included.
	// It hides the server's URL method, which names the database "postgres".
	URL string
}

// StartPostgres starts a server (see pgtest.StartServer) and creates the
// database "stack" on it. An empty password means trust authentication.
func StartPostgres(ctx context.Context, password string) (*Postgres, error) {
	s, err := pgtest.StartServer(ctx, pgtest.Options{Password: password})
	if err != nil {
		return nil, err
	}
	admin := s.URL()
	if err := pgtest.Exec(ctx, admin, "CREATE DATABASE stack"); err != nil {
		_ = s.Close()
		return nil, err
	}
	u, err := url.Parse(admin)
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	u.Path = "/stack"
	return &Postgres{Server: s, URL: u.String()}, nil
}
