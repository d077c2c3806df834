package enginetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/shared/systemone"
)

// Ticket is a support ticket for model with n questions cycling through
// the three types, so each size exercises every answer builder: the
// request the engines' benchmarks time.
func Ticket(model string, n int) systemone.Request {
	req := systemone.Request{
		Model:     model,
		State:     json.RawMessage(`"I was charged twice for my subscription and I am furious. The app also crashed twice during checkout, which is not acceptable. Please refund me today and tell me whether the login bug is fixed."`),
		Questions: map[string]systemone.Question{},
	}
	for i := range n {
		var q systemone.Question
		switch i % 3 {
		case 0:
			q = systemone.Question{Type: systemone.TypeNoul, Instructions: json.RawMessage(`"Is the customer asking for a refund?"`)}
		case 1:
			q = systemone.Question{Type: systemone.TypeChoice, Instructions: json.RawMessage(`"Which team?"`), Options: []systemone.Option{
				{Name: "billing", Description: json.RawMessage(`"Payments, invoices, refunds and charges"`)},
				{Name: "technical", Description: json.RawMessage(`"Bugs, errors, crashes and login problems"`)},
				{Name: "sales", Description: json.RawMessage(`"Pricing questions and upgrades"`)},
			}}
		case 2:
			q = systemone.Question{Type: systemone.TypeScore, Instructions: json.RawMessage(`"How angry?"`),
				Levels: systemone.Texts("calm", "mildly annoyed", "annoyed", "angry", "furious")}
		}
		req.Questions[fmt.Sprintf("q%d", i)] = q
	}
	return req
}

// Decode reads and validates a System One request body, as the HTTP layer
// does before an engine sees it.
func Decode(t testing.TB, body string) systemone.Request {
	t.Helper()
	req, err := systemone.DecodeRequest([]byte(body))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if err := req.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	return req
}

// Ask has e answer req, failing the test on an error.
func Ask(t testing.TB, e engine.Engine, req systemone.Request) *systemone.Response {
	t.Helper()
	resp, err := e.Ask(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
