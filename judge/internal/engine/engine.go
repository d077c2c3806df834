// Package engine is where the judge's engines live, side by side, each in
// its own package and each an Engine:
//
//   - semantic: the default offline engine, reading meaning through word
//     vectors (local/semantic-1.0).
//   - lexical: the offline engine that reads shared words (local/lexical-1.0).
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

	"github.com/judgeworks/judge/internal/limits"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// Engine answers a request's questions. The judge validates a request
// before an engine sees it: an engine may rely on the bounds of docs/api.md.
type Engine interface {
	// Ask answers every question of req. A failure is a *fault.Error or a
	// *systemone.ValidationError (a request the engine cannot take
	// whole), or the context's error.
	Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error)
	// PlannedInputTokens is what answering req will cost in input tokens,
	// charged to the caller's token budget before any work, along the
	// most expensive path the engine may take: for an upstream engine
	// every call's prompt, which can be many times the request's own
	// tokens (an engine that sends nothing upstream plans OwnTokens).
	// Retries after a failure (a provider fault, a malformed reply, the
	// next provider of a fallback) are not planned. The registry takes
	// only Engines, so no model is served without a plan.
	PlannedInputTokens(req systemone.Request) int
}

// OwnTokens is the request's own input tokens, counted as the token
// bounds count them: the plan of an engine that sends nothing upstream,
// or forwards the request as it came.
func OwnTokens(req systemone.Request) int { return limits.Count(req, tokens.Default()) }
