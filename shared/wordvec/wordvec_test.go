package wordvec

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// The embedded file holds, within the quantization bound, the generator's
// source vectors: testdata/sample.json keeps some originals across the
// frequency range.
func TestEmbeddedMatchesSource(t *testing.T) {
	b, err := os.ReadFile("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	var sample map[string][]float32
	if err := json.Unmarshal(b, &sample); err != nil {
		t.Fatal(err)
	}
	if len(sample) < 50 {
		t.Fatalf("only %d sample words", len(sample))
	}
	tb := Default()
	for w, want := range sample {
		got, ok := tb.Vector(w)
		if !ok {
			t.Errorf("%q missing", w)
			continue
		}
		checkBound(t, w, got, want)
	}
}

// checkBound asserts every dimension is within half a quantization step
// (max|x|/127/2) of the original, allowing float32 rounding.
func checkBound(t *testing.T, w string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%q: %d dimensions, want %d", w, len(got), len(want))
	}
	top := 0.0
	for _, x := range want {
		top = math.Max(top, math.Abs(float64(x)))
	}
	bound := top/127/2 + 1e-6
	for i := range want {
		if d := math.Abs(float64(got[i] - want[i])); d > bound {
			t.Fatalf("%q dim %d: %v, original %v: off by %v > %v", w, i, got[i], want[i], d, bound)
		}
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	entries := make([]Entry, 300)
	for i := range entries {
		v := make([]float32, 17)
		for j := range v {
			v[j] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(5)-2)))
		}
		entries[i] = Entry{Word: string(rune('a'+i%26)) + string(rune('a'+i/26)), Rank: i * 3, Vector: v}
	}
	entries[7].Vector = make([]float32, 17) // a zero vector survives too
	b, err := Encode(entries)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Len() != len(entries) || tb.Dims() != 17 {
		t.Fatalf("%d words of %d dims", tb.Len(), tb.Dims())
	}
	for _, e := range entries {
		got, ok := tb.Vector(e.Word)
		if !ok {
			t.Fatalf("%q missing", e.Word)
		}
		checkBound(t, e.Word, got, e.Vector)
		if r, _ := tb.Rank(e.Word); r != e.Rank {
			t.Errorf("%q rank %d, want %d", e.Word, r, e.Rank)
		}
	}
	if _, ok := tb.Unit(entries[7].Word); ok {
		t.Error("a zero vector has a unit vector")
	}
	if s, ok := tb.Similarity(entries[7].Word, entries[8].Word); ok || s != 0 {
		t.Errorf("similarity with a zero vector = %v, %v", s, ok)
	}
}

