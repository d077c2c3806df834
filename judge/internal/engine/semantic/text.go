package semantic

import (
	"strings"

	"github.com/judgeworks/shared/words"
)

// tokenizer follows negation as the lexical engine does, so both read
// "not urgent" alike; unlike there, digits part words, and "instead"
// ("instead of cancelling", "rather than a refund") denies what follows.
// Quote marks end no clause in either.
var tokenizer = words.Tokenizer{
	Spaces:   "'’",
	Negators: words.Negators("aint", "instead"),
	Breakers: words.ClauseBreakers(),
	// Question words are not stop words here: "how do I…" is what sets a
	// how-to question apart from a complaint.
	Stop: words.StopWords(
		"d", "ll", "ve", "re", "m", "im", "ive", "id", "youre",
		"get", "got", "one", "ones", "thing", "things", "way",
	),
}

// intensity scales how strongly the next content word is meant: "very
// satisfied" lies further from neutral than "satisfied", "slightly
// annoyed" nearer.
var intensity = map[string]float64{
	"extremely": 2, "absolutely": 2, "completely": 2, "totally": 2, "utterly": 2, "incredibly": 2,
	"beyond": 2, "entirely": 2, "thoroughly": 2, "deeply": 1.75, "terribly": 1.75, "highly": 1.5,
	"very": 1.5, "really": 1.5, "so": 1.3, "truly": 1.5, "super": 1.5, "seriously": 1.5, "most": 1.5,
	"quite": 1.2, "pretty": 1.1, "fairly": 0.8, "rather": 0.8, "moderately": 0.7, "somewhat": 0.6,
	"slightly": 0.5, "mildly": 0.5, "bit": 0.5, "little": 0.5, "tad": 0.5, "barely": 0.4, "hardly": 0.4,
}

// exactOnly words match only themselves: question words all lie close
// together in vector space ("how" near "why"), but "how do I" and "why"
// ask different things.
var exactOnly = words.Set("what", "which", "when", "where", "why", "how")

// metaWords name the parties and the act of asking, which every question
// about a text mentions ("Does the customer ask…?", "Is the message…?"):
// they are not evidence about the text, so instructions drop them.
var metaWords = words.Set(
	"customer", "customers", "client", "user", "users", "candidate", "message", "ticket",
	"text", "answer", "question", "reply", "request", "email", "writer", "author", "person",
	"someone", "asking", "ask", "asks", "want", "wants", "describe", "describes", "mention",
	"mentions", "say", "says", "said", "report", "reported", "reports", "need", "needs",
	"handle", "kind", "well", "our", "team",
	// Instructions are usually phrased as questions ("How upset is…?").
	"what", "which", "when", "where", "why", "how",
)

// opposites are pairs of words that share their contexts, and so lie close
// in vector space, but mean opposite things: "renew" must count against
// "cancel", not for it. Words are compared by lemma.
var opposites = func() map[string][]string {
	pairs := [][2]string{
		{"cancel", "renew"}, {"cancel", "keep"}, {"cancel", "continue"}, {"cancel", "extend"},
		{"stop", "start"}, {"stop", "continue"}, {"stay", "leave"}, {"stay", "quit"}, {"open", "close"},
		{"accept", "reject"}, {"accept", "refuse"}, {"approve", "reject"}, {"allow", "deny"},
		{"allow", "block"}, {"enable", "disable"}, {"include", "exclude"}, {"increase", "decrease"},
		{"raise", "lower"}, {"up", "down"}, {"online", "offline"}, {"work", "broken"}, {"work", "fail"},
		{"pass", "fail"}, {"success", "failure"}, {"succeed", "fail"}, {"win", "lose"}, {"add", "remove"},
		{"agree", "disagree"}, {"like", "dislike"}, {"love", "hate"}, {"true", "false"},
		{"more", "less"}, {"fast", "slow"}, {"quick", "slow"}, {"easy", "hard"}, {"easy", "difficult"},
		{"early", "late"}, {"good", "bad"}, {"happy", "sad"}, {"calm", "angry"}, {"calm", "upset"},
		{"polite", "rude"}, {"friendly", "hostile"}, {"safe", "dangerous"}, {"cheap", "expensive"},
		{"high", "low"}, {"big", "small"}, {"large", "small"}, {"strong", "weak"}, {"right", "wrong"},
		{"correct", "wrong"}, {"present", "absent"}, {"find", "lose"}, {"buy", "sell"},
		{"confirm", "deny"}, {"remember", "forget"}, {"full", "empty"}, {"best", "worst"},
		{"better", "worse"}, {"praise", "criticize"}, {"upgrade", "downgrade"},
		{"subscribe", "unsubscribe"}, {"login", "logout"}, {"connect", "disconnect"},
		{"major", "minor"}, {"simple", "complex"}, {"clear", "vague"}, {"specific", "general"},
		{"concrete", "abstract"}, {"relevant", "irrelevant"}, {"urgent", "trivial"},
	}
	return words.Opposites(pairs, lemma)
}()

// lemma folds the common inflections for looking words up in opposites:
// "cancelling", "cancelled", "cancels" → "cancel".
func lemma(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		b, ok := strings.CutSuffix(w, suf)
		if !ok || len(b) < 3 {
			continue
		}
		if n := len(b); b[n-1] == b[n-2] && !strings.ContainsRune("aeiou", rune(b[n-1])) {
			b = b[:n-1] // "cancell" → "cancel", "stopp" → "stop"
		}
		return b
	}
	return w
}

