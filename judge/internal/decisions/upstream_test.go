package decisions

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/judgeworks/shared/systemone"
	"github.com/openai/openai-go/v3"
)

func upstreamQuestions() []systemone.Question {
	return []systemone.Question{
		{Type: systemone.TypeNoul, Instructions: json.RawMessage(`"  Is it urgent? "`),
			Noul: &systemone.NoulCriteria{True: json.RawMessage(`"needs a reply today"`), False: json.RawMessage(`null`)}},
		{Type: systemone.TypeChoice, Instructions: json.RawMessage(`{"ask": "which team"}`),
			Options: []systemone.Option{
				{Name: "billing", Description: json.RawMessage(`" payments "`)},
				{Name: "tech", Description: json.RawMessage(`null`)},
				{Name: "other"},
			}},
		{Type: systemone.TypeScore, Instructions: json.RawMessage(`null`),
			Levels: []json.RawMessage{json.RawMessage(`"calm"`), json.RawMessage(`null`), json.RawMessage(`{"level": "furious"}`)}},
	}
}

// TestEncodeAsOpenAIGo: the request Encode writes is the one openai-go's
// client.Decisions.New sends for the same questions, field for field.
func TestEncodeAsOpenAIGo(t *testing.T) {
	state := json.RawMessage(`{"ticket": "charged twice"}`)
	params := openai.DecisionNewParams{
		Model: "m",
		Input: openai.DecisionNewParamsInputUnion{OfString: openai.String(`{"ticket": "charged twice"}`)},
		Questions: []openai.DecisionNewParamsQuestionUnion{
			{OfPredicate: &openai.DecisionNewParamsQuestionPredicate{
				Instructions: openai.DecisionNewParamsQuestionPredicateInstructionsUnion{
					OfString: openai.String("Is it urgent?\n\ntrue means: needs a reply today\nfalse means: ")}}},
			{OfChoice: &openai.DecisionNewParamsQuestionChoice{
				Instructions: openai.DecisionNewParamsQuestionChoiceInstructionsUnion{OfString: openai.String(`{"ask": "which team"}`)},
				Choices: []openai.DecisionNewParamsQuestionChoiceChoice{
					{Value: openai.DecisionNewParamsQuestionChoiceChoiceValueUnion{OfString: openai.String("billing")}, Description: openai.String("payments")},
					{Value: openai.DecisionNewParamsQuestionChoiceChoiceValueUnion{OfString: openai.String("tech")}},
					{Value: openai.DecisionNewParamsQuestionChoiceChoiceValueUnion{OfString: openai.String("other")}},
				}}},
			{OfScore: &openai.DecisionNewParamsQuestionScore{
				Instructions: openai.DecisionNewParamsQuestionScoreInstructionsUnion{OfString: openai.String("(no instructions)")},
				Levels:       []openai.DecisionNewParamsQuestionScoreLevel{{Label: "calm"}, {Label: "1"}, {Label: `{"level": "furious"}`}}}},
		},
	}
	sdk, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := json.Marshal(Encode("m", state, upstreamQuestions()))
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(sdk, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(ours, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Encode wrote\n%s\nopenai-go sends\n%s", ours, sdk)
	}
}

// TestWeightsReadTheServersAnswer: a decision as the judge's own
// /v1/decisions writes it, read back as an upstream's, gives the
// probabilities it carried, outcome by outcome.
func TestWeightsReadTheServersAnswer(t *testing.T) {
	body := `{"model": "m", "input": "x", "questions": [
	  {"type": "predicate", "instructions": "a"},
	  {"type": "choice", "instructions": "b", "choices": [{"value": "billing"}, {"value": "tech"}, {"value": "other"}]},
	  {"type": "score", "instructions": "c", "levels": [{"label": "calm"}, {"label": "annoyed"}, {"label": "furious"}]}]}`
	tr, err := Decode([]byte(body), MaxQuestions)
	if err != nil {
		t.Fatal(err)
	}
	p := func(x float64) *float64 { return &x }
	resp := &systemone.Response{Model: "m", Answers: map[string]systemone.Answer{
		"#0": {Noul: p(0.75)},
		"#1": {Choice: "tech", Probabilities: map[string]float64{"billing": 0.25, "tech": 0.5, "other": 0.25}},
		"#2": {Score: p(1.5), Probabilities: map[string]float64{"0": 0.125, "1": 0.25, "2": 0.625}},
	}}
	wire, err := json.Marshal(tr.Answer(resp))
	if err != nil {
		t.Fatal(err)
	}
	var d Decision
	if err := json.Unmarshal(wire, &d); err != nil {
		t.Fatal(err)
	}
	qs := []systemone.Question{tr.Request.Questions["#0"], tr.Request.Questions["#1"], tr.Request.Questions["#2"]}
	want := [][]float64{{0.75, 0.25}, {0.25, 0.5, 0.25}, {0.125, 0.25, 0.625}}
	for i, q := range qs {
		w, err := Weights(q, d.Answers[i])
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if !reflect.DeepEqual(w, want[i]) {
			t.Errorf("answer %d: weights %v, want %v", i, w, want[i])
		}
	}
	if _, err := Weights(qs[0], Answer{Type: "refusal"}); err != ErrRefused {
		t.Errorf("a refusal reads as %v, want ErrRefused", err)
	}
	two := 2.5
	if _, err := Weights(qs[2], Answer{Type: "score", Probabilities: []Probability{{Value: two, Probability: 1}}}); err == nil {
		t.Error("a score value of 2.5 was read as a level")
	}
}
