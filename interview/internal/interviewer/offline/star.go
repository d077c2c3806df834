package offline

import (
	"regexp"

	"github.com/judgeworks/interview"
)

// The STAR parts of a behavioural answer are found by the phrases that
// usually tell them. Each list is short and plain; docs/interviewer.md has
// them all.
var (
	situationCues = phrases("at my last", "at my previous", "in my last", "in my previous", "when i was", "we were",
		"we had", "our team", "last year", "years ago", "at the time", "there was", "working on", "worked on",
		"working at", "worked at", "back when", "the context", "the situation", "the project", "a customer", "a client")
	taskCues = phrases("i was responsible", "responsible for", "my job was", "my role was", "my task", "i had to",
		"i needed to", "i was asked", "my goal", "the goal was", "we needed to", "we had to", "i was tasked",
		"i owned", "the challenge", "the problem was", "i wanted to", "the task", "i was on call", "i was the on call")
	// A result reports a change or an ending; a number alone ("errors
	// were at 4 percent") sets the scene as often as it reports an
	// outcome, so it counts only beside a word of change (resultDigits).
	resultCues = phrases("as a result", "in the end", "the result", "resulted", "outcome", "we shipped", "we delivered",
		"we launched", "reduced", "increased", "improved", "saved", "went from", "went down", "went back", "dropped",
		"fell", "rose", "grew", "ended up", "led to", "which meant", "impact", "achieved", "resolved", "fixed",
		"eventually", "i learned", "i learnt", "lesson", "since then", "it worked", "succeeded", "no repeat",
		"never happened again")
	// An action is told in the first person: "I" and a verb in the past
	// tense ("I wrote", "I decided"), or "so I", "then I".
	actionCue    = regexp.MustCompile(`(?i)\b(i|we)\s+(\w+ed|wrote|built|set|ran|made|took|led|met|spoke|told|sent|began|chose|drove|gave|brought|found|went|got|did|sat|split|put|cut|paired|kept)\b|\b(so|then|first)\s+i\b`)
	resultDigits = regexp.MustCompile(`(?i)\b(to|from|by|under|below|down|up)\s+(about\s+|around\s+|only\s+)?\d[\d.,]*\s*(%|percent|x\b|times|ms|seconds|minutes|hours|days|weeks)`)
	// dated tells a story's time: a year, a month, "last spring", "two
	// years ago". A dated story is a concrete example and sets its scene.
	dated = regexp.MustCompile(`(?i)\b(19|20)\d\d\b|\b(january|february|march|april|june|july|august|september|october|november|december)\b|\b(last|that|one|previous)\s+(year|month|week|quarter|spring|summer|autumn|fall|winter|sprint|release)\b|\b(\w+|\d+)\s+(years?|months?|weeks?)\s+ago\b`)
)

// storyPart is one STAR part of a behavioural answer as the feedback
// tells it: the sentences of the answer that tell it (none when it is
// missing), or told earlier (context: a follow-up's earlier answers).
type storyPart struct {
	told, ask string
	spans     []span
	earlier   bool
}

// star finds the STAR parts of the answer: a part the answer tells is a
// strength quoting a sentence that tells it, a part told in an earlier
// answer on the question counts without a quote, and a missing part is an
// improvement.
func (a assessment) star(context assessment) (interview.STAR, []storyPart) {
	parts, told := a.storyParts(), context.storyParts()
	out := []storyPart{
		{told: "Set the scene (STAR: situation)", ask: "Set the scene first: where you were and what was going on (STAR: situation)"},
		{told: "Said what you had to achieve (STAR: task)", ask: "Say what you were responsible for or had to achieve (STAR: task)"},
		{told: "Said what you did yourself (STAR: action)", ask: "Say what you did yourself, in the first person (STAR: action)"},
		{told: "Gave the outcome (STAR: result)", ask: "End with the outcome, with a number if you can, and what you learned (STAR: result)"},
	}
	for i := range out {
		if parts[i] >= 0 {
			out[i].spans = []span{{parts[i], parts[i]}}
		}
		out[i].earlier = parts[i] < 0 && told[i] >= 0
	}
	st := interview.STAR{Situation: parts[0] >= 0 || told[0] >= 0, Task: parts[1] >= 0 || told[1] >= 0,
		Action: parts[2] >= 0 || told[2] >= 0, Result: parts[3] >= 0 || told[3] >= 0}
	return st, out
}

// storyParts are the sentences that tell the situation, task, action and
// result, in that order; -1 for a part not told. A sentence that sets the
// scene is neither the action nor the result, and one that sets the task
// is not the action ("…so I had to…").
func (a assessment) storyParts() [4]int {
	situation, task, action, result := -1, -1, -1, -1
	for i := range a.text.Sentences {
		s := a.text.Quote(i)
		if situation < 0 && (situationCues.in(a.sentTokens[i]) || dated.MatchString(s)) {
			situation = i
		}
		if task < 0 && taskCues.in(a.sentTokens[i]) {
			task = i
		}
		if action < 0 && i != situation && i != task && actionCue.MatchString(s) {
			action = i
		}
		if result < 0 && i != situation && (resultCues.in(a.sentTokens[i]) || resultDigits.MatchString(s)) {
			result = i
		}
	}
	return [4]int{situation, task, action, result}
}
