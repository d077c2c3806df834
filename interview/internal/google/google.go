// Package google verifies Google ID tokens (Sign in with Google) with
// go-oidc: an RS256 signature by one of Google's published keys, the issuer
// (either spelling Google uses), the audience (our client id) and the
// expiry; then a verified email. go-oidc keeps the keys it fetched and
// fetches again, one fetch at a time, only when a token names a key it
// does not have (Google rotates keys); this package's transport bounds each
// fetch, spaces the fetches unknown key ids cause and remembers a failure.
package google

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/judgeworks/interview"
)

// KeysURL is where Google publishes its ID token signing keys (JWKS).
const KeysURL = "https://www.googleapis.com/oauth2/v3/certs"

// issuer is Google's; go-oidc also accepts the spelling without a scheme
// that Google issues some tokens under.
const issuer = "https://accounts.google.com"

// Verifier checks Google ID tokens for one client id. Safe for concurrent use.
type Verifier struct {
	keys   *oidc.RemoteKeySet
	config oidc.Config
}

// NewVerifier returns a Verifier for clientID fetching keys from keysURL
// (KeysURL in production) through next (nil: http.DefaultTransport). A nil
// now means time.Now.
func NewVerifier(clientID, keysURL string, next http.RoundTripper, now func() time.Time) *Verifier {
	if next == nil {
		next = http.DefaultTransport
	}
	if now == nil {
		now = time.Now
	}
	client := &http.Client{Transport: &keyFetches{next: next, now: now}}
	return &Verifier{
		keys:   oidc.NewRemoteKeySet(oidc.ClientContext(context.Background(), client), keysURL),
		config: oidc.Config{ClientID: clientID, Now: now},
	}
}

type idClaims struct {
	Email         string `json:"email"`
	EmailVerified any    `json:"email_verified"`
	Name          string `json:"name"`
}

// Verify checks credential and returns who it names.
func (v *Verifier) Verify(ctx context.Context, credential string) (interview.GoogleIdentity, error) {
	keys := &keySet{remote: v.keys}
	tok, err := oidc.NewVerifier(issuer, keys, &v.config).Verify(ctx, credential)
	if keys.unavailable != nil {
		return interview.GoogleIdentity{}, interview.Wrap(keys.unavailable, interview.Upstream, "Google's signing keys are unavailable; try again")
	}
	invalid := interview.Wrap(err, interview.Unauthenticated, "the Google credential is not valid")
	if err != nil {
		return interview.GoogleIdentity{}, invalid
	}
	var c idClaims
	if err := tok.Claims(&c); err != nil {
		invalid.Err = err
		return interview.GoogleIdentity{}, invalid
	}
	// Google sends a boolean; some older tokens carried the string "true".
	if c.EmailVerified != true && c.EmailVerified != "true" {
		return interview.GoogleIdentity{}, interview.Errorf(interview.Unauthenticated, "the Google account's email is not verified")
	}
	if tok.Subject == "" || c.Email == "" {
		return interview.GoogleIdentity{}, invalid
	}
	return interview.GoogleIdentity{Subject: tok.Subject, Email: c.Email, Name: c.Name}, nil
}

// keySet is the remote key set as one Verify sees it: it notes when the
// keys could not be had, which go-oidc's verifier passes on only as text,
// so that an outage is a 502 and never a refused credential.
type keySet struct {
	remote      *oidc.RemoteKeySet
	unavailable error
}

func (k *keySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	payload, err := k.remote.VerifySignature(ctx, jwt)
	if err != nil && (errors.Is(err, errKeysUnavailable) || ctx.Err() != nil) {
		k.unavailable = err
	}
	return payload, err
}
