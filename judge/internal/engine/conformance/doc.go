// Package conformance holds the tests every engine of the judge passes:
// the offline engines and the chat engine (against a local server that
// speaks the OpenAI chat-completions wire format), one table of engines,
// one test per law. See docs/api.md, "Coherence".
package conformance
