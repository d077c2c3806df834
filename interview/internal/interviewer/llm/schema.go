package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer"
)

// Bounds applied to every reply. The schemas carry the ones strict mode
// understands (integer ranges, list sizes); lengths are checked here only.
const (
	maxWelcomeRunes  = 1500
	minQuestionRunes = 10
	maxQuestionRunes = 600
	maxFeedbackRunes = 2000
	maxReportRunes   = 3000
	maxItemRunes     = 300
	maxItems         = 8
)

// replyRunes is the most text each call's validation accepts in a reply,
// by schema name.
var replyRunes = map[string]int{
	"opening":      maxWelcomeRunes + maxQuestionRunes,
	"question":     maxQuestionRunes,
	"follow_up":    maxQuestionRunes,
	"requirements": maxItems * maxRequirementRunes,
	"evaluation": maxFeedbackRunes + 2*maxItems*maxItemRunes +
		interviewer.MaxEvidence*(maxItemRunes+interviewer.MaxQuoteRunes),
	"summary": maxReportRunes + 3*maxItems*maxItemRunes,
}

// maxTokens is the output cap of a call (max_tokens): a token for every
// two characters of the longest text its reply may hold, plus 256 for the
// JSON around it. English runs about four characters to a token, so a
// valid reply fits with room to spare, and a reply cut at the cap was too
// long to pass anyway.
func maxTokens(name string) int64 {
	n, ok := replyRunes[name]
	if !ok {
		panic("llm: no reply bound for call " + name)
	}
	return int64(n/2 + 256)
}

func str() map[string]any { return map[string]any{"type": "string"} }

func score() map[string]any { return map[string]any{"type": "integer", "minimum": 0, "maximum": 100} }

func boolean() map[string]any { return map[string]any{"type": "boolean"} }

func list() map[string]any {
	return map[string]any{"type": "array", "items": str(), "maxItems": maxItems}
}

// object builds a strict-mode object schema: every property required, no
// others allowed.
func object(props map[string]any) map[string]any {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return map[string]any{"type": "object", "properties": props, "required": keys, "additionalProperties": false}
}

var (
	openingSchema    = object(map[string]any{"welcome": str(), "question": str()})
	questionSchema   = object(map[string]any{"question": str()})
	evaluationSchema = object(map[string]any{
		"scorable": boolean(), "offTopic": boolean(), "score": score(), "technicalAccuracy": score(), "communication": score(),
		"feedback": str(), "strengths": list(), "improvements": list(),
		"evidence": map[string]any{"type": "array", "maxItems": interviewer.MaxEvidence, "items": object(map[string]any{
			"kind":  map[string]any{"type": "string", "enum": []string{interview.Strength, interview.Improvement}},
			"point": str(), "quote": str(),
		})},
		"star": object(map[string]any{"situation": boolean(), "task": boolean(), "action": boolean(), "result": boolean()}),
	})
	summarySchema = object(map[string]any{
		"strengths": list(), "weaknesses": list(), "suggestedTopics": list(), "feedback": str(),
	})
)

type openingReply struct {
	Welcome  string `json:"welcome"`
	Question string `json:"question"`
}

type questionReply struct {
	Question string `json:"question"`
}

type evaluationReply struct {
	Scorable          bool                 `json:"scorable"`
	OffTopic          bool                 `json:"offTopic"`
	Score             int                  `json:"score"`
	TechnicalAccuracy int                  `json:"technicalAccuracy"`
	Communication     int                  `json:"communication"`
	Feedback          string               `json:"feedback"`
	Strengths         []string             `json:"strengths"`
	Improvements      []string             `json:"improvements"`
	Evidence          []interview.Evidence `json:"evidence"`
	Star              interview.STAR       `json:"star"`
}

type summaryReply struct {
	Strengths       []string `json:"strengths"`
	Weaknesses      []string `json:"weaknesses"`
	SuggestedTopics []string `json:"suggestedTopics"`
	Feedback        string   `json:"feedback"`
}

// lateFields are properties added to a schema after the first replies
// without them: the model is asked for them (strict mode lists every
// property as required), but a reply that leaves one out reads it as its
// zero value (offTopic false) rather than failing, so a provider or stand-in
// answering in the earlier shape keeps working.
var lateFields = map[string]bool{"offTopic": true}

// decodeStrict decodes one JSON object holding exactly the schema's
// properties (lateFields may be missing), none null, into dst. Integers
// must be written as integers: 85.5 or 8.5e1 fail to decode into int.
func decodeStrict(content string, schema map[string]any, dst any) error {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(content))
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	if raw == nil {
		return errors.New("not a JSON object: null")
	}
	if dec.More() {
		return errors.New("text after the JSON object")
	}
	props := schema["properties"].(map[string]any)
	for k := range raw {
		if _, ok := props[k]; !ok {
			return fmt.Errorf("unexpected field %q", k)
		}
	}
	for _, k := range schema["required"].([]string) {
		v, ok := raw[k]
		if !ok && lateFields[k] {
			continue
		}
		if !ok {
			return fmt.Errorf("missing field %q", k)
		}
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return fmt.Errorf("field %q is null", k)
		}
	}
	dec = json.NewDecoder(strings.NewReader(content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("wrong field type: %v", err)
	}
	return nil
}

