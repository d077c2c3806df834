package interview

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

// Opening is the welcome and the first question.
type Opening struct {
	Welcome  string   `json:"welcome"`
	Question Question `json:"question"`
}
