package systemone

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Two questions have one key only when they are the same question.
func TestKeysTellQuestionsApart(t *testing.T) {
	leave := Text("Does the customer want to leave?")
	qs := []Question{
		{Type: TypeNoul},
		{Type: TypeScore},
		{Type: TypeNoul, Instructions: json.RawMessage{}},
		{Type: TypeNoul, Noul: &NoulCriteria{}},
		{Type: TypeNoul, Noul: &NoulCriteria{True: json.RawMessage{}}},
		{Type: TypeNoul, Noul: &NoulCriteria{False: json.RawMessage{}}},
		{Type: TypeNoul, Instructions: leave},
		{Type: TypeNoul, Instructions: leave, Noul: &NoulCriteria{}},
		{Type: TypeNoul, Noul: &NoulCriteria{True: leave}},
		{Type: TypeNoul, Noul: &NoulCriteria{False: leave}},
		{Type: TypeNoul, Instructions: json.RawMessage(`{"ask": "Is it not urgent?", "context": ["refund"]}`)},
		{Type: TypeScore, Levels: []json.RawMessage{Text("ab"), Text("c")}},
		{Type: TypeScore, Levels: []json.RawMessage{Text("a"), Text("bc")}},
		{Type: TypeScore, Levels: []json.RawMessage{nil, Text("a")}},
		{Type: TypeScore, Levels: []json.RawMessage{Text("a"), nil}},
		{Type: TypeChoice, Options: []Option{{Name: "ab"}, {Name: "c"}}},
		{Type: TypeChoice, Options: []Option{{Name: "a"}, {Name: "bc"}}},
		{Type: TypeChoice, Options: []Option{{Name: "c"}, {Name: "ab"}}},
		{Type: TypeChoice, Options: []Option{{Name: "a", Description: Text("b")}}},
		{Type: TypeChoice, Options: []Option{{Name: "a", Description: json.RawMessage(`null`)}}},
		{Type: TypeChoice, Options: []Option{{Name: "a"}, {Name: "b"}}},
	}
	seen := map[string]int{}
	for i, q := range qs {
		k := string(q.AppendKey(nil))
		if j, ok := seen[k]; ok {
			t.Errorf("questions %d and %d have one key %q", j, i, k)
		}
		seen[k] = i
		if again := string(q.AppendKey([]byte("prefix"))); again != "prefix"+k {
			t.Errorf("question %d: appended to a prefix, the key is %q", i, again)
		}
	}
	// The key holds every field of a question: a field added to Question
	// must be added to AppendKey too.
	if n := reflect.TypeOf(Question{}).NumField(); n != 5 {
		t.Errorf("Question has %d fields; AppendKey covers 5", n)
	}
}
