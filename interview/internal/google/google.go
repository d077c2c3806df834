// Package google verifies Google ID tokens (Sign in with Google): an RS256
// signature by one of Google's published keys, the issuer, the audience (our
// client id), the expiry and a verified email.
package google

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/sync/singleflight"

	"github.com/judgeworks/interview"
)

// KeysURL is where Google publishes its ID token signing keys (JWKS).
const KeysURL = "https://www.googleapis.com/oauth2/v3/certs"

// Google issues ID tokens under either spelling.
var issuers = []string{"accounts.google.com", "https://accounts.google.com"}

// defaultKeyTTL applies when the key response has no usable max-age.
const defaultKeyTTL = time.Hour

// Verifier checks Google ID tokens for one client id. Safe for concurrent use.
type Verifier struct {
	clientID string
	keysURL  string
	client   *http.Client
	now      func() time.Time
	// fetches makes one fetch at a time: requests that need the keys while
	// a fetch runs wait for its result instead of starting their own.
	fetches singleflight.Group

	// mu guards the cache below; it is never held across a fetch.
	mu      sync.Mutex
	keys    map[string]*rsa.PublicKey
	expires time.Time
	fetched time.Time
	// failed is when the last fetch failed, and why; zero after a success.
	failed    time.Time
	failedErr error
}

const (
	// minRefetch spaces fetches caused by unknown key ids: a token with a
	// made-up kid must not make every request fetch Google's keys.
	minRefetch = time.Minute
	// failureTTL is how long a failed fetch is remembered: while Google's
	// endpoint is down or slow, sign-ins fail at once (or use stale keys)
	// instead of each waiting fetchTimeout for the same failure.
	failureTTL = 30 * time.Second
	// fetchTimeout bounds one fetch of the keys.
	fetchTimeout = 10 * time.Second
)

// NewVerifier returns a Verifier for clientID fetching keys from keysURL
// (KeysURL in production). A nil now means time.Now.
func NewVerifier(clientID, keysURL string, client *http.Client, now func() time.Time) *Verifier {
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout}
	}
	if now == nil {
		now = time.Now
	}
	return &Verifier{clientID: clientID, keysURL: keysURL, client: client, now: now}
}

type idClaims struct {
	jwt.RegisteredClaims
	Email         string `json:"email"`
	EmailVerified any    `json:"email_verified"`
	Name          string `json:"name"`
}

// Verify checks credential and returns who it names.
func (v *Verifier) Verify(ctx context.Context, credential string) (interview.GoogleIdentity, error) {
	var c idClaims
	_, err := jwt.ParseWithClaims(credential, &c, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		return v.key(ctx, kid)
	},
		jwt.WithValidMethods([]string{jwt.SigningMethodRS256.Alg()}),
		jwt.WithAudience(v.clientID),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(v.now),
	)
	if err != nil {
		if errors.Is(err, errKeysUnavailable) {
			return interview.GoogleIdentity{}, interview.Wrap(err, interview.Upstream, "Google's signing keys are unavailable; try again")
		}
		return interview.GoogleIdentity{}, interview.Wrap(err, interview.Unauthenticated, "the Google credential is not valid")
	}
	okIss := false
	for _, iss := range issuers {
		okIss = okIss || c.Issuer == iss
	}
	if !okIss {
		return interview.GoogleIdentity{}, interview.Errorf(interview.Unauthenticated, "the Google credential is not valid")
	}
	// Google sends a boolean; some older tokens carried the string "true".
	if c.EmailVerified != true && c.EmailVerified != "true" {
		return interview.GoogleIdentity{}, interview.Errorf(interview.Unauthenticated, "the Google account's email is not verified")
	}
	if c.Subject == "" || c.Email == "" {
		return interview.GoogleIdentity{}, interview.Errorf(interview.Unauthenticated, "the Google credential is not valid")
	}
	return interview.GoogleIdentity{Subject: c.Subject, Email: c.Email, Name: c.Name}, nil
}

var errKeysUnavailable = errors.New("google keys unavailable")

