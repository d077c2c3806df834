package chatadapter

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// anyLabelReply answers every call the planner tests make: logprobs whose
// window holds a label of every question type, or, for the probabilities
// readout, an even object over the labels the call shows.
func anyLabelReply(w http.ResponseWriter, r *http.Request, c chatCall, n int) {
	if c.isLogprobs() {
		writeLogprobs(w, top{"A", 0.4}, top{"yes", 0.3}, top{"0", 0.2}, top{"B", 0.1})
		return
	}
	labels := []string{"yes", "no"}
	if e := c.entries(); len(e) > 0 {
		labels = labels[:0]
		for _, x := range e {
			labels = append(labels, x[0])
		}
	}
	writeContent(w, exampleObject(labels))
}

// sentTokens is what the fake upstream received, counted with
// shared/tokens message by message.
func sentTokens(calls []chatCall) int {
	count := tokens.Default()
	n := 0
	for _, c := range calls {
		for _, m := range c.Messages {
			n += count.Count(m.Content)
		}
	}
	return n
}

func manyOptions(n int) systemone.Question {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("option %d", i)
	}
	return choiceQ(names...)
}

// The token budget is charged what the upstream receives: the planned
// figure equals the tokens of every message of every call the fake
// upstream saw, for each question type, the tournament, rotations and the
// probabilities readout, over states that end in every way a state can.
func TestPlannedInputTokensMatchWhatIsSent(t *testing.T) {
	states := []string{
		`"My invoice is wrong and I am furious."`,
		`{"ticket": {"body": "refund please \n\n", "tags": ["a", "b"], "n": 3.50}, "ü": "naïve café 日本語 😀"}`,
		`["trailing spaces   ", "line\r\n", "</state> <state>"]`,
		`"ends with punctuation!!! >>>"`,
	}
	tests := []struct {
		name      string
		questions map[string]systemone.Question
		opts      []Option
		calls     int
	}{
		{"noul", map[string]systemone.Question{"a": noulQ("Is the customer angry?")}, nil, 1},
		{"choice and score", map[string]systemone.Question{
			"team": choiceQ("billing", "technical", "sales"), "anger": scoreQ("calm", "annoyed", "angry"),
		}, nil, 2},
		{"tournament", map[string]systemone.Question{"pick": manyOptions(45)}, nil, 3 + 1},
		{"rotations", map[string]systemone.Question{
			"team": choiceQ("billing", "technical", "sales", "other"), "anger": scoreQ("calm", "angry"), "a": noulQ("Angry?"),
		}, []Option{WithRotations(3)}, 3 + 2 + 1},
		{"rotations of a tournament", map[string]systemone.Question{"pick": manyOptions(45)}, []Option{WithRotations(2)}, 2 * 4},
		{"probabilities readout", map[string]systemone.Question{
			"pick": manyOptions(45), "a": noulQ("Angry?"), "anger": scoreQ("calm", "angry"),
		}, []Option{WithReadout(ReadoutProbabilities)}, 3},
		// One yes/no call per option: the apart mode's cost.
		{"choices apart", map[string]systemone.Question{
			"pick": manyOptions(25), "team": choiceQ("billing", "technical", "sales"), "a": noulQ("Angry?"),
		}, []Option{WithChoiceMode(ChoiceApart)}, 25 + 3 + 1},
		// Duplicates are asked once; a yes/no choice is one noul call.
		{"duplicates and yes/no", map[string]systemone.Question{
			"team": {Type: systemone.TypeChoice, Instructions: raw(`"Which team?"`), Options: []systemone.Option{
				{Name: "a", Description: raw(`"billing"`)}, {Name: "b", Description: raw(`"billing"`)}, {Name: "c", Description: raw(`"sales"`)}}},
			"yn": {Type: systemone.TypeChoice, Instructions: raw(`"Angry?"`), Options: []systemone.Option{{Name: "yes"}, {Name: "no"}}},
		}, []Option{WithChoiceMode(ChoiceApart)}, 2 + 1},
	}
	for _, tt := range tests {
		for i, state := range states {
			t.Run(fmt.Sprintf("%s/state%d", tt.name, i), func(t *testing.T) {
				f := newFake(t, anyLabelReply)
				// A fixed readout: in auto mode the plan also covers a
				// second pass the provider never needs here.
				a := newTestAdapter(t, f, append([]Option{WithReadout(ReadoutLogprobs)}, tt.opts...)...)
				req := request(tt.questions)
				req.State = raw(state)
				planned := a.PlannedInputTokens(req)
				ask(t, a, req)
				calls := f.recorded()
				if len(calls) != tt.calls {
					t.Fatalf("%d calls, want %d", len(calls), tt.calls)
				}
				if sent := sentTokens(calls); planned != sent {
					t.Fatalf("planned %d input tokens, the upstream received %d", planned, sent)
				}
			})
		}
	}
}

