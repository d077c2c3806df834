package interview

import (
	"context"
	"time"
)

// Op names an operation that costs model work.
type Op string

// The metered operations.
const (
	OpStart  Op = "start"
	OpAnswer Op = "answer"
	OpFinish Op = "finish"
)

// Rate is a token bucket: Burst operations at once, then PerHour an hour.
// The zero Rate does not limit.
type Rate struct {
	Burst   int
	PerHour int
}

// Spending is the outcome of InterviewStore.Spend.
type Spending struct {
	OK bool
	// Daily says the day's budget refused (else the bucket); Wait is how
	// long until the same request would pass.
	Daily bool
	Wait  time.Duration
}

// CapRetryAfter is the Retry-After of a refusal at the in-progress cap.
// Nothing frees a slot by itself (the user finishes or discards an
// interview), so it only keeps automatic clients from hammering.
const CapRetryAfter = time.Minute

// AtCap is the refusal to start an interview beyond limit in progress.
func AtCap(limit int) error {
	p := Errorf(RateLimited, "You have %d interviews in progress, the most at once. Finish or discard one to start another.", limit)
	p.RetryAfter = CapRetryAfter
	return p
}

// Bucket is a token bucket rule: Burst tokens at once, then one more every
// Every. Name is the rule's name in the store, a constant of the service.
type Bucket struct {
	Name  string
	Burst int
	Every time.Duration
}

// Buckets keeps the throttles' token buckets, one per rule and key, on the
// store's clock, so every replica counts against the same ones. A key is
// what a rule counts (a client's network, an email, a browser), never a
// user's id; the store keeps only its digest.
type Buckets interface {
	// Take takes a token from key's bucket if it holds one. Otherwise it
	// takes nothing and returns how long until a token will be there.
	Take(ctx context.Context, b Bucket, key string) (bool, time.Duration, error)
	// GiveBack returns a token taken by Take, up to the burst: the request
	// it paid for did not happen or did not count.
	GiveBack(ctx context.Context, b Bucket, key string) error
	// Prune deletes the rule's buckets that have refilled.
	Prune(ctx context.Context, b Bucket) error
}

// KnownDevices remembers keys (an account and a browser where it signed
// in) for a while, on the store's clock; the store keeps only their digest.
type KnownDevices interface {
	// Add remembers key from now on.
	Add(ctx context.Context, key string) error
	// Has reports whether key was added within ttl.
	Has(ctx context.Context, key string, ttl time.Duration) (bool, error)
	// Prune forgets the keys added more than ttl ago.
	Prune(ctx context.Context, ttl time.Duration) error
}

// VoiceResource is what the daily voice allowance counts.
type VoiceResource string

// The counted voice resources.
const (
	SpeechChars     VoiceResource = "speech_chars"
	TranscribeBytes VoiceResource = "transcribe_bytes"
)

// VoiceAllowance is each user's daily voice budget, per UTC day. Spend
// reserves amount for the user's day and reports false, reserving nothing,
// when that would go over limit, with the time until the allowance resets;
// Refund gives back a reservation whose work the provider did not do.
type VoiceAllowance interface {
	Spend(ctx context.Context, userID string, r VoiceResource, amount, limit int64) (bool, time.Duration, error)
	Refund(ctx context.Context, userID string, r VoiceResource, amount int64) error
}
