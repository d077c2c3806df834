package interviewer

import (
	"math"
	"strings"
	"unicode"

	"github.com/judgeworks/interview"
)

// The accepted length of a recording, in seconds.
const (
	MinRecordingSeconds = 1
	MaxRecordingSeconds = 3600
)

// fillerWords are counted as whole words or phrases. "like" is one only
// where it cannot be a verb or a comparison: after a comma, or before
// another filler or a comma ("it was, like, slow").
var fillerWords = []string{"um", "umm", "uh", "uhh", "er", "erm", "ah", "hmm", "you know", "i mean", "sort of", "kind of", "basically", "like"}

// MaxWordsPerMinute is the fastest an answer can have been spoken: fast
// talkers reach about 250 words a minute, auctioneers 400. An answer
// claimed to be spoken faster was not spoken in that time (a typed
// answer sent with the length of a dictation that heard nothing, say),
// so it gets no delivery figures.
const MaxWordsPerMinute = 400

// MeasureDelivery computes the delivery of answer spoken in seconds; nil
// when the answer cannot have been spoken in that time.
func MeasureDelivery(answer string, seconds float64) *interview.Delivery {
	words := strings.Fields(answer)
	if seconds <= 0 || float64(len(words))*60/seconds > MaxWordsPerMinute {
		return nil
	}
	d := &interview.Delivery{Seconds: math.Round(seconds*10) / 10, Words: len(words), Fillers: []interview.Filler{}}
	d.WordsPerMinute = int(math.Round(float64(len(words)) * 60 / seconds))
	toks, commaAfter := fillerTokens(answer)
	for _, f := range fillerWords {
		fw := strings.Fields(f)
		n := 0
		for i := 0; i+len(fw) <= len(toks); i++ {
			match := true
			for j, w := range fw {
				if toks[i+j] != w {
					match = false
					break
				}
			}
			if !match {
				continue
			}
			if f == "like" && !(i > 0 && commaAfter[i-1]) && !commaAfter[i] {
				continue
			}
			n++
		}
		if n > 0 {
			d.Fillers = append(d.Fillers, interview.Filler{Word: f, Count: n})
		}
	}
	return d
}

// fillerTokens splits s into lower-case words and says which are followed
// by a comma (or a dash or ellipsis).
func fillerTokens(s string) ([]string, []bool) {
	var toks []string
	var comma []bool
	var w []rune
	flush := func() {
		if len(w) > 0 {
			toks = append(toks, string(w))
			comma = append(comma, false)
			w = w[:0]
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || r == '\'' || r == '’':
			w = append(w, unicode.ToLower(r))
		case r == ',' || r == '—' || r == '–' || r == '…':
			flush()
			if len(comma) > 0 {
				comma[len(comma)-1] = true
			}
		default:
			flush()
		}
	}
	flush()
	return toks, comma
}
