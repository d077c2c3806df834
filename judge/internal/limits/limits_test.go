package limits

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// byteCounter counts one token per byte: a predictable stand-in for the
// token limits, which the real tokenizer is tested against separately.
type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s) }

func validRequest() systemone.Request {
	return systemone.Request{
		Model: "local/lexical-latest",
		State: json.RawMessage(`"the invoice was charged twice"`),
		Questions: map[string]systemone.Question{
			"urgent": {Type: systemone.TypeNoul, Instructions: json.RawMessage(`"urgent?"`)},
			"team": {Type: systemone.TypeChoice, Instructions: json.RawMessage(`"team?"`),
				Options: []systemone.Option{{Name: "billing"}, {Name: "tech"}}},
		},
	}
}

// stateOfTokens is a JSON string state of n tokens under byteCounter.
func stateOfTokens(n int) json.RawMessage {
	return json.RawMessage(`"` + strings.Repeat("a", n) + `"`)
}

func longestQuestion(r systemone.Request) int {
	longest := 0
	for name, q := range r.Questions {
		longest = max(longest, question(byteCounter{}, name, q))
	}
	return longest
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*systemone.Request)
		loc     string // "" means valid
		errType string
	}{
		{"valid", func(*systemone.Request) {}, "", ""},
		{"malformed: shape first", func(r *systemone.Request) { r.Model = "" }, "body.model", "string_too_short"},
		{"state at the limit", func(r *systemone.Request) { r.State = stateOfTokens(MaxStateAndQuestionTokens - longestQuestion(*r)) }, "", ""},
		{"oversize state", func(r *systemone.Request) {
			r.State = stateOfTokens(MaxStateAndQuestionTokens - longestQuestion(*r) + 1)
		}, "body.state", "too_long"},
		{"oversize request", func(r *systemone.Request) {
			// Each question fits with the state; together they do not.
			r.State = stateOfTokens(1000)
			for i := range 5 {
				r.Questions[fmt.Sprint("big", i)] = systemone.Question{Type: systemone.TypeNoul, Instructions: stateOfTokens(13000)}
			}
		}, "body", "too_long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRequest()
			tt.edit(&r)
			c, err := Check(r, byteCounter{})
			if tt.loc == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				want := byteCounter{}.Count(systemone.ContentText(r.State))
				for name, q := range r.Questions {
					want += question(byteCounter{}, name, q)
				}
				if c.Tokens != want {
					t.Fatalf("Check counted %d tokens, want the state and every question: %d", c.Tokens, want)
				}
				return
			}
			ve, ok := err.(*systemone.ValidationError)
			if !ok || len(ve.Items) != 1 || strings.Join(ve.Items[0].Loc, ".") != tt.loc || ve.Items[0].Type != tt.errType {
				t.Fatalf("Check = %v, want one item at %s of type %s", err, tt.loc, tt.errType)
			}
		})
	}
}

func TestCheckRealTokenizer(t *testing.T) {
	// About 1.1 tokens per word with the default tokenizer: 40,000 words
	// exceed 32,000 tokens although they would pass a words-as-tokens count.
	r := validRequest()
	r.State, _ = json.Marshal(strings.Repeat("refund ", 40_000))
	if _, err := Check(r, tokens.Default()); err == nil || !strings.Contains(err.Error(), "body.state") {
		t.Fatalf("Check = %v, want the state too long", err)
	}
	r.State, _ = json.Marshal(strings.Repeat("refund ", 1000))
	c, err := Check(r, tokens.Default())
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Tokens; n < 1000 || n > 1100 {
		t.Errorf("Check counted %d tokens, want about 1,030", n)
	}
}

