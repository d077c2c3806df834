package api

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/judge/internal/idempotency"
	"github.com/judgeworks/shared/server"
	"github.com/labstack/echo/v4"
)

// Headers of idempotent requests (docs/api.md, "Judge: Idempotency-Key").
const (
	HeaderIdempotencyKey = "Idempotency-Key"
	HeaderReplayed       = "Idempotent-Replayed"
)

// idempotentWork bounds a request sent with an Idempotency-Key. Such a
// request runs to its end even when its client hangs up (the answer is
// stored for the retry that follows a client-side timeout), so it needs a
// deadline of its own: the server's write timeout, after which no client
// could have read the answer anyway. It is shorter than the claim's
// lifetime in Redis (idempotency.DefaultRunTTL).
var idempotentWork = server.DefaultTimeouts.Write

// idempotent answers a request that carries an Idempotency-Key from the
// store when it can: the stored answer for the same key, caller and body
// (with Idempotent-Replayed: true), 409 while the first is still running,
// 422 for the same key with another body. It runs after authentication
// (the key's slot belongs to the caller) and after the request bucket, so
// a replay costs one request and no tokens. A replay is for a model the
// key may still use (its list may have changed since), else 403. Only 200
// answers are stored; any other outcome frees the key for a retry.
func (h *handler) idempotent(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		values := c.Request().Header.Values(HeaderIdempotencyKey)
		if len(values) == 0 {
			return next(c)
		}
		if len(values) > 1 || !idempotency.ValidKey(values[0]) {
			return fault.New(fault.InvalidArgument, "%s must be one header of 1 to %d printable ASCII characters",
				HeaderIdempotencyKey, idempotency.MaxKeyLength)
		}
		key := c.Get(keyCtx).(auth.BearerKey)
		body, err := h.readBody(c)
		if err != nil {
			return err
		}
		r := c.Request()
		r.Body = io.NopCloser(bytes.NewReader(body))
		ctx := r.Context()
		out, stored, claim := h.Idempotency.Begin(ctx, key.ID, idempotency.StoreKey(key.Scope(), values[0]), idempotency.Fingerprint(c.Path(), body))
		switch out {
		case idempotency.Replay:
			if _, err := h.allowedModel(key, stored.Model); err != nil {
				return err
			}
			// Tokens untouched: the figures as they are.
			setLimitHeaders(c.Response().Header(), "tokens", h.Limiter.PeekTokens(ctx, key.ID))
			c.Response().Header().Set(HeaderReplayed, "true")
			return c.Blob(stored.Status, stored.ContentType, stored.Body)
		case idempotency.InUse:
			return fault.Retry(fault.IdempotencyKeyInUse, time.Second,
				"a request with this %s is still running: retry once it has finished", HeaderIdempotencyKey)
		case idempotency.Reused:
			return fault.New(fault.IdempotencyKeyReused,
				"this %s was used within the last 24 hours for a request with another body: use a new key for a new request", HeaderIdempotencyKey)
		}

		finished := false
		defer func() {
			// Also on a panic: a key left claimed would refuse every retry.
			if !finished {
				claim.Release(ctx)
			}
		}()
		work, cancel := context.WithTimeout(context.WithoutCancel(ctx), idempotentWork)
		defer cancel()
		c.SetRequest(r.WithContext(work))
		rec := &recorder{ResponseWriter: c.Response().Writer}
		c.Response().Writer = rec
		err = next(c)
		c.Response().Writer = rec.ResponseWriter
		if model, _ := c.Get(modelCtx).(string); err == nil && c.Response().Status == http.StatusOK && model != "" {
			claim.Finish(work, idempotency.Answer{
				Model:       model,
				Status:      http.StatusOK,
				ContentType: c.Response().Header().Get(echo.HeaderContentType),
				Body:        rec.buf.Bytes(),
			})
			finished = true
		}
		return err
	}
}

// recorder keeps a copy of the body written through it. The copy is
// complete even when the client has gone and the writes fail.
type recorder struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (r *recorder) Write(b []byte) (int, error) {
	r.buf.Write(b)
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
