package voice

import (
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