// TestCheckOrdersOptions: the checked request carries each choice's
// options in canonical order, whatever order they came in, and the
// caller's request keeps its own.
func TestCheckOrdersOptions(t *testing.T) {
	opts := []systemone.Option{
		{Name: "billing", Description: json.RawMessage(`"Payments and refunds"`)},
		{Name: "tech"}, {Name: "sales"}, {Name: "security"}, {Name: "other"},
	}
	want := systemone.CanonicalOptions(opts)
	for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}} {
		r := validRequest()
		given := make([]systemone.Option, len(order))
		for i, j := range order {
			given[i] = opts[j]
		}
		r.Questions["team"] = systemone.Question{Type: systemone.TypeChoice, Instructions: json.RawMessage(`"team?"`), Options: given}
		c, err := Check(r, byteCounter{})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Questions["team"].Options; !slices.EqualFunc(got, want, func(a, b systemone.Option) bool { return a.Name == b.Name }) {
			t.Errorf("order %v: checked options %v, want %v", order, got, want)
		}
		if got := r.Questions["team"].Options; got[0].Name != opts[order[0]].Name {
			t.Errorf("order %v: Check reordered the caller's options", order)
		}
		if !reflect.DeepEqual(c.Questions["urgent"], r.Questions["urgent"]) {
			t.Errorf("a noul question changed: %+v", c.Questions["urgent"])
		}
	}
}

// countingCounter counts one token per byte and records every text it is
// asked to count.
type countingCounter struct{ texts []string }

func (c *countingCounter) Count(s string) int {
	c.texts = append(c.texts, s)
	return len(s)
}

// TestQuestionCountsAgree holds QuestionCounts to the plain counts with
// the real tokenizer, counting the state every time and each question text
// once (its bounds are keep.Map's, tested there).
func TestQuestionCountsAgree(t *testing.T) {
	plain := tokens.Default()
	kept := RememberQuestions(plain)
	for i := range 3 {
		req := validRequest()
		req.State = json.RawMessage(fmt.Sprintf(`"state number %d: the invoice was charged twice"`, i))
		want, err := Check(req, plain)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Check(req, kept)
		if err != nil {
			t.Fatal(err)
		}
		if got.Tokens != want.Tokens {
			t.Errorf("round %d: %d tokens with kept question counts, %d without", i, got.Tokens, want.Tokens)
		}
	}

	rec := &countingCounter{}
	kept = RememberQuestions(rec)
	for range 3 {
		if _, err := Check(validRequest(), kept); err != nil {
			t.Fatal(err)
		}
	}
	state := systemone.ContentText(validRequest().State)
	states := 0
	for _, text := range rec.texts {
		if text == state {
			states++
		}
	}
	if states != 3 || len(rec.texts) != 3+2 {
		t.Errorf("counted %q: want the state three times and each of the two questions once", rec.texts)
	}
}

// benchBodies are 1-question request bodies: the one judge/cmd/judgeload
// sends (a noul question) and a choice question like the api package's
// BenchmarkSystemOne sends.
var benchBodies = []struct{ name, body string }{
	{"noul", `{"model":"local/lexical-latest","questions":{"refund_0":{"instructions":"Is the customer asking for a refund?","type":"noul"}},` +
		`"state":"I was charged twice for my subscription this month and I am furious. The app also crashed twice during checkout, ` +
		`which is not acceptable. Please refund the second charge today and tell me whether the login bug from last week is fixed."}`},
	{"choice", `{"model":"local/lexical-latest","questions":{"q0":{"criteria":{"billing":"Payments, invoices, refunds and charges",` +
		`"technical":"Bugs, errors, crashes"},"instructions":"Which team should handle it?","type":"choice"}},` +
		`"state":"I was charged twice for my subscription and I am furious. The app crashed too. Please refund me."}`},
}

// BenchmarkCheck is Check alone of a decoded 1-question request, with the
// real tokenizer and question counts kept, as the judge runs it.
func BenchmarkCheck(b *testing.B) {
	count := RememberQuestions(tokens.Default())
	for _, bb := range benchBodies {
		req, err := systemone.DecodeRequest([]byte(bb.body))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Check(req, count); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeCheck is the judge's whole reading of a 1-question
// request body: decoding it and checking it.
func BenchmarkDecodeCheck(b *testing.B) {
	count := RememberQuestions(tokens.Default())
	for _, bb := range benchBodies {
		body := []byte(bb.body)
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, err := systemone.DecodeRequest(body)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Check(req, count); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
