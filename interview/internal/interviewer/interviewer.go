// Package interviewer defines what the interview service asks of an
// interviewer: open an interview, evaluate one answer, pick the next question
// or a follow-up, read a job description's requirements and write the final
// report's prose. Two implementations live beside it: a
// language model and the offline practice mode.
package interviewer

import (
	"context"
)

// Setup is what the candidate chose when starting an interview.
type Setup struct {
	CandidateName  string `json:"candidateName"`
	Role           string `json:"role"`
	Experience     string `json:"experience"`
	Difficulty     string `json:"difficulty"`
	TotalQuestions int    `json:"totalQuestions"`
	// FollowUps is how many follow-up questions each main question may
	// get (0 to 2); they do not count toward TotalQuestions.
	FollowUps int `json:"-"`
	// JobDescription is text the candidate pasted (may be empty). It is
	// left out of the setup's JSON: a model sees it only delimited as
	// untrusted text.
	JobDescription string `json:"-"`
}

// Difficulty levels, easiest first. Difficulties is the one list of them:
// a start is checked against it, the offline bank is written in it,
// GET /api/config serves it to the page (which copies none), and the
// database's CHECK on interviews.difficulty is a guard a test ties to it.
const (
	Easy   = "easy"
	Medium = "medium"
	Hard   = "hard"
	// DefaultDifficulty is the level the setup form starts on.
	DefaultDifficulty = Medium
)

// Difficulties returns the difficulty levels, easiest first.
func Difficulties() []string { return []string{Easy, Medium, Hard} }

// Question kinds.
const (
	Main     = "main"
	FollowUp = "followUp"
)

// Question is one interview question. ID is unique within an interview.
// A follow-up (Kind FollowUp) probes what its main question's answer left
// out; ParentID names that main question.
type Question struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Kind     string `json:"kind"`
	ParentID string `json:"parentId,omitempty"`
}

// IsFollowUp reports whether q is a follow-up.
func (q Question) IsFollowUp() bool { return q.Kind == FollowUp }

// MainAnswers is how many main questions results answer: follow-ups do not
// count toward the total. It is the one count of answered questions: the
// store keeps it beside the results (the lists read it from there), the
// API returns it as answeredQuestions and the report as questions.
func MainAnswers(results []Result) int {
	n := 0
	for _, r := range results {
		if !r.Question.IsFollowUp() {
			n++
		}
	}
	return n
}

// Opening is the welcome and the first question.
type Opening struct {
	Welcome  string   `json:"welcome"`
	Question Question `json:"question"`
}

// Evaluation is the judgement of one answer. Scores are integers 0–100.
type Evaluation struct {
	// Scorable is false for an answer with nothing to judge (empty,
	// noise, a few words): "not enough to score", every score 0, left
	// out of the averages.
	Scorable bool `json:"scorable"`
	// OffTopic says the answer does not address its question (it talks
	// about something else, or answers another question). It is an
	// answer, so it is scored, at most MaxOffTopicScore, and counted in
	// every average like any other.
	OffTopic          bool     `json:"offTopic"`
	Score             int      `json:"score"`
	TechnicalAccuracy int      `json:"technicalAccuracy"`
	Communication     int      `json:"communication"`
	Feedback          string   `json:"feedback"`
	Strengths         []string `json:"strengths"`
	Improvements      []string `json:"improvements"`
	// Evidence ties strengths and improvements to the answer's own words:
	// each Point is one of Strengths or Improvements and each Quote occurs
	// in the answer (see Checked).
	Evidence []Evidence `json:"evidence"`
	// Star is set for behavioural questions only.
	Star *STAR `json:"star,omitempty"`
	// Delivery is set for an answer that was spoken (dictated or recorded).
	Delivery *Delivery `json:"delivery,omitempty"`
}

// Evidence kinds.
const (
	Strength    = "strength"
	Improvement = "improvement"
)

// Evidence is a strength or an improvement with the words of the answer it
// rests on.
type Evidence struct {
	Kind  string `json:"kind"`
	Point string `json:"point"`
	Quote string `json:"quote"`
}

// STAR says which parts of a behavioural answer's story were told.
type STAR struct {
	Situation bool `json:"situation"`
	Task      bool `json:"task"`
	Action    bool `json:"action"`
	Result    bool `json:"result"`
}

// Result is one answered question as stored in question_results. Retry
// is the candidate's second try at it, if they took one.
type Result struct {
	Question   Question   `json:"question"`
	Answer     string     `json:"answer"`
	Evaluation Evaluation `json:"evaluation"`
	Retry      *Attempt   `json:"retry,omitempty"`
}

// Summary is the report's prose. The numeric averages are computed by the
// service from the results, never by the interviewer.
type Summary struct {
	Strengths       []string `json:"strengths"`
	Weaknesses      []string `json:"weaknesses"`
	SuggestedTopics []string `json:"suggestedTopics"`
	Feedback        string   `json:"feedback"`
}

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
