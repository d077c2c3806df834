// Package providers holds the judge's engines that forward a request to an
// upstream service which answers typed questions itself: a System One
// service (SystemOne: the hosted service, llama.cpp, Ollama or another
// judge) and OpenAI's Decisions API (Decisions); and Fallback, which tries
// a model's providers in order. Each is a systemone.Backend, registered by
// judge/cmd/judge beside the offline engines and the chat adapter.
//
// What the judge adds to an upstream's answers is the same as for the chat
// adapter: the request passes shared/coherent's rules (upstream.go), a
// choice's options go out in their canonical order
// (systemone.CanonicalOptions) under neutral ids (upstream.go), the
// calibration file's temperatures are applied per question type
// (calibrate.Scale, then systemone.BuildAnswer, as the chat adapter does),
// the answer names the exact upstream version
// (the registry's NameFromBackend), and a bounded number of calls in
// flight, beyond which a request is refused at once as overloaded.
//
// Failures are the judge's codes (judge/internal/fault), made here once:
// Overloaded (saturated, failing, too slow), Misconfigured (the upstream
// refused the key, model or base URL), InvalidOutput (an answer against
// the contract), a *systemone.Error from a System One upstream (its own
// statuses), and for a request the upstream refuses as the caller's to
// fix, a *systemone.ValidationError or InvalidArgument or TooLarge (see
// CallersFault). See docs/judge.md, "Providers".
package providers

import (
	"errors"
	"fmt"
	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/fairqueue"
	"math"
	"strconv"
	"time"

	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/systemone"
)

// Settings say where an upstream is and how the judge calls it.
type Settings struct {
	// BaseURL is the service's address: for SystemOne the base a System
	// One client is given (/v1/systemone is appended), for Decisions the
	// OpenAI base URL including /v1.
	BaseURL string
	APIKey  string
	// Model is the upstream's model name, sent in every request and the
	// key of the calibration file's entry.
	Model string
	// Source names the provider in errors and logs ("LLM_*", or a models
	// file entry and position); KeyEnv names the variable that held the
	// key. Neither is secret.
	Source string
	KeyEnv string
	// MaxInFlight bounds the calls in flight to this upstream, shared
	// among the judge's keys in turn (engine.Slots). Zero means
	// DefaultMaxInFlight.
	MaxInFlight int
	// MaxWait is the longest estimated wait for a slot a request is
	// admitted with, and Queue the most calls admitted and waiting; a
	// request beyond either is refused at once as fault.Overloaded, so a
	// Fallback moves on to the next
	// provider. Zero for both: only what starts at once is admitted.
	MaxWait time.Duration
	Queue   int
	// CallTimeout bounds one call; zero means DefaultCallTimeout.
	CallTimeout time.Duration
	// Calibration holds the temperatures applied to the answers.
	Calibration calibrate.File
}

// Defaults of Settings, and the Retry-After of an overload when the
// upstream named none.
const (
	DefaultRetryAfter  = 2 * time.Second
	DefaultMaxInFlight = 64
	DefaultCallTimeout = 30 * time.Second
)

func (s Settings) withDefaults() Settings {
	if s.MaxInFlight <= 0 {
		s.MaxInFlight = DefaultMaxInFlight
	}
	if s.CallTimeout <= 0 {
		s.CallTimeout = DefaultCallTimeout
	}
	return s
}

// temperature is the calibration file's temperature for answers of this
// upstream read as readout to questions like q; 1 changes nothing.
func (s Settings) temperature(readout string, q systemone.Question) float64 {
	return s.Calibration.Temperature(s.Model, readout, string(q.Type))
}

// CallersFault reports whether err refuses the request itself: a
// validation error, or an upstream's 400 or 413 about what was asked.
// Another provider would refuse the same request, so Fallback returns it
// rather than trying the next one.
func CallersFault(err error) bool {
	var ve *systemone.ValidationError
	if errors.As(err, &ve) {
		return true
	}
	var fe *fault.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case fault.InvalidArgument, fault.TooLarge, fault.TokensExceeded:
			return true
		}
	}
	return false
}

// calibrated is the wire answer to q from w, one probability per outcome
// of q (yes and no; each option in q's order; each level), scaled by
// temperature t: the chat adapter's order of operations.
func calibrated(q systemone.Question, w []float64, t float64) (systemone.Answer, error) {
	if t != 1 {
		w = calibrate.Scale(w, t)
	}
	return systemone.BuildAnswer(q, w)
}

// weights reads a System One answer to q back into one probability per
// outcome of q, checking that it is an answer to q: its type, a
// probability in [0, 1] for noul, exactly q's options or levels, each a
// finite non-negative number, not all zero.
func weights(q systemone.Question, a systemone.Answer) ([]float64, error) {
	if a.Type != q.Type {
		return nil, fmt.Errorf("a %s answer to a %s question", a.Type, q.Type)
	}
	var keys []string
	switch q.Type {
	case systemone.TypeNoul:
		if a.Noul == nil || !(*a.Noul >= 0 && *a.Noul <= 1) {
			return nil, errors.New("a noul answer without a probability in [0, 1]")
		}
		return []float64{*a.Noul, 1 - *a.Noul}, nil
	case systemone.TypeChoice:
		keys = make([]string, len(q.Options))
		for i, o := range q.Options {
			keys[i] = o.Name
		}
	case systemone.TypeScore:
		keys = make([]string, len(q.Levels))
		for i := range q.Levels {
			keys[i] = strconv.Itoa(i)
		}
	}
	if len(a.Probabilities) != len(keys) {
		return nil, fmt.Errorf("%d probabilities for %d outcomes", len(a.Probabilities), len(keys))
	}
	w := make([]float64, len(keys))
	sum := 0.0
	for i, k := range keys {
		p, ok := a.Probabilities[k]
		if !ok || math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
			return nil, fmt.Errorf("no usable probability for %q", k)
		}
		w[i] = p
		sum += p
	}
	if sum == 0 {
		return nil, errors.New("every probability is zero")
	}
	return w, nil
}

// withCause keeps an upstream's own words (which may quote the model, the
// key or the request) out of err's message, for callers, and in its
// cause, for the judge's log, redacted of s's secrets and trimmed.
func withCause(err error, s Settings, detail string) error {
	var fe *fault.Error
	if errors.As(err, &fe) {
		detail = chatmodel.Excerpt(chatmodel.Settings{BaseURL: s.BaseURL, APIKey: s.APIKey}.Redact(detail))
		fe.Err = errors.New(s.Source + ": " + detail)
	}
	return err
}

// invalid is the error of an answer against the upstream's contract.
func invalid(source, format string, args ...any) error {
	return fault.New(fault.InvalidOutput, "%s: %s", source, fmt.Sprintf(format, args...))
}

// newSlots returns the calls in flight to the upstream s names.
func newSlots(s Settings) *engine.Slots {
	return engine.NewSlots(fairqueue.Config{Slots: s.MaxInFlight, Queue: s.Queue, MaxWait: s.MaxWait}, s.Source)
}
