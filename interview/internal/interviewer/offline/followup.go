package offline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer"
)

// The offline interviewer asks a follow-up only on a clear gap: something
// a rule can see in the words of the answers, or a key point the rubric
// (assess, the same reading that scores the answer) finds missing.
// Everything the candidate said on the main question (the counted
// answer of the main question and of each follow-up so far) is read
// together, and the first gap below that has not been asked about yet is
// the follow-up. It refers to the answer: it quotes a phrase of it (the
// sentence nearest the gap) and names what it left out.
//
// For a behavioural question ("Tell me about a time…"):
//   - no result, as the STAR reading finds one (storyParts);
//   - no number: no digit and no number word;
//   - "we" at least twice and never "I", "me" or "my".
//
// For any other question:
//   - fewer than half of its key points covered, by the rubric's reading of
//     words and meaning: the first one missed;
//   - no trade-off, by the rubric's reading of one.
//
// An empty answer has no gap to ask about: it has not started.
type gap struct {
	// ask is the part of the question that names the gap; it is the same
	// whatever the answer said, so a gap is asked about once.
	ask string
	// near is the sentence of the answer the follow-up quotes.
	near string
}

var (
	numberWords = phrases("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"dozen", "hundred", "thousand", "million", "billion", "half", "twice", "double", "percent", "percentage")
	weWords = phrases("we", "our", "us")
)

// FollowUp asks about the first clear gap of thread not yet asked about.
func (iv *Interviewer) FollowUp(ctx context.Context, s interview.Setup, thread []interview.Result) (interview.Question, bool, error) {
	if err := ctx.Err(); err != nil {
		return interview.Question{}, false, err
	}
	if len(thread) == 0 {
		return interview.Question{}, false, nil
	}
	for _, g := range iv.gaps(thread[0].Question, interview.Combined(thread)) {
		if !slices.ContainsFunc(thread[1:], func(r interview.Result) bool { return strings.Contains(r.Question.Text, g.ask) }) {
			return interview.Question{Text: g.question()}, true, nil
		}
	}
	return interview.Question{}, false, nil
}

// question is the follow-up on g: the phrase of the answer it refers to,
// then what it asks.
func (g gap) question() string {
	if p := excerpt(g.near, maxPhraseWords); p != "" {
		return fmt.Sprintf("You said “%s”. %s", p, g.ask)
	}
	return g.ask
}

// A follow-up quotes at most maxPhraseWords words of the answer, and at
// most maxPhraseRunes characters (an answer may hold very long "words").
const (
	maxPhraseWords = 14
	maxPhraseRunes = 120
)

// excerpt is s cut to at most n words and maxPhraseRunes characters, at a
// word boundary where there is one, an ellipsis marking the cut, without
// the punctuation that ends it.
func excerpt(s string, n int) string {
	f := strings.Fields(s)
	cut := len(f) > n
	if cut {
		f = f[:n]
	}
	out := strings.Join(f, " ")
	if r := []rune(out); len(r) > maxPhraseRunes {
		out, cut = string(r[:maxPhraseRunes]), true
		if i := strings.LastIndexByte(out, ' '); i > 0 {
			out = out[:i]
		}
	}
	if cut {
		return out + "…"
	}
	return strings.TrimRight(out, ".!?;:,")
}

// gaps lists the clear gaps of answer to main question q, most important
// first, each with the sentence of the answer nearest it.
func (iv *Interviewer) gaps(q interview.Question, answer string) []gap {
	if strings.TrimSpace(answer) == "" {
		return nil
	}
	var out []gap
	if interviewer.Behavioural(q.Text) {
		a := assess(iv.rd, nil, answer)
		parts := a.storyParts()
		// The sentence a gap is nearest: the action for a missing
		// result, the result for a missing number, else the first.
		near := func(prefer ...int) string {
			for _, i := range prefer {
				if i >= 0 {
					return a.text.Quote(i)
				}
			}
			return a.quote(0)
		}
		toks := read(answer)
		if parts[3] < 0 { // the STAR reading's result: one rule for both
			out = append(out, gap{"What was the result? Say what changed because of what you did, and how you knew.", near(parts[2], parts[1])})
		}
		if !strings.ContainsAny(answer, "0123456789") && !numberWords.in(toks) {
			out = append(out, gap{"Can you put a number on it: how much time, money, traffic, users or errors did it change?", near(parts[3], parts[2])})
		}
		if we, i := pronouns(answer); we >= 2 && i == 0 {
			weSentence := -1
			for k, st := range a.sentTokens {
				if weWords.in(st) {
					weSentence = k
					break
				}
			}
			out = append(out, gap{"That is what the team did. What did you do yourself, and which decision was yours?", near(weSentence)})
		}
		return out
	}
	points, _ := iv.pointsFor(q)
	a := assess(iv.rd, points, answer)
	if len(points) > 0 && 2*len(a.Missed) > len(points) {
		// A point the answer named or touched on comes first: its
		// sentence is something to build on. Else the first one missed.
		g := gap{fmt.Sprintf("One key point it did not reach: %s. Can you explain it and how it applies here?", lowerFirst(a.Missed[0])), a.quote(0)}
		for _, p := range a.Points {
			if (p.Found == foundNamed || p.Found == foundPartly) && len(p.Spans) > 0 {
				g = gap{fmt.Sprintf("It touched on a key point without explaining it: %s. Can you explain it and how it applies here?", lowerFirst(p.Label)), a.quoteSpan(p.Spans[0])}
				break
			}
		}
		out = append(out, g)
	}
	if !a.HasTradeoff {
		near := a.quote(0)
		for _, p := range a.Points {
			if (p.Found == foundKeyword || p.Found == foundMeaning) && len(p.Spans) > 0 {
				near = a.quoteSpan(p.Spans[0]) // the approach the answer chose
				break
			}
		}
		out = append(out, gap{"What are the trade-offs of that approach: what does it cost, and when would you choose differently?", near})
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
