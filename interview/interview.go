// Package interview is the mock-interview service's domain, the centre
// every other package of the service speaks: the nouns (an interview's
// setup, its questions, the answers with their evaluations, the report),
// the error type with its codes, and the interfaces the adapters around it
// implement (the interviewers). It imports nothing of the service.
package interview
