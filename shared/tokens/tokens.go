// Package tokens counts the tokens of a text with a real byte-pair-encoding
// tokenizer (o200k_base) whose data is compiled into the binary, so counting
// never needs the network or a file at run time.
package tokens

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the tokenizer used: o200k_base, the encoding of current
// OpenAI chat models. Counts for other model families differ by a few
// percent, which is close enough for limits and usage figures.
const Encoding = "o200k_base"

// Counter counts tokens. It is safe for concurrent use.
type Counter struct {
	vocab *vocab
}

// New builds a Counter from the embedded tokenizer data. It parses a few
// megabytes of ranks (about a quarter of a second), so build one and share
// it, or use Default.
func New() (*Counter, error) {
	// The offline loader reads the ranks from files embedded in its package;
	// the name is the file name the reference tokenizer publishes.
	ranks, err := loader.NewOfflineLoader().LoadTiktokenBpe(Encoding + ".tiktoken")
	if err != nil {
		return nil, fmt.Errorf("tokens: load %s: %w", Encoding, err)
	}
	v, err := newVocab(ranks)
	if err != nil {
		return nil, err
	}
	return &Counter{vocab: v}, nil
}

var (
	defaultOnce    sync.Once
	defaultCounter *Counter
)

// Default returns a process-wide Counter, built on first use. It panics if
// the embedded data cannot be parsed, which would be a broken build.
func Default() *Counter {
	defaultOnce.Do(func() {
		c, err := New()
		if err != nil {
			panic(err)
		}
		defaultCounter = c
	})
	return defaultCounter
}

// Count returns the number of tokens of s, as the o200k_base encoder
// produces them for ordinary text: special tokens such as <|endoftext|>
// count as the characters they are written with.
func (c *Counter) Count(s string) int { return c.CountUpTo(s, math.MaxInt) }

// CountUpTo is Count that stops once the count passes limit: the count of
// s when it is at most limit, else a number above limit. A text far over
// a limit costs the counting of about limit tokens, not of all of it.
func (c *Counter) CountUpTo(s string, limit int) int {
	if !utf8.ValidString(s) {
		s = runes(s)
	}
	n := 0
	for i := 0; i < len(s) && n <= limit; {
		e := pieceEnd(s, i)
		n += c.pieceTokens(s[i:e], limit-n)
		i = e
	}
	return n
}

