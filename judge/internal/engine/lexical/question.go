package lexical

import (
	"strings"

	"github.com/judgeworks/judge/internal/keep"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/words"
)

// compiled is a question as the engine answers it: its candidates (see
// compile), each a list of weighed terms in sorted order, and the slots
// the state's counts go to. Every term of a candidate and its negation
// share a stem: slots maps the stem to k, where the state's count of the
// stem goes to counts[k] and of its negation to counts[k+1]. A compiled
// question is never changed, so any number of requests read it at once.
type compiled struct {
	slots map[string]int
	cands [][]weighed
}

// weighed is one term of a candidate: its inverse frequency, and the
// slots of the state's counts of the term (says) and of its negation
// (denies).
type weighed struct {
	idf          float64
	says, denies int
}

// weigh compiles the candidates of a question. With shared the candidates
// are one corpus for inverse frequency (noul, score); without it each is
// its own (choice, whose options are scored apart).
func weigh(cands []bag, shared bool) *compiled {
	c := &compiled{slots: map[string]int{}, cands: make([][]weighed, len(cands))}
	idf := map[string]float64(nil)
	if shared {
		idf = inverseFrequency(cands)
	}
	for i, b := range cands {
		if !shared {
			idf = inverseFrequency([]bag{b})
		}
		// The sorted order fixes the order of the float sums, so an
		// answer is identical on every run whatever the map order.
		for _, t := range b.sortedTerms() {
			stem, negated := strings.CutPrefix(t, negPrefix)
			k, ok := c.slots[stem]
			if !ok {
				k = 2 * len(c.slots)
				c.slots[stem] = k
			}
			w := weighed{idf: idf[t], says: k, denies: k + 1}
			if negated {
				w.says, w.denies = w.denies, w.says
			}
			c.cands[i] = append(c.cands[i], w)
		}
	}
	return c
}

// stateTerms reads text into its stemmed content terms, in order: the
// state, which is read once per request and counted per question.
func stateTerms(text string) []words.Token {
	ts := tokenizer.Tokens(text)
	for i := range ts {
		ts[i] = read(ts[i])
		ts[i].Word = words.Stem(ts[i].Word)
	}
	return ts
}

// questions keeps compiled questions by what they say (the question's
// key): clients ask the same questions of many states, and a question
// kept costs a lookup instead of reading and weighing its texts. At most
// 1,024 questions with keys of at most 4 KiB are kept, forgotten together
// when full. Engine is a value with no fields, so every Engine shares it.
var questions = keep.New[*compiled](keep.Bounds{Entries: 1024, KeyBytes: 4096})

// kept returns q compiled, from questions when it is there.
func kept(q systemone.Question) (*compiled, error) {
	// The key is written into a buffer on the stack; looking it up copies
	// nothing.
	var buf [512]byte
	key := q.AppendKey(buf[:0])
	if c, ok := questions.Lookup(key); ok {
		return c, nil
	}
	c, err := compile(q)
	if err == nil {
		questions.Keep(key, c, len(key))
	}
	return c, err
}
