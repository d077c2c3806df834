// Package wordvec holds English word vectors compiled into the binary: the
// 100-dimensional GloVe 6B vectors of about 50,000 frequent words, quantized
// to one byte per dimension (see NOTICE beside the data for their origin and
// licences, and gen/main.go for how the file is made). Nothing is read from
// the network or the disk at run time.
//
// Vectors place words used in similar contexts close together: "refund"
// lies near "reimbursement", "crash" near "freeze". They do not tell
// opposites apart ("happy" lies near "unhappy", which shares its contexts);
// callers that care about polarity must handle it themselves.
package wordvec

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode"
)

//go:embed vectors.bin
var embedded []byte

// magic opens every vector file; the digit is the format's version.
const magic = "JWV1"

// Table is a read-only set of word vectors, safe for concurrent use.
type Table struct {
	dims  int
	index map[string]int32
	// ranks[i] is word i's position in the source's frequency order (0 =
	// most frequent); it stands in for a corpus count.
	ranks []uint32
	// scales[i] turns word i's bytes back into its vector: x = q·scale.
	scales []float32
	// norms[i] is the length of the dequantized vector i.
	norms []float32
	// codes holds dims signed bytes per word, in word order.
	codes []byte
}

var defaultTable = sync.OnceValues(func() (*Table, error) { return Decode(embedded) })

// Default returns the embedded table, decoded on first use (a few
// milliseconds; the bytes themselves are part of the binary). It panics if
// the embedded file is corrupt, which would be a broken build.
func Default() *Table {
	t, err := defaultTable()
	if err != nil {
		panic(fmt.Sprintf("wordvec: embedded vectors: %v", err))
	}
	return t
}

// Len is the number of words.
func (t *Table) Len() int { return len(t.ranks) }

// Dims is the number of dimensions of every vector.
func (t *Table) Dims() int { return t.dims }

// Has reports whether word (lower case, letters only) has a vector.
func (t *Table) Has(word string) bool {
	_, ok := t.index[word]
	return ok
}

// Base is the vocabulary form of word: word itself, or word with a plural
// or tense ending removed ("refunds", "crashed" → "refund", "crash")
// leaving at least three letters; word and false when neither is known.
func (t *Table) Base(word string) (string, bool) {
	if t.Has(word) {
		return word, true
	}
	for _, suf := range []string{"s", "es", "ed", "d", "ing"} {
		if b, ok := strings.CutSuffix(word, suf); ok && len(b) >= 3 && t.Has(b) {
			return b, true
		}
	}
	return word, false
}

// Vector returns a new copy of word's vector, or false for an unknown word.
func (t *Table) Vector(word string) ([]float32, bool) {
	i, ok := t.index[word]
	if !ok {
		return nil, false
	}
	return t.vector(int(i), make([]float32, t.dims)), true
}

// Unit returns word's vector scaled to length 1, or false for an unknown
// word (or one whose vector is zero).
func (t *Table) Unit(word string) ([]float32, bool) {
	i, ok := t.index[word]
	if !ok || t.norms[i] == 0 {
		return nil, false
	}
	v := t.vector(int(i), make([]float32, t.dims))
	inv := 1 / t.norms[i]
	for j := range v {
		v[j] *= inv
	}
	return v, true
}

func (t *Table) vector(i int, dst []float32) []float32 {
	s := t.scales[i]
	code := t.codes[i*t.dims : (i+1)*t.dims]
	for j, q := range code {
		dst[j] = float32(int8(q)) * s
	}
	return dst
}

// Similarity is the cosine of the vectors of a and b, computed on the
// stored bytes; false when either word is unknown.
func (t *Table) Similarity(a, b string) (float64, bool) {
	i, ok1 := t.index[a]
	j, ok2 := t.index[b]
	if !ok1 || !ok2 || t.norms[i] == 0 || t.norms[j] == 0 {
		return 0, false
	}
	ci := t.codes[int(i)*t.dims : int(i+1)*t.dims]
	cj := t.codes[int(j)*t.dims : int(j+1)*t.dims]
	dot := int32(0)
	for k := range ci {
		dot += int32(int8(ci[k])) * int32(int8(cj[k]))
	}
	return float64(dot) * float64(t.scales[i]) * float64(t.scales[j]) / (float64(t.norms[i]) * float64(t.norms[j])), true
}

