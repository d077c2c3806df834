package google

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

const (
	// minRefetch spaces fetches caused by unknown key ids: a token with a
	// made-up kid must not make every request fetch Google's keys.
	minRefetch = time.Minute
	// failureTTL is how long a failed fetch is remembered: while Google's
	// endpoint is down or slow, sign-ins that need new keys fail at once
	// instead of each waiting fetchTimeout for the same failure (those
	// whose key is cached verify meanwhile).
	failureTTL = 30 * time.Second
	// fetchTimeout bounds one fetch of the keys.
	fetchTimeout = 10 * time.Second
	// maxKeysBody bounds the key set read.
	maxKeysBody = 1 << 20
)

var errKeysUnavailable = errors.New("google keys unavailable")

// keyFetches is the transport of the key set's fetches, which go-oidc runs
// one at a time on a context of its own. For minRefetch after a fetch it
// answers with that fetch's key set again, without asking Google; for
// failureTTL after a failure, with that failure. Each fetch has
// fetchTimeout and reads at most maxKeysBody; a key set that is not one
// (no keys) is a failure.
type keyFetches struct {
	next http.RoundTripper
	now  func() time.Time

	// mu guards the last outcome; it is never held across a fetch.
	mu      sync.Mutex
	body    []byte
	fetched time.Time
	failed  time.Time
	err     error
}

func (k *keyFetches) RoundTrip(req *http.Request) (*http.Response, error) {
	k.mu.Lock()
	now := k.now()
	body, err := k.body, k.err
	fresh := body != nil && now.Sub(k.fetched) < minRefetch
	failing := err != nil && now.Sub(k.failed) < failureTTL
	k.mu.Unlock()
	switch {
	case failing:
		return nil, err
	case fresh:
		return answer(req, body), nil
	}
	body, err = k.fetch(req)
	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil {
		k.err, k.failed = fmt.Errorf("%w: %v", errKeysUnavailable, err), now
		return nil, k.err
	}
	k.body, k.fetched, k.err = body, now, nil
	return answer(req, body), nil
}

// fetch asks Google for the key set.
func (k *keyFetches) fetch(req *http.Request) ([]byte, error) {
	ctx, cancel := context.WithTimeout(req.Context(), fetchTimeout)
	defer cancel()
	resp, err := k.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("keys endpoint answered %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeysBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxKeysBody {
		return nil, fmt.Errorf("key set larger than %d bytes", maxKeysBody)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil || len(set.Keys) == 0 {
		return nil, fmt.Errorf("no key set in the answer (%v)", err)
	}
	return body, nil
}

// answer is a 200 carrying body, as an answer to req.
func answer(req *http.Request, body []byte) *http.Response {
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}
