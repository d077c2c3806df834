package voice

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/judgeworks/interview"
)

// uploadRetryAfter is the wait a refused upload is asked for: a recorded
// answer takes seconds to send and transcribe.
const uploadRetryAfter = 5 * time.Second

// uploads bounds the transcription uploads in flight in this process, per
// user and in all, and keeps half of them for users with none in flight. It is checked before a body is read, so a flood of slow
// uploads holds at most max connections' worth of buffers and temporary
// files; the rest are refused at once.
type uploads struct {
	max, perUser int

	mu     sync.Mutex
	total  int
	byUser map[string]int
}

func newUploads(max, perUser int) *uploads {
	if max <= 0 {
		max = DefaultMaxUploads
	}
	if perUser <= 0 {
		perUser = DefaultMaxUploadsPerUser
	}
	return &uploads{max: max, perUser: perUser, byUser: map[string]int{}}
}

// enter takes a slot for userID, or refuses with 429 and a Retry-After.
// Call release once the upload is done with.
func (u *uploads) enter(userID string) (release func(), err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.byUser[userID] >= u.perUser {
		return nil, interview.Limited(uploadRetryAfter,
			"you already have %d recordings uploading; wait for one to finish", u.perUser)
	}
	// A user's first upload may take any free slot; a further one only if
	// it leaves half the slots free, so a few accounts cannot hold them
	// all: four users with two slots each would fill eight.
	if u.total >= u.max || (u.byUser[userID] > 0 && u.max-u.total-1 < u.max/2) {
		return nil, interview.Limited(uploadRetryAfter, "the server is busy with other uploads; try again in a few seconds")
	}
	u.total++
	u.byUser[userID]++
	var once sync.Once
	return func() {
		once.Do(func() {
			u.mu.Lock()
			defer u.mu.Unlock()
			u.total--
			if u.byUser[userID]--; u.byUser[userID] == 0 {
				delete(u.byUser, userID)
			}
		})
	}, nil
}

// MinUploadRate is the slowest an upload may arrive once UploadGrace has
// passed: 8 KiB/s (64 kbit/s), below any connection that can send a
// recording. The pace holds over every stretch of the upload, not only on
// average since its start: bytes sent ahead of it count for at most
// UploadGrace, so a body that sends most of a file and then stalls or
// trickles loses its slot within seconds, however much it sent first,
// instead of holding it for UploadReadTimeout.
const (
	MinUploadRate = 8 << 10
	UploadGrace   = 10 * time.Second
)

// pacedBody is a request body that fails with the server's read timeout
// once it falls behind MinUploadRate: after each read the connection's read
// deadline moves to when the bytes so far stop covering the pace (never
// more than grace ahead, never past the route's own deadline, limit). Once
// the body is whole the deadline is lifted, since Go's server cancels a
// request whose connection fails a read even after its body, and the
// provider's answer may take longer than the pace allows.
type pacedBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	limit time.Time
	grace time.Duration
	due   time.Time
	// n counts the bytes read; broken is the read error that cut the body
	// short (a passed deadline, a client gone), nil while it arrives.
	n      int64
	broken error
}

// pace wraps r's body so that it must keep up with MinUploadRate (grace:
// UploadGrace unless positive) from now on, within limit.
func pace(w http.ResponseWriter, r *http.Request, grace time.Duration, limit time.Time) *pacedBody {
	if grace <= 0 {
		grace = UploadGrace
	}
	p := &pacedBody{ReadCloser: r.Body, rc: http.NewResponseController(w), limit: limit,
		grace: grace, due: time.Now().Add(grace)}
	p.setDeadline(p.due)
	r.Body = p
	return p
}

func (p *pacedBody) Read(b []byte) (int, error) {
	n, err := p.ReadCloser.Read(b)
	p.n += int64(n)
	switch {
	case err == nil:
		p.due = p.due.Add(time.Duration(n) * time.Second / MinUploadRate)
		if ahead := time.Now().Add(p.grace); p.due.After(ahead) {
			p.due = ahead
		}
		p.setDeadline(p.due)
	case errors.Is(err, io.EOF):
		_ = p.rc.SetReadDeadline(time.Time{})
	case p.broken == nil:
		p.broken = err
	}
	return n, err
}

func (p *pacedBody) setDeadline(d time.Time) {
	if d.After(p.limit) {
		d = p.limit
	}
	// Not supported only on a writer that is no connection (a test's
	// recorder): then the route's deadline alone applies.
	_ = p.rc.SetReadDeadline(d)
}
