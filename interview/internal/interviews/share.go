package interviews

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"time"

	"github.com/judgeworks/interview"
)

// shareTokenBytes is the entropy of a share link: 256 bits, so links
// cannot be guessed, only handed out.
const shareTokenBytes = 32

// Share creates a link to the report of a completed interview and returns
// its token (base64url, unpadded). Only the token's SHA-256 is stored, so
// the link can be shown once and never recovered; sharing again replaces
// it and the earlier link stops working.
func (s *Service) Share(ctx context.Context, userID, id string) (string, error) {
	raw := make([]byte, shareTokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	sum := sha256.Sum256(raw)
	if err := s.store.Share(ctx, userID, id, sum[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(raw), nil
}

// Unshare deletes the interview's link: it stops working at once.
func (s *Service) Unshare(ctx context.Context, userID, id string) error {
	return s.store.Unshare(ctx, userID, id)
}

// SharedReport is what a share link shows: the report and the setup it
// was taken with. It holds nothing that identifies the account (no user
// id, email or interview id) and leads nowhere else.
type SharedReport struct {
	Setup       interview.Setup
	CompletedAt time.Time
	Report      interview.Report
}

var errNoShare = interview.Errorf(interview.NotFound, "this link does not exist or was withdrawn")

// Shared returns the report a share token names. A malformed token is
// refused before any lookup; a token without a link is the same 404.
func (s *Service) Shared(ctx context.Context, token string) (SharedReport, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != shareTokenBytes {
		return SharedReport{}, errNoShare
	}
	sum := sha256.Sum256(raw)
	iv, err := s.store.SharedInterview(ctx, sum[:])
	if interview.Is(err, interview.NotFound) {
		return SharedReport{}, errNoShare
	}
	if err != nil {
		return SharedReport{}, err
	}
	if iv.Report == nil || iv.CompletedAt == nil {
		return SharedReport{}, errNoShare
	}
	setup := iv.Setup
	setup.JobDescription = "" // the requirements in the report are enough
	return SharedReport{Setup: setup, CompletedAt: *iv.CompletedAt, Report: *iv.Report}, nil
}

// ShareTokenValid reports whether token has the shape of a share token,
// so a caller can refuse junk before spending anything on it.
func ShareTokenValid(token string) bool {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil && len(raw) == shareTokenBytes
}