// key returns the key kid, refreshing the cached set when it has expired or
// does not know kid (Google rotates keys). A refresh is shared by every
// request that needs it and runs on its own context, so one caller giving up
// does not fail the others; ctx bounds only this caller's wait.
func (v *Verifier) key(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	v.mu.Lock()
	now := v.now()
	fresh := now.Before(v.expires)
	k, known := v.keys[kid]
	refetched := now.Sub(v.fetched) < minRefetch
	failedAt, failedErr := v.failed, v.failedErr
	v.mu.Unlock()
	failed := now.Sub(failedAt) < failureTTL
	switch {
	case known && fresh:
		return k, nil
	case fresh && refetched:
		return nil, fmt.Errorf("unknown key id %q", kid)
	case failed && known:
		return k, nil // a stale key beats no sign-in while Google is unreachable
	case failed:
		return nil, fmt.Errorf("%w (fetch failed %s ago): %v", errKeysUnavailable, now.Sub(failedAt).Round(time.Second), failedErr)
	}
	select {
	case r := <-v.fetches.DoChan("keys", func() (any, error) { return nil, v.refresh() }):
		if r.Err != nil {
			if known {
				return k, nil
			}
			return nil, fmt.Errorf("%w: %v", errKeysUnavailable, r.Err)
		}
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %v", errKeysUnavailable, ctx.Err())
	}
	v.mu.Lock()
	k, ok := v.keys[kid]
	v.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("unknown key id %q", kid)
	}
	return k, nil
}

// refresh fetches the keys and stores the outcome: the new set, or the
// failure for failureTTL (the old set stays for known key ids).
func (v *Verifier) refresh() error {
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	defer cancel()
	keys, ttl, err := v.fetch(ctx)
	now := v.now()
	v.mu.Lock()
	defer v.mu.Unlock()
	if err != nil {
		v.failed, v.failedErr = now, err
		return err
	}
	v.keys, v.expires, v.fetched = keys, now.Add(ttl), now
	v.failed, v.failedErr = time.Time{}, nil
	return nil
}

type jwks struct {
	Keys []struct {
		Kty string `json:"kty"`
		Kid string `json:"kid"`
		N   string `json:"n"`
		E   string `json:"e"`
	} `json:"keys"`
}

func (v *Verifier) fetch(ctx context.Context) (map[string]*rsa.PublicKey, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.keysURL, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("keys endpoint answered %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, 0, err
	}
	keys, err := ParseKeys(body)
	if err != nil {
		return nil, 0, err
	}
	return keys, MaxAge(resp.Header.Get("Cache-Control")), nil
}

// ParseKeys reads the RSA keys of a JWKS document.
func ParseKeys(body []byte) (map[string]*rsa.PublicKey, error) {
	var set jwks
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	keys := map[string]*rsa.PublicKey{}
	for _, k := range set.Keys {
		if k.Kty != "RSA" || k.Kid == "" {
			continue
		}
		n, err1 := base64.RawURLEncoding.DecodeString(k.N)
		e, err2 := base64.RawURLEncoding.DecodeString(k.E)
		if err1 != nil || err2 != nil || len(e) == 0 || len(e) > 4 {
			continue
		}
		modulus := new(big.Int).SetBytes(n)
		exp := int(new(big.Int).SetBytes(e).Int64())
		// Google's keys are 2048-bit; anything weaker is not theirs.
		if modulus.BitLen() < 2048 || exp < 3 {
			continue
		}
		keys[k.Kid] = &rsa.PublicKey{N: modulus, E: exp}
	}
	if len(keys) == 0 {
		return nil, errors.New("keys: no usable RSA key")
	}
	return keys, nil
}

// MaxAge returns the max-age of a Cache-Control header, or an hour.
func MaxAge(cacheControl string) time.Duration {
	for _, d := range strings.Split(cacheControl, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(d), "=")
		if !ok || !strings.EqualFold(name, "max-age") {
			continue
		}
		if s, err := strconv.Atoi(strings.Trim(val, `"`)); err == nil && s > 0 {
			return time.Duration(s) * time.Second
		}
	}
	return defaultKeyTTL
}
