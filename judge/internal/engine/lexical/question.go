package lexical

import (
	"strings"
	"sync"

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
		ts[i].Word = stem(ts[i].Word)
	}
	return ts
}

// Bounds of the compiled questions kept.
const (
	// keptQuestions is the most questions kept at once; when full, they
	// are forgotten and kept again from the next request.
	keptQuestions = 1024
	// keptQuestionBytes is the longest question kept, in bytes of its
	// JSON texts and names.
	keptQuestionBytes = 4096
)

// questionCache keeps compiled questions by what they say (key): clients
// ask the same questions of many states, and a question kept costs a
// lookup instead of reading and weighing its texts. It holds at most
// keptQuestions questions of at most keptQuestionBytes each, and is safe
// for concurrent use.
type questionCache struct {
	mu sync.RWMutex
	m  map[string]*compiled
}

// questions is the engine's cache: Engine is a value with no fields, so
// every Engine shares it.
var questions questionCache

// get returns q compiled, from the cache when it is there.
func (qc *questionCache) get(q systemone.Question) (*compiled, error) {
	// The key is written into a buffer on the stack; the lookup with
	// string(key) copies nothing.
	var buf [512]byte
	key := q.AppendKey(buf[:0])
	qc.mu.RLock()
	c, ok := qc.m[string(key)]
	qc.mu.RUnlock()
	if ok {
		return c, nil
	}
	c, err := compile(q)
	if err != nil || len(key) > keptQuestionBytes {
		return c, err
	}
	qc.mu.Lock()
	if qc.m == nil || len(qc.m) >= keptQuestions {
		qc.m = make(map[string]*compiled)
	}
	qc.m[string(key)] = c
	qc.mu.Unlock()
	return c, nil
}