// phrases are two-word verbs of support tickets read as the one word they
// mean; phraseEnd holds their second words.
var phrases = map[string]string{
	"log in": "login", "logged in": "login", "logging in": "login", "sign in": "login",
	"signed in": "login", "signing in": "login", "log out": "logout", "logged out": "logout",
	"sign up": "signup", "signed up": "signup",
	"send back": "return", "sent back": "return", "sending back": "return", "ship back": "return",
	"bring back": "return", "mail back": "return", "post back": "return",
	"money back": "refund", "pay back": "refund", "paid back": "refund", "give back": "refund",
	"gave back": "refund", "charge back": "chargeback",
	"shut down": "close", "close down": "close", "opt out": "unsubscribe",
	"stopped working": "broken", "stops working": "broken", "stop working": "broken",
	"quit working": "broken", "stopped responding": "unresponsive", "stops responding": "unresponsive",
	"set up": "setup", "show up": "arrive", "showed up": "arrive", "shown up": "arrive", "turned up": "arrive",
}

var phraseEnd = func() map[string]bool {
	m := map[string]bool{}
	for k := range phrases {
		_, second, _ := strings.Cut(k, " ")
		m[second] = true
	}
	return m
}()

// negPrefixes turn a word into its opposite when what follows is a word
// of clear polarity: "unhappy" reads as "not happy", "dissatisfied" as
// "not satisfied". Only polar bases count, so "display" never becomes
// "not play".
var negPrefixes = []string{"dis", "non", "un", "in", "im", "ir", "il"}

// token is one content word of a text as written: lower case, with the
// negation and intensity that surround it. A word negated inside a
// request not to do something ("can you not send me…") is also
// requested: its writer asks for it to stop.
type token struct {
	word      string
	negated   bool
	requested bool
	intensity float64
}

// requestNot reports whether a negator after the words before and last
// asks for something not to be done ("can you not…", "would you please
// not…", "please don't…", "please do not…") rather than saying that
// something is not so.
func requestNot(before, last string) bool {
	switch {
	case last == "please":
		return true
	case last == "you":
		return before == "can" || before == "could" || before == "would" || before == "will"
	case last == "do":
		return before == "please"
	}
	return false
}

// role is what a word does for tokens besides being read: one lookup in
// roles instead of one per list.
type role struct {
	negator, breaker, phraseEnd, stop bool
	// intensity is the word's factor in intensity, 0 for other words.
	intensity float64
}

var roles = func() map[string]role {
	m := map[string]role{}
	set := func(ws map[string]bool, f func(*role)) {
		for w := range ws {
			r := m[w]
			f(&r)
			m[w] = r
		}
	}
	set(tokenizer.Negators, func(r *role) { r.negator = true })
	set(tokenizer.Breakers, func(r *role) { r.breaker = true })
	set(phraseEnd, func(r *role) { r.phraseEnd = true })
	set(tokenizer.Stop, func(r *role) { r.stop = true })
	for w, f := range intensity {
		r := m[w]
		r.intensity = f
		m[w] = r
	}
	return m
}()

// tokens splits text into content words, marking each as negated when a
// negator's scope covers it and scaling it by a preceding intensifier.
// Drop holds further words to leave out. The tokens are appended to
// out[:0], reusing its memory.
func tokens(out []token, text string, drop map[string]bool) []token {
	out = out[:0]
	var neg words.Negation
	boost := 1.0
	// prev and before are the last two words of the clause read.
	prev, before := "", ""
	requesting := false
	read := func(w string) {
		last, twoBack := prev, before
		prev, before = w, last
		r := roles[w]
		if words.EndsNegation(w) {
			// What was not received is still what the text is about.
			defer neg.Close()
		}
		switch {
		case r.negator || words.NegatesAfter(last, w):
			neg.Open()
			requesting = requestNot(twoBack, last)
			boost = 1
			return
		case r.breaker:
			neg.Close()
			boost = 1
			return
		case r.phraseEnd && len(out) > 0 && out[len(out)-1].word == last:
			// "log in", "send back": the two words say one thing that
			// neither says alone.
			if to, ok := phrases[last+" "+w]; ok {
				out[len(out)-1].word = to
				return
			}
		case w == "all" && last == "at" && neg.Active():
			// "not at all happy", "not happy at all": the negation is
			// emphatic.
			boost = 2
			if n := len(out); n > 0 && out[n-1].negated {
				out[n-1].intensity = max(out[n-1].intensity, 2)
			}
			return
		}
		if r.intensity != 0 {
			boost *= r.intensity
			return
		}
		if r.stop || drop[w] {
			return
		}
		negated := neg.Cover()
		out = append(out, token{word: w, negated: negated, requested: negated && requesting, intensity: boost})
		boost = 1
	}
	for _, w := range tokenizer.Words(text) {
		read(w.Text)
		// Punctuation ends a clause, its negation and any pending
		// intensifier.
		for _, r := range w.Punct {
			neg.Close()
			boost = 1
			prev, before = "", ""
			if r == '!' {
				// An exclamation strengthens what was just said.
				if n := len(out); n > 0 {
					out[n-1].intensity *= 1.25
				}
			}
		}
	}
	return out
}
