package words

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// plainWords is Words written plainly, one rune at a time into a new
// string per word: the reference the fast path is held to.
func (tk *Tokenizer) plainWords(text string) []Word {
	var out []Word
	word := make([]rune, 0, 32)
	part := func() {
		if len(word) > 0 {
			out = append(out, Word{Text: string(word)})
			word = word[:0]
		}
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r), tk.Digits && unicode.IsDigit(r), len(word) > 0 && strings.ContainsRune(tk.Joiners, r):
			word = append(word, unicode.ToLower(r))
		case len(word) > 0 && (r == '\'' || r == '’'):
		case unicode.IsSpace(r), unicode.IsDigit(r), r == '-', r == '_', strings.ContainsRune(tk.Spaces, r):
			part()
		default:
			part()
			if n := len(out); n > 0 {
				out[n-1].Punct += string(r)
			}
		}
	}
	part()
	return out
}

// readers are the settings of the project's readers (the two offline
// engines and answer relevance), and none at all.
var readers = []Tokenizer{
	{},
	{Digits: true, Spaces: "'’"},
	{Spaces: "'’"},
	{Digits: true, Joiners: "+#", Spaces: "/\"'()"},
}

var oracleSeeds = []string{
	"I don't like it!", "not (read/write) c++", "'’‘ -_ 3.5", "ÜBER straße", "It's FINE, really?!",
	"İstanbul ǅemal ΣΟΦΊΑ", "bad\xffbyte. x\xc3", "tab\tnew\nline\v\f\r", "a\u00a0b\u0085c\u2028d",
	"c# and C++ , x+ +y", "“quoted” ‘single’", "don''t ’tis", "",
}

// plainTokens is Tokens read from Words: the reference for Tokens, which
// looks words up without copying them.
func (tk *Tokenizer) plainTokens(text string) []Token {
	var out []Token
	var neg Negation
	prev := ""
	for _, w := range tk.Words(text) {
		switch {
		case tk.Negators[w.Text] || NegatesAfter(prev, w.Text):
			neg.Open()
		case tk.Breakers[w.Text]:
			neg.Close()
		case tk.Stop[w.Text]:
		default:
			out = append(out, Token{Word: w.Text, Negated: neg.Cover()})
		}
		prev = w.Text
		if w.Punct != "" || EndsNegation(w.Text) {
			neg.Close()
			prev = ""
		}
	}
	return out
}

// tokenReaders are readers with word lists, whose upper-case words are
// negators, breakers and stop words alike.
var tokenReaders = []Tokenizer{
	{Negators: Negators(), Breakers: ClauseBreakers(), Stop: StopWords()},
	{Digits: true, Spaces: "'’", Negators: Negators("aint"), Breakers: ClauseBreakers(), Stop: StopWords("what")},
	{Digits: true, Joiners: "+#", Spaces: "/\"'()", Negators: Negators("instead"), Breakers: ClauseBreakers("while"), Stop: StopWords("so")},
}

var tokenSeeds = []string{
	"I DON'T like it, But THE parcel is NOT late!", "Not fast; however cheap. NEVER again", "The app, it's Broken?!",
	"İSN’T it fine? NOT ÜBER. No, WHILE so", "nothing here . , ! not",
	"NO LONGER wanted; Other Than refunds, it FAILED TO load", "no. longer other, than fail to",
	"I never RECEIVED the invoice and need it", "It didn't Arrive I want it back",
}

// FuzzReadingMatchesReference holds the fast Tokens and Words to their
// plain rune-by-rune readings (plainTokens, plainWords) on any text; a
// plain go test reads the seeds.
func FuzzReadingMatchesReference(f *testing.F) {
	for _, s := range append(tokenSeeds, oracleSeeds...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tk := range tokenReaders {
			if got, want := tk.Tokens(s), tk.plainTokens(s); !reflect.DeepEqual(got, want) {
				t.Errorf("%+v: Tokens(%q) = %v, want %v", tk, s, got, want)
			}
		}
		for _, tk := range readers {
			if got, want := tk.Words(s), tk.plainWords(s); !reflect.DeepEqual(got, want) {
				t.Errorf("%+v: Words(%q) = %q, want %q", tk, s, got, want)
			}
		}
	})
}

func BenchmarkTokens(b *testing.B) {
	tk := Tokenizer{Spaces: "'’", Negators: Negators(), Breakers: ClauseBreakers(), Stop: StopWords()}
	text := "I was charged twice for my subscription this month and I am furious. The app also crashed " +
		"twice during checkout, which is not acceptable. Please refund the second charge today."
	b.ReportAllocs()
	for b.Loop() {
		tk.Tokens(text)
	}
}

func BenchmarkWords(b *testing.B) {
	tk := Tokenizer{Spaces: "'’"}
	text := "I was charged twice for my subscription this month and I am furious. The app also crashed " +
		"twice during checkout, which is not acceptable. Please refund the second charge today."
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tk.Words(text)
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tk.plainWords(text)
		}
	})
}