// Rank is word's position in the source's frequency order, 0 the most
// frequent; false for an unknown word.
func (t *Table) Rank(word string) (int, bool) {
	i, ok := t.index[word]
	if !ok {
		return 0, false
	}
	return int(t.ranks[i]), true
}

// Smoothing constant a of Weight, as in the smooth inverse frequency
// weighting of Arora, Liang and Ma (2017), whose range 1e-4 to 1e-3 they
// found to work across tasks.
const smoothing = 1e-3

// sourceSize is the vocabulary size of the source corpus's frequency list
// (GloVe 6B), from which Zipf's law turns a rank into a share of tokens.
const sourceSize = 400_000

// harmonic is H(sourceSize) ≈ ln N + γ: under Zipf's law the word of rank r
// (from 1) makes up 1/(r·H) of all tokens.
var harmonic = math.Log(sourceSize) + 0.5772156649

// Weight is word's inverse-frequency weight a/(a + p(word)), with p the
// word's share of tokens estimated from its rank by Zipf's law: about 0.01
// for "the", 0.6 for a word of rank 100, 0.93 for rank 1,000, near 1 for
// rare words. Unknown words weigh 1, as the rarest do.
func (t *Table) Weight(word string) float64 {
	r, ok := t.Rank(word)
	if !ok {
		return 1
	}
	p := 1 / (float64(r+1) * harmonic)
	return smoothing / (smoothing + p)
}

// Embed is the weighted mean of the vectors of words (each weighted by
// Weight; unknown words skipped), a bag-of-words embedding of a text. It
// returns nil when no word is known.
func (t *Table) Embed(words []string) []float32 {
	var sum []float32
	v := make([]float32, t.dims)
	total := 0.0
	for _, w := range words {
		i, ok := t.index[w]
		if !ok {
			continue
		}
		if sum == nil {
			sum = make([]float32, t.dims)
		}
		wt := t.Weight(w)
		t.vector(int(i), v)
		for j := range v {
			sum[j] += float32(wt) * v[j]
		}
		total += wt
	}
	if sum == nil || total == 0 {
		return nil
	}
	for j := range sum {
		sum[j] /= float32(total)
	}
	return sum
}

// EmbedText is Embed of Words(text).
func (t *Table) EmbedText(text string) []float32 { return t.Embed(Words(text)) }

// Cosine is the cosine similarity of a and b (0 when either is zero or
// their lengths differ).
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Words splits text into the table's word forms: lower-case runs of
// letters. Apostrophes inside a word are dropped ("don't" → "dont"), as the
// vocabulary spells contractions; digits and other characters separate.
func Words(text string) []string {
	var out []string
	word := make([]rune, 0, 32)
	for _, r := range text {
		switch {
		case unicode.IsLetter(r):
			word = append(word, unicode.ToLower(r))
		case (r == '\'' || r == '’') && len(word) > 0:
		default:
			if len(word) > 0 {
				out = append(out, string(word))
				word = word[:0]
			}
		}
	}
	if len(word) > 0 {
		out = append(out, string(word))
	}
	return out
}

// Neighbour is a word and its cosine similarity to another.
type Neighbour struct {
	Word       string
	Similarity float64
}

// Nearest returns the k words most similar to word (itself excluded), most
// similar first; nil for an unknown word. It scans the whole table.
func (t *Table) Nearest(word string, k int) []Neighbour {
	if _, ok := t.index[word]; !ok || k <= 0 {
		return nil
	}
	words := make([]string, len(t.index))
	for w, i := range t.index {
		words[i] = w
	}
	var best []Neighbour
	for _, w := range words {
		if w == word {
			continue
		}
		s, _ := t.Similarity(word, w)
		if len(best) == k && s <= best[k-1].Similarity {
			continue
		}
		n := Neighbour{w, s}
		i := len(best)
		if i < k {
			best = append(best, n)
		} else {
			i = k - 1
		}
		for i > 0 && best[i-1].Similarity < s {
			best[i] = best[i-1]
			i--
		}
		best[i] = n
	}
	return best
}

// Entry is one word of a table being written.
type Entry struct {
	Word string
	// Rank is the word's position in the source's frequency order.
	Rank   int
	Vector []float32
}