// runes is s as the reference tokenizer sees it: runes, each invalid byte
// becoming U+FFFD (so counts agree), in at most three times the bytes.
func runes(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// smallPiece is the longest piece merged with the simple quadratic loop;
// longer ones (rare in prose, but an attacker can send a 100 KB "word") use
// a heap so that counting stays O(n log n).
const smallPiece = 64

// largePiece bounds what is merged at once. A longer piece, a run of
// letters or punctuation without a break that prose never has but a body
// can hold a megabyte of, is merged largePiece bytes at a time, cut at
// the start of a character: its count may differ from the reference's by
// about a token at each cut (0.05 % of a megabyte of "[],"), and counting
// any text takes time linear in its length and a fixed few hundred
// kilobytes of memory.
const largePiece = 4 << 10

// pieceTokens counts the tokens of the piece p, or stops between parts of
// a large piece once there are more than limit.
func (c *Counter) pieceTokens(p string, limit int) int {
	if len(p) == 1 {
		return 1 // every byte is a token
	}
	if _, ok := c.vocab.rank(p); ok {
		return 1
	}
	if len(p) <= smallPiece {
		return c.mergeSmall(p)
	}
	n := 0
	for len(p) > largePiece && n <= limit {
		cut := largePiece
		for !utf8.RuneStart(p[cut]) {
			cut--
		}
		n += c.mergeLarge(p[:cut])
		p = p[cut:]
	}
	if n > limit {
		return n
	}
	return n + c.mergeLarge(p)
}

// mergeSmall is the reference byte-pair merge: repeatedly merge the
// adjacent pair with the lowest rank, the leftmost on a tie, and count
// the parts left.
func (c *Counter) mergeSmall(p string) int {
	var startBuf, rankBuf [smallPiece + 1]int
	starts, ranks := startBuf[:len(p)+1], rankBuf[:len(p)+1]
	for i := range starts {
		starts[i] = i
	}
	rank := func(i int) int {
		if i+2 < len(starts) {
			if r, ok := c.vocab.rank(p[starts[i]:starts[i+2]]); ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := range ranks {
		ranks[i] = rank(i)
	}
	for len(starts) > 2 {
		best, at := math.MaxInt, -1
		for i := 0; i < len(starts)-2; i++ {
			if ranks[i] < best {
				best, at = ranks[i], i
			}
		}
		if at < 0 {
			break
		}
		starts = append(starts[:at+1], starts[at+2:]...)
		ranks = append(ranks[:at+1], ranks[at+2:]...)
		ranks[at] = rank(at)
		if at > 0 {
			ranks[at-1] = rank(at - 1)
		}
	}
	return len(starts) - 1
}

// mergeLarge does the same merges as mergeSmall with a heap of candidate
// pairs ordered by (rank, position), so the same pair wins every step.
// Parts are named by the byte offset where they start; p is at most
// largePiece bytes.
func (c *Counter) mergeLarge(p string) int {
	n := int32(len(p))
	m := mergers.Get().(*merger)
	defer mergers.Put(m)
	next, prev, alive, cur := m.next[:n], m.prev[:n], m.alive[:n], m.cur[:n]
	for i := range n {
		next[i], prev[i], alive[i] = i+1, i-1, true
	}
	next[n-1] = -1
	rank := func(i int32) uint32 {
		j := next[i]
		if j < 0 {
			return noRank
		}
		end := n
		if k := next[j]; k >= 0 {
			end = k
		}
		if r, ok := c.vocab.rank(p[i:end]); ok {
			return uint32(r)
		}
		return noRank
	}
	h := m.heap[:0]
	for i := range n {
		if cur[i] = rank(i); cur[i] != noRank {
			h = append(h, key(cur[i], i))
		}
	}
	h.init()
	parts := int(n)
	for len(h) > 0 {
		top := h.pop()
		i := int32(top & 0xffffffff)
		if !alive[i] || cur[i] != uint32(top>>32) {
			continue // stale: the part was merged away or its neighbour changed
		}
		j := next[i]
		alive[j] = false
		next[i] = next[j]
		if next[j] >= 0 {
			prev[next[j]] = i
		}
		parts--
		if cur[i] = rank(i); cur[i] != noRank {
			h.push(key(cur[i], i))
		}
		if k := prev[i]; k >= 0 {
			if cur[k] = rank(k); cur[k] != noRank {
				h.push(key(cur[k], k))
			}
		}
	}
	return parts
}

// noRank marks a pair that is not in the vocabulary (ranks are below
// 2^32; o200k_base has about 200,000).
const noRank = math.MaxUint32

// merger is the room mergeLarge works in, for a piece of up to
// largePiece bytes; kept between calls.
type merger struct {
	next, prev [largePiece]int32
	alive      [largePiece]bool
	cur        [largePiece]uint32 // the rank of merging part i with its next part
	heap       pairHeap
}

var mergers = sync.Pool{New: func() any {
	m := new(merger)
	// Every part is pushed once at the start and at most twice per merge.
	m.heap = make(pairHeap, 0, 3*largePiece)
	return m
}}

// key is a pair as the heap holds it: its rank above its position, so
// that one comparison orders pairs by rank, then the leftmost first.
func key(rank uint32, pos int32) uint64 { return uint64(rank)<<32 | uint64(pos) }

// pairHeap is a binary min-heap of pair keys, written out rather than
// built on container/heap so that pushing does not allocate an interface
// per pair.
type pairHeap []uint64

func (h *pairHeap) init() {
	for i := len(*h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *pairHeap) push(x uint64) {
	*h = append(*h, x)
	q := *h
	i := len(q) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if q[parent] <= x {
			break
		}
		q[i] = q[parent]
		i = parent
	}
	q[i] = x
}

func (h *pairHeap) pop() uint64 {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	*h = q[:last]
	if last > 0 {
		h.down(0)
	}
	return top
}

func (h pairHeap) down(i int) {
	x := h[i]
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			m = r
		}
		if h[m] >= x {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}
