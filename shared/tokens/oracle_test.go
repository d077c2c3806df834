package tokens

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// The reference implementation (a port of OpenAI's tiktoken, on a
// backtracking regexp engine) is the oracle for the counts: same data, the
// pattern as published, slower.
var (
	oracleOnce sync.Once
	oracle     *tiktoken.Tiktoken
)

func reference(t testing.TB) *tiktoken.Tiktoken {
	oracleOnce.Do(func() {
		tiktoken.SetBpeLoader(loader.NewOfflineLoader())
		enc, err := tiktoken.GetEncoding(Encoding)
		if err != nil {
			t.Fatal(err)
		}
		oracle = enc
	})
	return oracle
}

var corpus = []string{
	"",
	"hello world",
	"The quick brown fox jumps over the lazy dog.",
	"<|endoftext|> and <|endofprompt|>",
	"I'm sure they've said we'll do it; HE'S DONE. 'tis the season; don'T",
	"CamelCaseWordsAndHTTPServer getURLForID XMLHttpRequest",
	"  leading spaces, trailing spaces   ",
	"line one\nline two\r\n\r\n  indented\n\n\ttab\t\t\n",
	"numbers 1 12 123 1234 12345 3.14159 1,000,000 ٣٤٥ ⅷ",
	"symbols !!! ??? ... --- /// a/b/c https://gw.example/judge/v1/systemone?x=1&y=2",
	"{\"state\": {\"ticket\": [1, 2, 3], \"body\": \"refund please\"}}",
	"naïve café résumé Ångström ß straße İstanbul",
	"日本語のテキストと漢字、カタカナ。한국어 텍스트. Русский текст. العربية. עברית",
	"emoji 😀👍🏽 👨‍👩‍👧 flags 🇫🇷 and combining a\u0301e\u0301 \u0300alone",
	"spaces\u00a0non\u2009breaking\u3000ideographic\u2028separator\u0085nel",
	"x\n/\n!\n/ ! /\r\n",
	strings.Repeat("a", 1000),
	strings.Repeat("ab", 700),
	strings.Repeat("Supercalifragilisticexpialidocious", 20),
	strings.Repeat("😀", 300),
	"invalid \xff\xfe utf8 \xc3 here",
}

func TestCountMatchesReference(t *testing.T) {
	c, ref := Default(), reference(t)
	for _, s := range corpus {
		if got, want := c.Count(s), len(ref.EncodeOrdinary(s)); got != want {
			t.Errorf("Count(%.40q) = %d, reference %d", s, got, want)
		}
	}
}

func TestCountMatchesReferenceRandom(t *testing.T) {
	c, ref := Default(), reference(t)
	alphabet := []rune("aAbBzZ '’sStTlLdD\n\r\t /!?.,-_0123456789éÉßİ日本ー한😀\u0301\u00a0\u3000<|>{}\"\\")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := rng.IntN(120)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := c.Count(s), len(ref.EncodeOrdinary(s)); got != want {
			t.Fatalf("Count(%q) = %d, reference %d", s, got, want)
		}
	}
}

func TestMergeLargeMatchesSmall(t *testing.T) {
	// Pieces of up to smallPiece bytes are merged by both ways here.
	c := Default()
	rng := rand.New(rand.NewPCG(3, 4))
	letters := "etaoinshrdlucmfwyp"
	for range 3000 {
		n := 2 + rng.IntN(smallPiece-1)
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		if small, large := c.mergeSmall(string(b)), c.mergeLarge(string(b)); small != large {
			t.Fatalf("%q: mergeSmall %d, mergeLarge %d", b, small, large)
		}
	}
}

func FuzzCount(f *testing.F) {
	for _, s := range corpus {
		f.Add(s)
	}
	c := Default()
	ref := reference(f)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := c.Count(s), len(ref.EncodeOrdinary(s)); got != want {
			t.Fatalf("Count(%q) = %d, reference %d", s, got, want)
		}
	})
}

func BenchmarkReferenceCount2KB(b *testing.B) {
	ref := reference(b)
	b.SetBytes(int64(len(state2KB)))
	for b.Loop() {
		ref.EncodeOrdinary(state2KB)
	}
}

// TestASCIIPiecesAgree holds the ASCII shortcut of pieceEnd to the
// general matcher at every position of random text that is mostly ASCII,
// with the runes that may carry an ASCII piece on (letters, marks, digits,
// symbols and spaces beyond ASCII) mixed in.
func TestASCIIPiecesAgree(t *testing.T) {
	alphabet := []rune("aAzZsStTlLdDeE '\"\n\r\t\v\f/!?.,-_(){}[]<>|\\~`@#$%^&*+=:;01234567899éÉ\u0301ٹ٣\u00a0’")
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20_000 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		for i := 0; i < len(s); i++ {
			if e := asciiPieceEnd(s, i); e > 0 {
				if want := unicodePieceEnd(s, i); e != want {
					t.Fatalf("%q at %d: ASCII piece %q, general %q", s, i, s[i:e], s[i:want])
				}
			}
		}
	}
}
