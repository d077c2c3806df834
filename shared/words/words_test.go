package words

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
)

func TestTokens(t *testing.T) {
	plain := Tokenizer{Negators: Negators(), Breakers: ClauseBreakers(), Stop: StopWords()}
	code := Tokenizer{
		Digits: true, Joiners: "+#", Spaces: "/()",
		Negators: Negators("instead"), Breakers: ClauseBreakers("while"), Stop: StopWords("so"),
	}
	// neg marks a negated token.
	neg := func(w string) Token { return Token{Word: w, Negated: true} }
	pos := func(w string) Token { return Token{Word: w} }
	tests := []struct {
		name string
		tk   Tokenizer
		text string
		want []Token
	}{
		{"lower case, stop words dropped", plain, "The Parcel arrived LATE", []Token{pos("parcel"), pos("arrived"), pos("late")}},
		{"contraction without apostrophe", plain, "I don't like it", []Token{neg("like")}},
		{"curly apostrophe too", plain, "it isn’t broken", []Token{neg("broken")}},
		{"three content words, stop words not counted", plain,
			"not in a very urgent way today sadly", []Token{neg("very"), neg("urgent"), neg("way"), pos("today"), pos("sadly")}},
		{"ended by punctuation", plain, "not fast, cheap", []Token{neg("fast"), pos("cheap")}},
		{"ended by a clause breaker", plain, "not fast but cheap", []Token{neg("fast"), pos("cheap")}},
		{"ended by a reader's own breaker", code, "not fast while cheap", []Token{neg("fast"), pos("cheap")}},
		{"another reader's breaker is a word", plain, "not fast while cheap", []Token{neg("fast"), neg("while"), neg("cheap")}},
		{"a reader's own negator", code, "instead of caching", []Token{neg("caching")}},
		{"a reader's own stop word", code, "so slow", []Token{pos("slow")}},
		{"hyphen and digits part words", plain, "re-try 3 times", []Token{pos("re"), pos("try"), pos("times")}},
		{"digits kept", code, "use mp3 or 2fa", []Token{pos("use"), pos("mp3"), pos("2fa")}},
		{"joiners only after a start", code, "c++ and c# not +x", []Token{pos("c++"), pos("c#"), pos("x")}},
		{"spaces end no clause", code, "not (read/write) access", []Token{neg("read"), neg("write"), neg("access")}},
		{"a leading apostrophe ends a clause", plain, "not 'fast'", []Token{pos("fast")}},
		{"unless it is among the spaces", Tokenizer{Spaces: "'", Negators: Negators()}, "not 'fast'", []Token{neg("fast")}},
		{"nothing to read", plain, " ... ", nil},
		{"ended by and", plain, "never arrived and want money back", []Token{neg("arrived"), pos("want"), pos("money"), pos("back")}},
		{"ended by a new subject", plain, "did not arrive, we want money", []Token{neg("arrive"), pos("want"), pos("money")}},
		{"ended by a new subject without a comma", plain, "not arrived I want money", []Token{neg("arrived"), pos("want"), pos("money")}},
		{"an object pronoun ends nothing", plain, "cannot refund you money", []Token{neg("refund"), neg("money")}},
		{"no longer", plain, "no longer want emails", []Token{neg("want"), neg("emails")}},
		{"other than", plain, "anything other than refunds", []Token{pos("anything"), neg("refunds")}},
		{"rather than", plain, "replacement rather than refund", []Token{pos("replacement"), pos("rather"), neg("refund")}},
		{"fail to", plain, "failed to load page", []Token{pos("failed"), neg("load"), neg("page")}},
		{"a pair needs both words in one clause", plain, "no. longer; fail, to load", []Token{pos("longer"), pos("fail"), pos("load")}},
		{"a negation ends with a verb of receiving", plain, "never received invoice", []Token{neg("received"), pos("invoice")}},
		{"also when the verb is a stop word", Tokenizer{Negators: Negators(), Stop: StopWords("got")}, "not got refund", []Token{pos("refund")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.tk.Tokens(tc.text); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Tokens(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

func TestWordsPunct(t *testing.T) {
	tk := Tokenizer{Spaces: "'"}
	got := tk.Words("!Great!! it's 'fine', really")
	want := []Word{{"great", "!!"}, {"its", ""}, {"fine", ","}, {"really", ""}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Words = %v, want %v", got, want)
	}
}

func TestNegation(t *testing.T) {
	var n Negation
	if n.Active() || n.Cover() {
		t.Fatal("a fresh negation covers a word")
	}
	n.Open()
	for i := range scope {
		if !n.Active() || !n.Cover() {
			t.Fatalf("word %d after the negator not covered", i+1)
		}
	}
	if n.Active() || n.Cover() {
		t.Fatalf("covers more than %d words", scope)
	}
	n.Open()
	n.Close()
	if n.Cover() {
		t.Fatal("covers a word after the clause closed")
	}
}

func TestContradictory(t *testing.T) {
	if base, ok := Contradictory("unresolved"); !ok || base != "resolved" {
		t.Errorf("unresolved: %q, %v", base, ok)
	}
	// A contrary, an undone act and a plain word are not contradictories.
	for _, w := range []string{"unhappy", "unsubscribe", "unlock", "under", "resolved"} {
		if base, ok := Contradictory(w); ok {
			t.Errorf("%s read as not %s", w, base)
		}
	}
}

func TestListsAreFresh(t *testing.T) {
	a := Negators("aint")
	if b := Negators(); b["aint"] || !b["not"] || !a["not"] {
		t.Fatalf("one reader's negator leaked into another's: %v", b)
	}
}

// FuzzWords checks what every reader relies on whatever the text: words
// are non-empty and free of white space, apostrophes and the reader's
// spaces, and tokens come from them in order.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"I don't like it!", "not (read/write) c++", "'’‘ -_ 3.5", "ÜBER straße"} {
		f.Add(s)
	}
	tk := Tokenizer{Digits: true, Joiners: "+#", Spaces: "/()", Negators: Negators(), Breakers: ClauseBreakers(), Stop: StopWords()}
	f.Fuzz(func(t *testing.T, s string) {
		ws := tk.Words(s)
		for _, w := range ws {
			if w.Text == "" || strings.ContainsAny(w.Text, "'’/()") || strings.ContainsFunc(w.Text, unicode.IsSpace) {
				t.Fatalf("word %q from %q", w.Text, s)
			}
		}
		i := 0
		for _, tok := range tk.Tokens(s) {
			for i < len(ws) && ws[i].Text != tok.Word {
				i++
			}
			if i == len(ws) {
				t.Fatalf("token %q of %q is not one of its words in order", tok.Word, s)
			}
			i++
		}
	})
}

func TestSentences(t *testing.T) {
	s := "Node.js runs 3.5 times faster. Really?  Yes; it does!\nDone"
	var got []string
	for _, sp := range Sentences(s) {
		got = append(got, s[sp.Start:sp.End])
	}
	want := []string{"Node.js runs 3.5 times faster.", "Really?", "Yes;", "it does!", "Done"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := Sentences(" \n "); len(got) != 0 {
		t.Fatalf("blank text: %v", got)
	}
}
