package systemone

import (
	"encoding/json"
	"testing"
)

const designResponse = `{"model": "m",
 "answers": {
   "urgent":  {"type": "noul", "noul": 0.93},
   "team":    {"type": "choice", "choice": "billing",
               "probabilities": {"billing": 0.81, "technical": 0.19}, "confidence": 0.62},
   "anger":   {"type": "score", "score": 1.2,
               "legend": {"0": "calm", "1": "annoyed", "2": "angry"},
               "probabilities": {"0": 0.1, "1": 0.6, "2": 0.3}, "confidence": 0.55},
   "harmful": {"type": "noul", "noul": 0.02},
   "odd":     {"type": "noul", "noul": 1.7},
   "mixed":   {"type": "noul", "choice": "x"},
   "wrong":   {"type": "choice", "noul": 0.9}},
 "usage": {"input_tokens": 391, "output_tokens": 3, "cost": 0.0000164}}`

func TestTypedAnswers(t *testing.T) {
	var r Response
	if err := json.Unmarshal([]byte(designResponse), &r); err != nil {
		t.Fatal(err)
	}
	nouls, choices, scores := r.Nouls(), r.Choices(), r.Scores()
	if len(nouls) != 2 || len(choices) != 1 || len(scores) != 1 {
		t.Fatalf("nouls %v choices %v scores %v", nouls, choices, scores)
	}
	if u := nouls["urgent"]; !u.Yes() || !u.Confident(0.9) || u.Confident(0.95) {
		t.Errorf("urgent = %+v", u)
	}
	if h := nouls["harmful"]; h.Yes() || !h.Confident(0.95) {
		t.Errorf("harmful = %+v", h)
	}
	if c := choices["team"]; c.Choice != "billing" || c.Probabilities["technical"] != 0.19 || !c.Confident(0.6) || c.Confident(0.7) {
		t.Errorf("team = %+v", c)
	}
	if s := scores["anger"]; s.Score != 1.2 || s.Level() != "annoyed" || s.Legend["2"] != "angry" || !s.Confident(0.5) || s.Confident(0.6) {
		t.Errorf("anger = %+v", s)
	}
	if len(r.Answers) != 7 {
		t.Errorf("combined answers = %d, want 7", len(r.Answers))
	}
}

func TestYesAtHalf(t *testing.T) {
	for p, want := range map[float64]bool{0: false, 0.4999: false, 0.5: true, 1: true} {
		if got := (NoulAnswer{P: p}).Yes(); got != want {
			t.Errorf("Yes(%v) = %v", p, got)
		}
	}
}

func TestFailClosed(t *testing.T) {
	var r Response
	if err := json.Unmarshal([]byte(designResponse), &r); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		min     float64
		yes, no bool
	}{
		{"urgent", 0.9, true, false},
		{"urgent", 0.95, false, false},
		{"harmful", 0.95, false, true},
		{"missing", 0.5, false, false},
		{"odd", 0.5, false, false},   // p outside [0, 1]
		{"mixed", 0.5, false, false}, // noul without a probability
		{"wrong", 0.5, false, false}, // choice carrying a noul value
		{"team", 0.0, false, false},  // not a noul question
	}
	for _, tt := range tests {
		if got := r.ClearlyYes(tt.name, tt.min); got != tt.yes {
			t.Errorf("ClearlyYes(%s, %v) = %v", tt.name, tt.min, got)
		}
		if got := r.ClearlyNo(tt.name, tt.min); got != tt.no {
			t.Errorf("ClearlyNo(%s, %v) = %v", tt.name, tt.min, got)
		}
	}
	var none *Response
	if none.ClearlyYes("urgent", 0) || none.ClearlyNo("urgent", 0) || len(none.Nouls()) != 0 {
		t.Error("a nil response must fail closed")
	}
}
