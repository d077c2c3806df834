package interview

// Summary is the report's prose. The numeric averages are computed by the
// report package (report.Build) from the results, never by the
// interviewer.
type Summary struct {
	Strengths       []string `json:"strengths"`
	Weaknesses      []string `json:"weaknesses"`
	SuggestedTopics []string `json:"suggestedTopics"`
	Feedback        string   `json:"feedback"`
}

// Report is the body of POST /api/interview/finish.
type Report struct {
	// The averages over the main questions whose counted answer was
	// scored; nil (null) when none was.
	OverallScore       *int `json:"overallScore"`
	TechnicalAccuracy  *int `json:"technicalAccuracy"`
	CommunicationScore *int `json:"communicationScore"`
	// Questions is how many main questions were answered, Scored how many
	// of them count in the averages.
	Questions       int      `json:"questions"`
	Scored          int      `json:"scoredQuestions"`
	Strengths       []string `json:"strengths"`
	Weaknesses      []string `json:"weaknesses"`
	SuggestedTopics []string `json:"suggestedTopics"`
	Feedback        string   `json:"feedback"`
	// QuestionResults are every answered question in the order asked,
	// follow-ups after their main question.
	QuestionResults []Item `json:"questionResults"`
	// Requirements are the job description's main requirements and the
	// answers that covered each; empty without a job description.
	Requirements []Requirement `json:"requirements"`
}

// Counted values: which answer of an item the averages use.
const (
	CountedAnswer = "answer"
	CountedRetry  = "retry"
)

// Item is one answered question. Counted is set on the one item of each
// main question whose evaluation the averages use (the main question's
// or one of its follow-ups'): "answer" for its first answer, "retry" for
// its second try.
type Item struct {
	Result
	Counted string `json:"counted,omitempty"`
}

// Requirement is one requirement of the job description and the questions
// (by id) whose answers covered it; none means no answer touched it.
type Requirement struct {
	Text      string   `json:"text"`
	CoveredBy []string `json:"coveredBy"`
}
