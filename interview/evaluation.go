package interview

// Evaluation is the judgement of one answer. Scores are integers 0–100.
type Evaluation struct {
	// Scorable is false for an answer with nothing to judge (empty,
	// noise, a few words): "not enough to score", every score 0, left
	// out of the averages.
	Scorable bool `json:"scorable"`
	// OffTopic says the answer does not address its question (it talks
	// about something else, or answers another question). It is an
	// answer, so it is scored, at most interviewer.MaxOffTopicScore, and
	// counted in every average like any other.
	OffTopic          bool     `json:"offTopic"`
	Score             int      `json:"score"`
	TechnicalAccuracy int      `json:"technicalAccuracy"`
	Communication     int      `json:"communication"`
	Feedback          string   `json:"feedback"`
	Strengths         []string `json:"strengths"`
	Improvements      []string `json:"improvements"`
	// Evidence ties strengths and improvements to the answer's own words:
	// each Point is one of Strengths or Improvements and each Quote occurs
	// in the answer (see interviewer.Checked).
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

// Delivery is how a spoken answer was delivered.
type Delivery struct {
	Seconds        float64 `json:"seconds"`
	WordsPerMinute int     `json:"wordsPerMinute"`
	Words          int     `json:"words"`
	// Fillers counts the filler words the transcript kept ("um", "you
	// know"); many speech-to-text models drop them, so none found says
	// little.
	Fillers []Filler `json:"fillers"`
}

// Filler is one filler word or phrase and how often it occurs.
type Filler struct {
	Word  string `json:"word"`
	Count int    `json:"count"`
}