func TestEncodeRefuses(t *testing.T) {
	v := []float32{1, 2}
	for name, entries := range map[string][]Entry{
		"none":       nil,
		"empty word": {{Word: "", Vector: v}},
		"repeated":   {{Word: "a", Vector: v}, {Word: "a", Vector: v}},
		"ragged":     {{Word: "a", Vector: v}, {Word: "b", Vector: []float32{1}}},
		"nan":        {{Word: "a", Vector: []float32{float32(math.NaN()), 1}}},
	} {
		if _, err := Encode(entries); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
}

func TestDecodeRefusesDamage(t *testing.T) {
	good, err := Encode([]Entry{{Word: "ab", Vector: []float32{1, -2, 3}}, {Word: "cd", Vector: []float32{0, 1, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(good); err != nil {
		t.Fatal(err)
	}
	for i := range len(good) {
		if _, err := Decode(good[:i]); err == nil {
			t.Errorf("decoded the first %d of %d bytes", i, len(good))
		}
	}
	if _, err := Decode(append(slices.Clone(good), 0)); err == nil {
		t.Error("decoded a file with a trailing byte")
	}
	bad := slices.Clone(good)
	bad[0] = 'X'
	if _, err := Decode(bad); err == nil {
		t.Error("decoded a file without the magic")
	}
}

func FuzzDecode(f *testing.F) {
	good, _ := Encode([]Entry{{Word: "ab", Vector: []float32{1, -2, 3}}, {Word: "cd", Vector: []float32{0, 1, 0}}})
	f.Add(good)
	f.Add([]byte("JWV1\xff\xff\xff\xff\x01\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tb, err := Decode(b)
		if err != nil {
			return
		}
		for w := range tb.index {
			if _, ok := tb.Vector(w); !ok {
				t.Fatalf("%q listed but has no vector", w)
			}
		}
	})
}

// Words that mean nearly the same lie close; unrelated ones do not.
func TestKnownNeighbours(t *testing.T) {
	tb := Default()
	near := [][2]string{
		{"refund", "reimbursement"}, {"refund", "refunds"}, {"angry", "furious"},
		{"password", "login"}, {"crash", "crashed"}, {"satisfied", "pleased"},
	}
	for _, p := range near {
		if s, ok := tb.Similarity(p[0], p[1]); !ok || s < 0.55 {
			t.Errorf("similarity(%s, %s) = %.3f, want ≥ 0.55", p[0], p[1], s)
		}
	}
	for _, p := range [][2]string{{"refund", "giraffe"}, {"password", "banana"}, {"furious", "spreadsheet"}} {
		if s, ok := tb.Similarity(p[0], p[1]); !ok || s > 0.25 {
			t.Errorf("similarity(%s, %s) = %.3f, want ≤ 0.25", p[0], p[1], s)
		}
	}
	top := tb.Nearest("refund", 10)
	if !slices.ContainsFunc(top, func(n Neighbour) bool { return n.Word == "reimbursement" }) {
		t.Errorf("reimbursement not among refund's 10 nearest: %v", top)
	}
	for i := 1; i < len(top); i++ {
		if top[i].Similarity > top[i-1].Similarity {
			t.Fatalf("neighbours out of order: %v", top)
		}
	}
	// The documented limit: opposites share contexts and lie close.
	if s, _ := tb.Similarity("happy", "unhappy"); s < 0.5 {
		t.Errorf("happy/unhappy similarity %.3f: the documented limit no longer holds, update the docs", s)
	}
}

func TestSimilarityAgreesWithVectors(t *testing.T) {
	tb := Default()
	for _, p := range [][2]string{{"refund", "reimbursement"}, {"the", "of"}, {"login", "crash"}} {
		a, _ := tb.Vector(p[0])
		b, _ := tb.Vector(p[1])
		s, _ := tb.Similarity(p[0], p[1])
		if d := math.Abs(s - Cosine(a, b)); d > 1e-5 {
			t.Errorf("%v: Similarity %v, Cosine of the vectors %v", p, s, Cosine(a, b))
		}
		u, _ := tb.Unit(p[0])
		if n := Cosine(u, u); math.Abs(n-1) > 1e-6 {
			t.Errorf("unit vector of %s has cosine %v with itself", p[0], n)
		}
	}
}

func TestWeightFollowsFrequency(t *testing.T) {
	tb := Default()
	the, refund := tb.Weight("the"), tb.Weight("refund")
	if !(the < 0.05 && refund > 0.9 && tb.Weight("zzzqqq") == 1) {
		t.Errorf("weights: the %.3f, refund %.3f, unknown %.3f", the, refund, tb.Weight("zzzqqq"))
	}
}

func TestEmbed(t *testing.T) {
	tb := Default()
	if tb.Embed([]string{"zzzqqq"}) != nil || tb.EmbedText("") != nil {
		t.Error("an embedding of no known word is not nil")
	}
	q := tb.EmbedText("I would like my money back for the order")
	refund := tb.EmbedText("refund request")
	crash := tb.EmbedText("the application crashes on startup")
	if a, b := Cosine(q, refund), Cosine(q, crash); a <= b {
		t.Errorf("money back: cosine with refund %.3f ≤ with crash %.3f", a, b)
	}
	// Frequent words barely move the mean.
	if c := Cosine(tb.EmbedText("refund"), tb.EmbedText("the refund of the")); c < 0.97 {
		t.Errorf("stop words moved the embedding: cosine %.3f", c)
	}
}

func TestWords(t *testing.T) {
	got := Words("Don't CRASH—please: it's 2x faster, naïve café")
	want := []string{"dont", "crash", "please", "its", "x", "faster", "naïve", "café"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
}

// The decoded table's own memory: the codes stay in the binary's data, so
// only the index, ranks, scales and norms are allocated.
func TestDecodeMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tb, err := Decode(embedded)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d words: %.1f MB allocated to decode, %.1f MB embedded", tb.Len(), float64(alloc)/1e6, float64(len(embedded))/1e6)
	if tb.Len() < 45_000 || alloc > 12<<20 {
		t.Errorf("%d words, %d bytes allocated: want ≥ 45,000 words in ≤ 12 MiB", tb.Len(), alloc)
	}
}

func BenchmarkDecode(b *testing.B) {
	for b.Loop() {
		if _, err := Decode(embedded); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSimilarity(b *testing.B) {
	tb := Default()
	for b.Loop() {
		tb.Similarity("refund", "reimbursement")
	}
}

func TestBase(t *testing.T) {
	vec := Default()
	for _, tt := range []struct {
		word, want string
		ok         bool
	}{
		{"refund", "refund", true},
		{"xyzzyqs", "xyzzyqs", false},
		{"ins", "ins", vec.Has("ins")},
	} {
		if got, ok := vec.Base(tt.word); got != tt.want || ok != tt.ok {
			t.Errorf("Base(%q) = %q, %v; want %q, %v", tt.word, got, ok, tt.want, tt.ok)
		}
	}
	// An inflected form the table lacks comes back to its known stem.
	for _, w := range []string{"refund", "crash", "cancel"} {
		for _, suf := range []string{"s", "ed", "ing"} {
			if vec.Has(w + suf) {
				continue
			}
			if got, ok := vec.Base(w + suf); !ok || got != w {
				t.Errorf("Base(%q) = %q, %v; want %q", w+suf, got, ok, w)
			}
		}
	}
}
