package chatadapter

import "time"

// The adapter's failures say what happened, not which HTTP status a server
// should answer with: a server maps them to its own codes in one place (the
// judge does in judge/internal/fault). Besides these three, Adapter.Ask
// returns a *systemone.ValidationError for a request outside the API's
// bounds, and the context's error, wrapped, when the caller gives up.

// OverloadedError means the provider could not answer within the capacity
// or the time there is: the upstream queue is full, the retries of a
// throttled or failing provider ran out, or the request's deadline passed.
// The same request may succeed after RetryAfter.
type OverloadedError struct {
	// Message says which, with the provider's last failure when there was one.
	Message string
	// RetryAfter is the provider's own wait when it named one, else
	// DefaultOverloadRetryAfter.
	RetryAfter time.Duration
	// Err is context.DeadlineExceeded when the request's deadline passed.
	Err error
}

func (e *OverloadedError) Error() string { return e.Message }

func (e *OverloadedError) Unwrap() error { return e.Err }

// MisconfiguredError means the provider refused the adapter's settings (an
// unknown key or model, a base URL with no chat endpoint behind it, a
// readout the model does not offer): retrying cannot help until Setting is
// fixed.
type MisconfiguredError struct {
	// Setting is the setting to check: chatmodel.EnvAPIKey, EnvModel or EnvBaseURL.
	Setting string
	// Message says what the provider did and names Setting; it never quotes
	// the key, nor provider text that might.
	Message string
}

func (e *MisconfiguredError) Error() string { return e.Message }

// InvalidOutputError means the model kept answering outside the asked
// format after every corrective retry: the upstream broke its contract.
type InvalidOutputError struct {
	Message string
}

func (e *InvalidOutputError) Error() string { return e.Message }
