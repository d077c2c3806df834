package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/engine/chat"
	"github.com/judgeworks/judge/internal/engine/lexical"
	"github.com/judgeworks/judge/internal/engine/semantic"
	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/wordvec"
)

// subject is one entry of the table: how to build it, whether it applies
// the Reading rules (the offline engines) and whether its choices are a
// normalised product of per-option scores (the offline engines always,
// the chat adapter in its apart mode).
type subject struct {
	name  string
	build func(t *testing.T) (systemone.Backend, *fakeModel)
	reads bool
	apart bool
}

var engines = []subject{
	{name: "semantic", reads: true, apart: true, build: func(t *testing.T) (systemone.Backend, *fakeModel) {
		e, err := semantic.New(wordvec.Default())
		if err != nil {
			t.Fatal(err)
		}
		return e, nil
	}},
	{name: "lexical", reads: true, apart: true, build: func(*testing.T) (systemone.Backend, *fakeModel) {
		return lexical.Engine{}, nil
	}},
	{name: "chat joint", build: func(t *testing.T) (systemone.Backend, *fakeModel) {
		return chatEngine(t)
	}},
	{name: "chat apart", apart: true, build: func(t *testing.T) (systemone.Backend, *fakeModel) {
		return chatEngine(t, chatadapter.WithChoiceMode(chatadapter.ChoiceApart))
	}},
}

const state = `"I was charged twice for my March invoice and the app crashes whenever I open the billing page. Please send the money back."`

func team() systemone.Question {
	return systemone.Question{Type: systemone.TypeChoice, Instructions: text("Which team should handle this ticket?"),
		Options: []systemone.Option{
			{Name: "billing", Description: text("payments, invoices, charges and refunds")},
			{Name: "technical", Description: text("bugs, errors, crashes and slow pages")},
			{Name: "account", Description: text("signing in, passwords and profile settings")},
			{Name: "shipping", Description: text("deliveries, parcels and couriers")},
		}}
}

func refund() systemone.Question {
	return systemone.Question{Type: systemone.TypeNoul, Instructions: text("Does the customer want a refund?")}
}

func upset() systemone.Question {
	return systemone.Question{Type: systemone.TypeScore, Instructions: text("How upset is the customer?"),
		Levels: []string{"calm", "annoyed", "angry", "furious"}}
}

func text(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// exact is how far two probabilities the laws say are equal may differ:
// the rounding of a sum taken in another order.
const exact = 1e-12

func forEach(t *testing.T, law func(t *testing.T, e subject, b systemone.Backend, fake *fakeModel)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			b, fake := e.build(t)
			law(t, e, b, fake)
		})
	}
}