// Encode writes entries in the table format Decode reads, quantizing every
// vector to one signed byte per dimension with its own scale
// max|x|/127, so each dimension is off by at most scale/2.
//
// Layout (little-endian): "JWV1", uint32 word count n, uint16 dims d; n
// words, each a uint8 byte length and its bytes; n uint32 ranks; n float32
// scales; n·d int8 codes.
func Encode(entries []Entry) ([]byte, error) {
	if len(entries) == 0 {
		return nil, errors.New("wordvec: no entries")
	}
	d := len(entries[0].Vector)
	if d == 0 || d > math.MaxUint16 {
		return nil, fmt.Errorf("wordvec: %d dimensions", d)
	}
	seen := make(map[string]bool, len(entries))
	out := []byte(magic)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(entries)))
	out = binary.LittleEndian.AppendUint16(out, uint16(d))
	for _, e := range entries {
		if e.Word == "" || len(e.Word) > math.MaxUint8 || seen[e.Word] {
			return nil, fmt.Errorf("wordvec: word %q empty, too long or repeated", e.Word)
		}
		if len(e.Vector) != d {
			return nil, fmt.Errorf("wordvec: %q has %d dimensions, want %d", e.Word, len(e.Vector), d)
		}
		seen[e.Word] = true
		out = append(out, byte(len(e.Word)))
		out = append(out, e.Word...)
	}
	for _, e := range entries {
		out = binary.LittleEndian.AppendUint32(out, uint32(e.Rank))
	}
	scales := make([]float32, len(entries))
	for i, e := range entries {
		top := float32(0)
		for _, x := range e.Vector {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("wordvec: %q has a value that is not a number", e.Word)
			}
			top = max(top, float32(math.Abs(float64(x))))
		}
		scales[i] = top / 127
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(scales[i]))
	}
	for i, e := range entries {
		for _, x := range e.Vector {
			q := int8(0)
			if scales[i] > 0 {
				q = int8(math.Round(float64(x / scales[i])))
			}
			out = append(out, byte(q))
		}
	}
	return out, nil
}

// Decode reads a table written by Encode. The table keeps using b.
func Decode(b []byte) (*Table, error) {
	if len(b) < len(magic)+6 || string(b[:len(magic)]) != magic {
		return nil, errors.New("wordvec: not a vector file")
	}
	p := len(magic)
	n := int(binary.LittleEndian.Uint32(b[p:]))
	d := int(binary.LittleEndian.Uint16(b[p+4:]))
	p += 6
	if d == 0 {
		return nil, errors.New("wordvec: zero dimensions")
	}
	// Every word takes at least 1+1+4+4+d bytes: refuse a count the file
	// cannot hold before allocating for it.
	if n == 0 || n > (len(b)-p)/(10+d) {
		return nil, fmt.Errorf("wordvec: %d words do not fit in %d bytes", n, len(b))
	}
	t := &Table{dims: d, index: make(map[string]int32, n), ranks: make([]uint32, n),
		scales: make([]float32, n), norms: make([]float32, n)}
	for i := range n {
		if p >= len(b) {
			return nil, errors.New("wordvec: truncated word list")
		}
		l := int(b[p])
		p++
		if l == 0 || p+l > len(b) {
			return nil, errors.New("wordvec: truncated word list")
		}
		w := string(b[p : p+l])
		p += l
		if _, dup := t.index[w]; dup {
			return nil, fmt.Errorf("wordvec: word %q repeated", w)
		}
		t.index[w] = int32(i)
	}
	if len(b)-p != n*(8+d) {
		return nil, fmt.Errorf("wordvec: %d bytes after the words, want %d", len(b)-p, n*(8+d))
	}
	for i := range n {
		t.ranks[i] = binary.LittleEndian.Uint32(b[p:])
		p += 4
	}
	for i := range n {
		s := math.Float32frombits(binary.LittleEndian.Uint32(b[p:]))
		if s < 0 || math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
			return nil, fmt.Errorf("wordvec: bad scale for word %d", i)
		}
		t.scales[i] = s
		p += 4
	}
	t.codes = b[p:]
	for i := range n {
		sq := int32(0)
		for _, q := range t.codes[i*d : (i+1)*d] {
			sq += int32(int8(q)) * int32(int8(q))
		}
		t.norms[i] = float32(math.Sqrt(float64(sq))) * t.scales[i]
	}
	return t, nil
}

// Words lists the words in table order.
func (t *Table) Words() []string {
	out := make([]string, len(t.ranks))
	for w, i := range t.index {
		out[i] = w
	}
	return out
}