func checkText(field, s string, min, max int) (string, error) {
	s = strings.TrimSpace(s)
	n := utf8.RuneCountInString(s)
	switch {
	case n == 0:
		return "", fmt.Errorf("%s is empty", field)
	case n < min:
		return "", fmt.Errorf("%s is too short (%d characters, at least %d)", field, n, min)
	case n > max:
		return "", fmt.Errorf("%s is too long (%d characters, at most %d)", field, n, max)
	}
	return s, nil
}

func checkList(field string, l []string) ([]string, error) {
	if len(l) > maxItems {
		return nil, fmt.Errorf("%s has %d items, at most %d", field, len(l), maxItems)
	}
	out := make([]string, 0, len(l))
	for i, item := range l {
		s, err := checkText(fmt.Sprintf("%s[%d]", field, i), item, 1, maxItemRunes)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func checkScore(field string, v int) error {
	if v < 0 || v > 100 {
		return fmt.Errorf("%s is %d, must be an integer from 0 to 100", field, v)
	}
	return nil
}

func parseOpening(content string) (openingReply, error) {
	var r openingReply
	if err := decodeStrict(content, openingSchema, &r); err != nil {
		return openingReply{}, err
	}
	var err error
	if r.Welcome, err = checkText("welcome", r.Welcome, 1, maxWelcomeRunes); err != nil {
		return openingReply{}, err
	}
	if r.Question, err = checkText("question", r.Question, minQuestionRunes, maxQuestionRunes); err != nil {
		return openingReply{}, err
	}
	return r, nil
}

func parseQuestion(content string) (questionReply, error) {
	var r questionReply
	if err := decodeStrict(content, questionSchema, &r); err != nil {
		return questionReply{}, err
	}
	var err error
	if r.Question, err = checkText("question", r.Question, minQuestionRunes, maxQuestionRunes); err != nil {
		return questionReply{}, err
	}
	return r, nil
}

func parseEvaluation(content string) (evaluationReply, error) {
	var r evaluationReply
	if err := decodeStrict(content, evaluationSchema, &r); err != nil {
		return evaluationReply{}, err
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"score", r.Score}, {"technicalAccuracy", r.TechnicalAccuracy}, {"communication", r.Communication}} {
		if err := checkScore(f.name, f.v); err != nil {
			return evaluationReply{}, err
		}
	}
	var err error
	if r.Feedback, err = checkText("feedback", r.Feedback, 1, maxFeedbackRunes); err != nil {
		return evaluationReply{}, err
	}
	if r.Strengths, err = checkList("strengths", r.Strengths); err != nil {
		return evaluationReply{}, err
	}
	if r.Improvements, err = checkList("improvements", r.Improvements); err != nil {
		return evaluationReply{}, err
	}
	if len(r.Evidence) > interviewer.MaxEvidence {
		return evaluationReply{}, fmt.Errorf("evidence has %d items, at most %d", len(r.Evidence), interviewer.MaxEvidence)
	}
	for i, e := range r.Evidence {
		if e.Kind != interview.Strength && e.Kind != interview.Improvement {
			return evaluationReply{}, fmt.Errorf("evidence[%d].kind is %q, must be strength or improvement", i, e.Kind)
		}
		if r.Evidence[i].Point, err = checkText(fmt.Sprintf("evidence[%d].point", i), e.Point, 1, maxItemRunes); err != nil {
			return evaluationReply{}, err
		}
		if utf8.RuneCountInString(e.Quote) > interviewer.MaxQuoteRunes {
			return evaluationReply{}, fmt.Errorf("evidence[%d].quote is longer than %d characters", i, interviewer.MaxQuoteRunes)
		}
	}
	return r, nil
}

func parseSummary(content string) (summaryReply, error) {
	var r summaryReply
	if err := decodeStrict(content, summarySchema, &r); err != nil {
		return summaryReply{}, err
	}
	var err error
	if r.Strengths, err = checkList("strengths", r.Strengths); err != nil {
		return summaryReply{}, err
	}
	if r.Weaknesses, err = checkList("weaknesses", r.Weaknesses); err != nil {
		return summaryReply{}, err
	}
	if r.SuggestedTopics, err = checkList("suggestedTopics", r.SuggestedTopics); err != nil {
		return summaryReply{}, err
	}
	if r.Feedback, err = checkText("feedback", r.Feedback, 1, maxReportRunes); err != nil {
		return summaryReply{}, err
	}
	return r, nil
}