// In auto mode a provider without logprobs makes every question run again
// with the probabilities readout. The plan covers both passes until the
// provider has answered with logprobs once; then it covers one.
func TestPlannedInputTokensCoverTheSecondPass(t *testing.T) {
	questions := map[string]systemone.Question{
		"pick": manyOptions(45), "a": noulQ("Angry?"), "anger": scoreQ("calm", "annoyed", "angry"),
	}
	noLogprobs := func(w http.ResponseWriter, r *http.Request, c chatCall, n int) {
		if c.isLogprobs() {
			writeContent(w, "A") // a provider that ignores logprobs
			return
		}
		anyLabelReply(w, r, c, n)
	}
	f := newFake(t, noLogprobs)
	a := newTestAdapter(t, f)
	req := request(questions)
	planned := a.PlannedInputTokens(req)
	ask(t, a, req)
	if sent := sentTokens(f.recorded()); planned < sent {
		t.Fatalf("planned %d input tokens, the upstream received %d over both passes", planned, sent)
	}
	// Now in the probabilities readout for good: one pass, exactly.
	before := len(f.recorded())
	planned = a.PlannedInputTokens(req)
	ask(t, a, req)
	if sent := sentTokens(f.recorded()[before:]); planned != sent {
		t.Fatalf("after the switch: planned %d, sent %d", planned, sent)
	}

	// A provider with logprobs: the second pass is planned only until
	// its first answer shows them.
	g := newFake(t, anyLabelReply)
	b := newTestAdapter(t, g)
	first := b.PlannedInputTokens(req)
	ask(t, b, req)
	sent := sentTokens(g.recorded())
	if first <= sent {
		t.Errorf("before any answer the plan %d does not cover a second pass beyond the %d sent", first, sent)
	}
	if again := b.PlannedInputTokens(req); again != sent {
		t.Errorf("once logprobs were seen: planned %d, one pass sends %d", again, sent)
	}
}

// Retries are not planned: a malformed reply and its correction cost more
// than the plan, never less.
func TestPlannedInputTokensLeaveOutRetries(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, c chatCall, n int) {
		if n == 1 {
			writeContent(w, "not JSON")
			return
		}
		writeContent(w, `{"A": 0.5, "B": 0.5}`)
	})
	a := newTestAdapter(t, f, WithReadout(ReadoutProbabilities))
	req := request(map[string]systemone.Question{"team": choiceQ("billing", "technical")})
	planned := a.PlannedInputTokens(req)
	ask(t, a, req)
	calls := f.recorded()
	if len(calls) != 2 || sentTokens(calls[:1]) != planned || sentTokens(calls) <= 2*planned {
		t.Fatalf("%d calls; planned %d, first call %d, all %d", len(calls), planned, sentTokens(calls[:1]), sentTokens(calls))
	}
}

// The plan of a large state counts the state block once, not once per
// call: planning 500 questions about an 80 KB state allocates far less than
// one copy of the state per question would.
func TestPlannedInputTokensCountTheStateOnce(t *testing.T) {
	f := newFake(t, anyLabelReply)
	a := newTestAdapter(t, f, WithReadout(ReadoutLogprobs))
	state := fmt.Sprintf("%q", strings.Repeat("the customer wrote again about a refund ", 2000))
	qs := map[string]systemone.Question{}
	for i := range 500 {
		// Different questions: the same question twice is asked once.
		qs[fmt.Sprintf("q%03d", i)] = noulQ(fmt.Sprintf("Is it refund number %d?", i))
	}
	req := request(qs)
	req.State = raw(state)
	stateTokens := tokens.Default().Count(stateOpen + state + stateClose)
	a.PlannedInputTokens(req) // the tokenizer's tables, once

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	planned := a.PlannedInputTokens(req)
	runtime.ReadMemStats(&after)
	if planned < 500*stateTokens || planned > 500*(stateTokens+300) {
		t.Fatalf("planned %d for 500 calls of a %d-token state", planned, stateTokens)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(500*len(state)/10) {
		t.Fatalf("planning allocated %d bytes, a tenth of the state per question is %d", allocated, 500*len(state)/10)
	}
}