func ask(t *testing.T, b systemone.Backend, qs map[string]systemone.Question) map[string]systemone.Answer {
	t.Helper()
	req := systemone.Request{Model: "m", State: json.RawMessage(state), Questions: qs}
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	resp, err := b.Ask(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Answers
}

func one(t *testing.T, b systemone.Backend, q systemone.Question) systemone.Answer {
	t.Helper()
	return ask(t, b, map[string]systemone.Question{"q": q})["q"]
}

func same(a, b float64) bool { return math.Abs(a-b) <= exact }

// An option's name decides nothing once it has a description: renamed
// options, and descriptions swapped between names, move the answer with
// the descriptions.
func TestIdsNeverDecide(t *testing.T) {
	forEach(t, func(t *testing.T, _ subject, b systemone.Backend, _ *fakeModel) {
		base := one(t, b, team())
		renamed := team()
		for i := range renamed.Options {
			renamed.Options[i].Name = "option_" + strconv.Itoa(9-i)
		}
		got := one(t, b, renamed)
		for i, o := range team().Options {
			if p, q := base.Probabilities[o.Name], got.Probabilities[renamed.Options[i].Name]; !same(p, q) {
				t.Errorf("renamed %s: %v, was %v", o.Name, q, p)
			}
		}
		swapped := team()
		swapped.Options[0].Description, swapped.Options[1].Description = swapped.Options[1].Description, swapped.Options[0].Description
		got = one(t, b, swapped)
		if !same(got.Probabilities["billing"], base.Probabilities["technical"]) || !same(got.Probabilities["technical"], base.Probabilities["billing"]) {
			t.Errorf("swapped descriptions: %v, was %v", got.Probabilities, base.Probabilities)
		}
	})
}

// Options that say the same thing are one event, split evenly.
func TestDuplicatesSplitEvenly(t *testing.T) {
	forEach(t, func(t *testing.T, _ subject, b systemone.Backend, _ *fakeModel) {
		base := one(t, b, team())
		dup := team()
		dup.Options = append(dup.Options, systemone.Option{Name: "money", Description: dup.Options[0].Description})
		got := one(t, b, dup)
		if !same(got.Probabilities["billing"], got.Probabilities["money"]) ||
			!same(got.Probabilities["billing"]+got.Probabilities["money"], base.Probabilities["billing"]) {
			t.Errorf("duplicate of billing: %v, was %v", got.Probabilities, base.Probabilities)
		}
		for _, n := range []string{"technical", "account", "shipping"} {
			if !same(got.Probabilities[n], base.Probabilities[n]) {
				t.Errorf("%s moved from %v to %v beside a duplicate", n, base.Probabilities[n], got.Probabilities[n])
			}
		}
	})
}

// A choice or a score of yes and no is the noul question it spells.
func TestYesNoPairIsNoul(t *testing.T) {
	forEach(t, func(t *testing.T, _ subject, b systemone.Backend, _ *fakeModel) {
		p := *one(t, b, refund()).Noul
		choice := systemone.Question{Type: systemone.TypeChoice, Instructions: refund().Instructions,
			Options: []systemone.Option{{Name: "no"}, {Name: "yes"}}}
		if got := one(t, b, choice); !same(got.Probabilities["yes"], p) || !same(got.Probabilities["no"], 1-p) {
			t.Errorf("as a choice: %v, noul %v", got.Probabilities, p)
		}
		described := systemone.Question{Type: systemone.TypeChoice, Instructions: refund().Instructions,
			Options: []systemone.Option{{Name: "a", Description: text("Yes")}, {Name: "b", Description: text("No.")}}}
		if got := one(t, b, described); !same(got.Probabilities["a"], p) {
			t.Errorf("as a choice described yes and no: %v, noul %v", got.Probabilities, p)
		}
		score := systemone.Question{Type: systemone.TypeScore, Instructions: refund().Instructions, Levels: []string{"no", "yes"}}
		if got := one(t, b, score); !same(got.Probabilities["1"], p) || !same(*got.Score, p) {
			t.Errorf("as a score: %v, noul %v", got.Probabilities, p)
		}
	})
}

// The odds between two options do not depend on which others are offered.
func TestChoiceSetIndependence(t *testing.T) {
	forEach(t, func(t *testing.T, e subject, b systemone.Backend, fake *fakeModel) {
		if !e.apart {
			t.Skip("a joint readout shows the model the whole menu; the apart mode keeps this law")
		}
		base := one(t, b, team())
		smaller := team()
		smaller.Options = smaller.Options[:2]
		got := one(t, b, smaller)
		ratio := base.Probabilities["billing"] / base.Probabilities["technical"]
		if r := got.Probabilities["billing"] / got.Probabilities["technical"]; math.Abs(r-ratio) > exact*ratio {
			t.Errorf("billing:technical %v with two options, %v with four", r, ratio)
		}
		if fake != nil {
			// One yes/no call per option, each showing that option alone.
			calls := fake.reset()
			for _, c := range calls {
				if len(c.entries) != 0 || !strings.Contains(c.question, "Proposed answer: ") {
					t.Errorf("an apart call showed %d entries:\n%s", len(c.entries), c.question)
				}
			}
		}
	})
}

// A question's answer does not depend on the other questions asked with
// it, nor on its name.
func TestBatchIndependence(t *testing.T) {
	forEach(t, func(t *testing.T, _ subject, b systemone.Backend, _ *fakeModel) {
		alone := map[string]systemone.Answer{}
		for name, q := range map[string]systemone.Question{"team": team(), "refund": refund(), "upset": upset()} {
			alone[name] = one(t, b, q)
		}
		together := ask(t, b, map[string]systemone.Question{"t": team(), "r": refund(), "u": upset(),
			"r2": {Type: systemone.TypeNoul, Instructions: text("Is the customer polite?")}})
		for from, to := range map[string]string{"team": "t", "refund": "r", "upset": "u"} {
			a, c := alone[from], together[to]
			if a.Noul != nil && !same(*a.Noul, *c.Noul) {
				t.Errorf("%s: %v alone, %v in a batch", from, *a.Noul, *c.Noul)
			}
			for k, p := range a.Probabilities {
				if !same(p, c.Probabilities[k]) {
					t.Errorf("%s: %s %v alone, %v in a batch", from, k, p, c.Probabilities[k])
				}
			}
		}
	})
}

// The offline engines read negation and cumulative ranges: a question
// that negates another is its complement, "k or higher" the sum of those
// levels.
func TestNegationAndRanges(t *testing.T) {
	forEach(t, func(t *testing.T, e subject, b systemone.Backend, _ *fakeModel) {
		if !e.reads {
			t.Skip("a language model reads negation itself")
		}
		p := *one(t, b, refund()).Noul
		for _, neg := range []string{
			"Does the customer not want a refund?",
			"Doesn't the customer want a refund?",
			"Is it not the case that the answer to this question is yes: Does the customer want a refund?",
		} {
			q := refund()
			q.Instructions = text(neg)
			if got := *one(t, b, q).Noul; !same(got, 1-p) {
				t.Errorf("%q: %v, want 1 − %v", neg, got, p)
			}
		}
		claim := systemone.Question{Type: systemone.TypeNoul, Instructions: text("The customer wants a refund.")}
		notClaim := systemone.Question{Type: systemone.TypeNoul, Instructions: text("It is not true that the customer wants a refund.")}
		if a, b := *one(t, b, claim).Noul, *one(t, b, notClaim).Noul; !same(a+b, 1) {
			t.Errorf("a claim %v and its wrapped negation %v", a, b)
		}
		either := *one(t, b, systemone.Question{Type: systemone.TypeNoul, Instructions: text("Does the customer want a refund or a discount?")}).Noul
		neither := *one(t, b, systemone.Question{Type: systemone.TypeNoul, Instructions: text("Does the customer want neither a refund nor a discount?")}).Noul
		if !same(either+neither, 1) {
			t.Errorf("either %v + neither %v ≠ 1", either, neither)
		}
		s := one(t, b, upset())
		q := systemone.Question{Type: systemone.TypeNoul,
			Instructions: text(`How upset is the customer? On the scale "calm", "annoyed", "angry", "furious", is it "angry" or higher?`)}
		if got, want := *one(t, b, q).Noul, s.Probabilities["2"]+s.Probabilities["3"]; !same(got, want) {
			t.Errorf("angry or higher: %v, want %v", got, want)
		}
	})
}

// fakeModel is an OpenAI-compatible chat endpoint whose answers are a
// fixed function of what each call shows: an entry's weight is a hash of
// its text, plus a bonus for the first place, as real models favour it.
// A name shown beside a description, or a duplicate asked twice, would
// change the answers; the menu changes them in a joint call.
type fakeModel struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []shownCall
}

