package offline

import (
	"regexp"
	"strings"

	"github.com/judgeworks/interview/internal/interviewer"
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
		"i owned", "the challenge", "the problem was", "i wanted to", "the task")
	resultCues = phrases("as a result", "in the end", "the result", "resulted", "outcome", "we shipped", "we delivered",
		"we launched", "reduced", "increased", "improved", "saved", "went from", "percent", "ended up",
		"eventually", "i learned", "i learnt", "lesson", "since then", "afterwards", "it worked", "succeeded")
	// An action is told in the first person: "I" and a verb in the past
	// tense ("I wrote", "I decided"), or "so I", "then I".
	actionCue    = regexp.MustCompile(`(?i)\b(i|we)\s+(\w+ed|wrote|built|set|ran|made|took|led|met|spoke|told|sent|began|chose|drove|gave|brought|found|went|got|did|sat|split|put|cut|paired|kept)\b|\b(so|then|first)\s+i\b`)
	resultDigits = regexp.MustCompile(`\d+\s*(%|percent|x\b|times|ms|seconds|minutes|hours|days|weeks)`)
)

// star finds the STAR parts of the answer, with evidence: what was told
// quotes its first sentence, what is missing is an improvement.
func (a assessment) star() (interviewer.STAR, []interviewer.Evidence) {
	find := func(cues phraseList) int { return a.sentenceWith(cues) }
	situation := find(situationCues)
	task := find(taskCues)
	action := -1
	result := find(resultCues)
	for i := range a.text.Sentences {
		s := a.text.Quote(i)
		if action < 0 && actionCue.MatchString(s) && i != situation {
			action = i
		}
		if result < 0 && resultDigits.MatchString(strings.ToLower(s)) {
			result = i
		}
	}
	st := interviewer.STAR{Situation: situation >= 0, Task: task >= 0, Action: action >= 0, Result: result >= 0}
	var out []interviewer.Evidence
	for _, p := range []struct {
		at              int
		name, told, ask string
	}{
		{situation, "situation", "Set the scene (STAR: situation)", "Set the scene first: where you were and what was going on (STAR: situation)"},
		{task, "task", "Said what you had to achieve (STAR: task)", "Say what you were responsible for or had to achieve (STAR: task)"},
		{action, "action", "Said what you did yourself (STAR: action)", "Say what you did yourself, in the first person (STAR: action)"},
		{result, "result", "Gave the outcome (STAR: result)", "End with the outcome, with a number if you can, and what you learned (STAR: result)"},
	} {
		if p.at >= 0 {
			out = append(out, interviewer.Evidence{Kind: interviewer.Strength, Point: p.told, Quote: a.quote(p.at)})
		} else {
			out = append(out, interviewer.Evidence{Kind: interviewer.Improvement, Point: p.ask})
		}
	}
	return st, out
}
