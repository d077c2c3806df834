package relevance

import (
	"testing"
)

func TestFold(t *testing.T) {
	for _, group := range [][]string{
		{"cache", "caches", "cached", "caching"},
		{"stop", "stops", "stopped", "stopping"},
		{"process", "processes"},
		{"database", "databases"},
		{"query", "queries"},
		{"optimize", "optimise", "optimisation"},
		{"behavior", "behaviour"},
	} {
		for _, w := range group[1:] {
			if fold(w) != fold(group[0]) {
				t.Errorf("fold(%q) = %q, fold(%q) = %q", w, fold(w), group[0], fold(group[0]))
			}
		}
	}
	if fold("process") == fold("proces") || fold("read") == fold("ready") {
		t.Errorf("fold over-reaches: process %q, read %q ready %q", fold("process"), fold("read"), fold("ready"))
	}
}

func TestNegationAndContrast(t *testing.T) {
	r := Default()
	point := r.Phrase("GET reads without side effects")
	says := r.Read("A GET request reads data and has no side effects.").Best(point).Score
	denies := r.Read("A GET request reads data and has side effects.").Best(point).Score
	if says <= denies {
		t.Errorf("negation ignored: %.2f for the point, %.2f against it", says, denies)
	}
	prec := r.Phrase("precision")
	if s := r.Read("Recall is the share of actual positives found.").Best(prec).Score; s > 0 {
		t.Errorf("recall passes for precision: %.2f", s)
	}
}

func TestSynonymsMatch(t *testing.T) {
	r := Default()
	p := r.Phrase("Cheaper and faster queries")
	if s := r.Read("Done right, queries are quicker and cheaper.").Best(p).Score; s < 0.7 {
		t.Errorf("quicker for faster: %.2f", s)
	}
	if s := r.Read("I like long walks by the sea.").Best(p).Score; s > 0.2 {
		t.Errorf("unrelated sentence: %.2f", s)
	}
}

func TestScreen(t *testing.T) {
	r := Default()
	for text, want := range map[string]string{
		"":                            NoAnswer,
		"   ":                         NoAnswer,
		"asdkjh qwe zxcmnb":           Nonsense,
		"I like pizza":                TooShort,
		"I don't know, sorry.":        TooShort,
		"Use a token bucket per key.": "",
		"Kubernetes restarts pods that fail their liveness probe.": "",
		"The idempotency key dedups retries.":                      "",
	} {
		if got := Screen(r.Read(text)); got != want {
			t.Errorf("Screen(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestTopicality(t *testing.T) {
	r := Default()
	q := "How would you design a rate limiter for a public API?"
	on := r.Topicality(r.Read("Each client gets a budget of requests per minute, refilled steadily; over it, requests are refused."), q)
	off := r.Topicality(r.Read("My favourite holiday was in Italy, where we ate pasta."), q)
	if on <= off || off > 0.05 {
		t.Errorf("on topic %.2f, off topic %.2f", on, off)
	}
}

// FuzzRead: whatever the text, sentences lie inside it in order and
// matching stays in [-1, 1].
func FuzzRead(f *testing.F) {
	for _, s := range []string{"", "a. b", "\xff\xfe.", "Node.js! 3.5?", "not not not x"} {
		f.Add(s)
	}
	r := Default()
	p := r.Phrase("requests are refused over the limit")
	f.Fuzz(func(t *testing.T, s string) {
		tx := r.Read(s)
		prev := 0
		for _, sn := range tx.Sentences {
			if sn.Start < prev || sn.End > len(s) || sn.Start >= sn.End {
				t.Fatalf("sentence [%d, %d) out of order in %d bytes", sn.Start, sn.End, len(s))
			}
			prev = sn.End
		}
		if m := tx.Best(p); m.Score < -1 || m.Score > 1 {
			t.Fatalf("score %v", m.Score)
		}
	})
}
