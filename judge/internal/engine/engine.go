// Package engine is where the judge's engines live, side by side, each in
// its own package and each an Engine:
//
//   - semantic: the default offline engine, reading meaning through word
//     vectors (local/semantic-1.0).
//   - lexical: the other offline engine, reading word overlap with
//     negation through shared/words (local/lexical-1.0).
//   - chat: a language model behind an OpenAI-compatible chat API, through
//     the client-side adapter shared/chatadapter.
//   - providers: upstream services that answer typed questions themselves
//     (a System One service, OpenAI's Decisions API) and the fallback that
//     tries them in order.
//
// This package holds what they share: the interface, and the slots an
// upstream engine's calls pass (Slots). Engines fail with the judge's codes
// (judge/internal/fault), never a vocabulary of their own; see
// docs/judge.md, "Engines".
package engine

import (
	"context"

	"github.com/judgeworks/shared/systemone"
)

// Engine answers a request's questions. The judge checks a request once
// before an engine sees it (judge/internal/limits.Check): an engine may
// rely on the bounds of docs/api.md, and on each choice's options coming
// in their canonical order (systemone.CanonicalOptions), the order every
// engine shows and sums them in; it does not sort them again.
type Engine interface {
	// Ask answers every question of req. A failure is a *fault.Error or a
	// *systemone.ValidationError (a request the engine cannot take
	// whole), or the context's error.
	Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error)
	// PlannedInputTokens is what answering req will cost in input tokens,
	// charged to the caller's token budget before any work, along the
	// most expensive path the engine may take: the request's own tokens as
	// validation counted them (tokens) for an engine that reads the
	// request once or forwards it as it came, every call's prompt for one
	// that makes several upstream calls, which can be many times more.
	// Retries after a failure (a provider fault, a malformed reply, the
	// next provider of a fallback) are not planned. The registry takes
	// only Engines, so no model is served without a plan.
	PlannedInputTokens(req systemone.Request, tokens int) int
}
