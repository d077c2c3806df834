package interviews

import (
	"strings"
	"unicode/utf8"

	"github.com/judgeworks/interview"
)

// Families are the question families a role's questions come from, as the
// setup page tells the candidate before an interview starts.
type Families struct {
	// Names are the families, in the bank's order; empty when the
	// interviewer writes questions for any role (a language model).
	Names []string
	// General says the role names no family: the questions are the
	// general ones every role gets (Names holds their family).
	General bool
}

// familyReader is an interviewer that draws its questions from families
// (the offline practice bank).
type familyReader interface {
	FamiliesFor(role string) (names []string, matched bool)
}

// Families says where the questions of an interview for role would come
// from. The role is checked as a start checks it.
func (s *Service) Families(role string) (Families, error) {
	role = strings.TrimSpace(role)
	if role == "" || utf8.RuneCountInString(role) > MaxSetupChars || strings.ContainsRune(role, 0) {
		return Families{}, interview.Errorf(interview.Invalid, "role must be 1 to %d characters, without NUL", MaxSetupChars)
	}
	fr, ok := s.iv.(familyReader)
	if !ok {
		return Families{Names: []string{}}, nil
	}
	names, matched := fr.FamiliesFor(role)
	return Families{Names: names, General: !matched}, nil
}
