package interview

import "testing"

func TestEarlier(t *testing.T) {
	q := func(id, parent string) Question {
		if parent == "" {
			return Question{ID: id, Kind: Main}
		}
		return Question{ID: id, Kind: FollowUp, ParentID: parent}
	}
	results := []Result{{Question: q("q1", "")}, {Question: q("q1-f1", "q1")}, {Question: q("q2", "")}}
	if got := Earlier(results, q("q1-f2", "q1")); len(got) != 2 || got[1].Question.ID != "q1-f1" {
		t.Fatalf("earlier than q1's second follow-up: %+v", got)
	}
	if got := Earlier(results, q("q2-f1", "q2")); len(got) != 1 || got[0].Question.ID != "q2" {
		t.Fatalf("earlier than q2's follow-up: %+v", got)
	}
	if got := Earlier(results, q("q3", "")); got != nil {
		t.Fatalf("a main question has nothing earlier: %+v", got)
	}
	// Appending to what came earlier never writes into the results.
	th := Earlier(results, q("q1-f2", "q1"))
	_ = append(th, Result{Question: q("x", "")})
	if results[2].Question.ID != "q2" {
		t.Fatal("appending overwrote the next result")
	}
	// Threads: q1 with its follow-up, q2, and an orphan follow-up alone.
	results = append(results, Result{Question: q("q9-f1", "q9")})
	ts := Threads(results)
	if len(ts) != 3 || ts[0] != (Thread{0, 2}) || ts[1] != (Thread{2, 3}) || ts[2] != (Thread{3, 4}) {
		t.Fatalf("threads %+v", ts)
	}
}

// One rule of which attempt counts: a scored one before one with nothing
// to score, then the higher score, the earlier of equals.
func TestBest(t *testing.T) {
	scored := func(s int) Evaluation { return Evaluation{Scorable: true, Score: s} }
	cases := []struct {
		first, second Evaluation
		wantSecond    bool
	}{
		{scored(40), scored(60), true},
		{scored(60), scored(40), false},
		{scored(50), scored(50), false},
		{Evaluation{}, scored(0), true}, // nothing to score, then a scored 0
		{scored(0), Evaluation{}, false},
		{Evaluation{}, Evaluation{}, false},
		{scored(20), Evaluation{Scorable: true, OffTopic: true, Score: 30}, true},
	}
	for _, c := range cases {
		r := Result{Answer: "first", Evaluation: c.first, Retry: &Attempt{Answer: "second", Evaluation: c.second}}
		if got := r.Best().Answer == "second"; got != c.wantSecond {
			t.Errorf("first %+v, second %+v: second counts %v, want %v", c.first, c.second, got, c.wantSecond)
		}
	}
}