type shownCall struct {
	question string
	entries  [][2]string
}

var entryLine = regexp.MustCompile(`(?m)^([A-Z0-9]+)\) (.*)$`)

func chatEngine(t *testing.T, opts ...chatadapter.Option) (systemone.Backend, *fakeModel) {
	t.Helper()
	f := &fakeModel{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	base := []chatadapter.Option{
		chatadapter.WithProvider(f.srv.URL+"/v1", "test-key", "fake-model"),
		chatadapter.WithReadout(chatadapter.ReadoutProbabilities),
		chatadapter.WithLogger(slog.New(slog.DiscardHandler)),
	}
	a, err := chat.New(engine.NewSlots(fairqueue.Config{Slots: 8, Queue: 64, MaxWait: time.Minute}, ""), append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return a, f
}

func weight(s string) float64 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return 1 + float64(h.Sum32()%97)
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	var user string
	for _, m := range body.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	_, question, _ := strings.Cut(user, "</state>")
	c := shownCall{question: question}
	for _, m := range entryLine.FindAllStringSubmatch(question, -1) {
		c.entries = append(c.entries, [2]string{m[1], m[2]})
	}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	probs := map[string]float64{}
	if len(c.entries) == 0 {
		// A yes/no call: p(yes) from the whole question.
		p := weight(question) / 100
		probs["yes"], probs["no"] = p, 1-p
	} else {
		sum := 0.0
		for i, e := range c.entries {
			x := weight(e[1])
			if i == 0 {
				x += 20
			}
			probs[e[0]] = x
			sum += x
		}
		for k := range probs {
			probs[k] /= sum
		}
	}
	content, _ := json.Marshal(probs)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"fake-model-1","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%q}}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`, content)
}

func (f *fakeModel) reset() []shownCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.calls
	f.calls = nil
	return out
}
