package offline

import (
	"context"
	"fmt"
	"strings"

	"github.com/judgeworks/interview/internal/interviewer"
)

// The offline interviewer asks a follow-up only on a clear gap: something
// a rule can see in the words of the answers, or a key point the rubric
// (assess, the same reading that scores the answer) finds missing.
// Everything the candidate said on the main question (the counted
// answer of the main question and of each follow-up so far) is read
// together, and the first gap below that has not been asked about yet is
// the follow-up.
//
// For a behavioural question ("Tell me about a time…"):
//   - no result: none of the words that report an outcome;
//   - no number: no digit and no number word;
//   - "we" at least twice and never "I", "me" or "my".
//
// For any other question:
//   - fewer than half of its key points covered, by the rubric's reading of
//     words and meaning: the first one missed;
//   - no trade-off: none of the words that weigh one option against another.
//
// An empty answer has no gap to ask about: it has not started.
type gap struct {
	kind     string
	question string
}

var (
	resultWords = phrases("result", "outcome", "in the end", "ended up", "led to", "which meant", "impact",
		"reduc", "increas", "improv", "cut", "saved", "grew", "drop", "dropped", "fell", "rose", "achiev", "deliver",
		"launch", "shipped", "resolv", "fixed", "succeed", "success", "fail", "learned", "afterwards")
	numberWords = phrases("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"dozen", "hundred", "thousand", "million", "billion", "half", "twice", "double", "percent", "percentage")
)

// FollowUp asks about the first clear gap of thread not yet asked about.
func (iv *Interviewer) FollowUp(ctx context.Context, s interviewer.Setup, thread []interviewer.Result) (interviewer.Question, bool, error) {
	if err := ctx.Err(); err != nil {
		return interviewer.Question{}, false, err
	}
	if len(thread) == 0 {
		return interviewer.Question{}, false, nil
	}
	asked := map[string]bool{}
	for _, r := range thread[1:] {
		asked[r.Question.Text] = true
	}
	for _, g := range iv.gaps(thread[0].Question, interviewer.Combined(thread)) {
		if !asked[g.question] {
			return interviewer.Question{Text: g.question}, true, nil
		}
	}
	return interviewer.Question{}, false, nil
}

// gaps lists the clear gaps of answer to main question q, most important
// first.
func (iv *Interviewer) gaps(q interviewer.Question, answer string) []gap {
	if strings.TrimSpace(answer) == "" {
		return nil
	}
	toks := read(answer)
	var out []gap
	if interviewer.Behavioural(q.Text) {
		if !resultWords.in(toks) {
			out = append(out, gap{"result", "What was the result? Say what changed because of what you did, and how you knew."})
		}
		if !strings.ContainsAny(answer, "0123456789") && !numberWords.in(toks) {
			out = append(out, gap{"number", "Can you put a number on it: how much time, money, traffic, users or errors did it change?"})
		}
		if we, i := pronouns(answer); we >= 2 && i == 0 {
			out = append(out, gap{"ownership", "You described what the team did. What did you do yourself, and which decision was yours?"})
		}
		return out
	}
	points, _ := iv.pointsFor(q)
	a := assess(iv.rd, points, answer)
	if len(points) > 0 && 2*len(a.Missed) > len(points) {
		out = append(out, gap{"point", fmt.Sprintf("One point your answer did not reach: %s. Can you explain it and how it applies here?", lowerFirst(a.Missed[0]))})
	}
	if !a.HasTradeoff {
		out = append(out, gap{"tradeoff", "What are the trade-offs of your approach, and when would you choose differently?"})
	}
	return out
}

// pronouns counts the first-person plural and singular words of s.
func pronouns(s string) (we, i int) {
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z') && r != '\''
	}) {
		switch strings.SplitN(w, "'", 2)[0] { // "I'm", "we've"
		case "we", "our", "us", "ours":
			we++
		case "i", "me", "my", "mine", "myself":
			i++
		}
	}
	return we, i
}

// lowerFirst lowers a label's first letter unless it starts an acronym
// ("GET reads…", "HTTP caching") or a name.
func lowerFirst(s string) string {
	if len(s) < 2 || s[1] < 'a' || s[1] > 'z' {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
