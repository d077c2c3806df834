package interview

import "time"

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
