package interview

import "context"

// Interviewer conducts an interview. Implementations must be safe for
// concurrent use and must honour ctx.
type Interviewer interface {
	// Mode names the implementation for the API and the page: "language-model" or "offline".
	Mode() string
	Open(ctx context.Context, s Setup) (Opening, error)
	// Evaluate judges answer, the answer to q (the stored current
	// question). For a follow-up, earlier is what was said on its main
	// question before it (earlier[0] is the main question's result): the
	// context the answer was given in, never judged again. Its technical
	// accuracy is what the candidate has shown on the main question so
	// far; everything else (communication, feedback, every quote, any
	// figure of length) is about answer alone.
	Evaluate(ctx context.Context, s Setup, q Question, earlier []Result, answer string) (Evaluation, error)
	// Next returns main question number len(done)+1, given the answered
	// main questions (follow-ups are not passed).
	Next(ctx context.Context, s Setup, done []Result) (Question, error)
	Summarize(ctx context.Context, s Setup, results []Result) (Summary, error)
	// FollowUp returns a follow-up question on thread, a main question's
	// result followed by its follow-ups' so far, aimed at what the answers
	// leave out; false when nothing is worth asking. The service sets the
	// returned question's id, kind and parent.
	FollowUp(ctx context.Context, s Setup, thread []Result) (Question, bool, error)
	// Requirements lists the main requirements of s.JobDescription (none
	// when it is empty), each a short phrase.
	Requirements(ctx context.Context, s Setup) ([]string, error)
}
