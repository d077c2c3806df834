package systemone_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/judgeworks/shared/systemone"
)

func ExampleClient_Ask() {
	// A stand-in for the judge; in real use, leave out WithBaseURL and set
	// JUDGE_URL and JUDGE_API_KEY.
	judge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"model":"local/lexical-2025-01-01","answers":{
		  "urgent":{"type":"noul","noul":0.93},
		  "team":{"type":"choice","choice":"billing","probabilities":{"billing":0.81,"technical":0.19},"confidence":0.62},
		  "anger":{"type":"score","score":1.2,"legend":{"0":"calm","1":"annoyed","2":"angry"},"probabilities":{"0":0.1,"1":0.6,"2":0.3},"confidence":0.55}},
		  "usage":{"input_tokens":391,"output_tokens":3,"cost":0.0000164}}`)
	}))
	defer judge.Close()

	client := systemone.NewClient(systemone.WithBaseURL(judge.URL), systemone.WithAPIKey("dev-key"))
	resp, err := client.Ask(context.Background(), systemone.Request{
		Model: "local/lexical-latest",
		State: json.RawMessage(`"I was charged twice and nobody answers!"`),
		Questions: map[string]systemone.Question{
			"urgent": {Type: systemone.TypeNoul, Instructions: json.RawMessage(`"Does this need an answer today?"`)},
			"team": {Type: systemone.TypeChoice, Instructions: json.RawMessage(`"Which team handles it?"`),
				Options: []systemone.Option{
					{Name: "billing", Description: json.RawMessage(`"charges, refunds, invoices"`)},
					{Name: "technical", Description: json.RawMessage(`"bugs and outages"`)},
				}},
			"anger": {Type: systemone.TypeScore, Instructions: json.RawMessage(`"How angry is the customer?"`),
				Levels: systemone.Texts("calm", "annoyed", "angry")},
		},
	})
	if err != nil {
		fmt.Println(err) // a *systemone.Error with status, error_type, message and request id
		return
	}
	fmt.Println("urgent:", resp.Nouls()["urgent"].Yes())
	if team := resp.Choices()["team"]; team.Confident(0.5) {
		fmt.Println("route to:", team.Choice)
	}
	fmt.Printf("anger: %.1f (%s)\n", resp.Scores()["anger"].Score, resp.Scores()["anger"].Level())
	fmt.Println("safe to auto-reply:", resp.ClearlyNo("urgent", 0.8))
	// Output:
	// urgent: true
	// route to: billing
	// anger: 1.2 (annoyed)
	// safe to auto-reply: false
}
