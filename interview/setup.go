package interview

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
