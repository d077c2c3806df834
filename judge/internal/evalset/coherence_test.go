package evalset

import (
	"context"
	"testing"

	"github.com/judgeworks/shared/systemone"
)

// byName answers a choice by its options' names (the first in name order
// gets most), every noul 0.7, every score evenly: an engine that reads ids
// and not meanings.
type byName struct{}

func (byName) Ask(_ context.Context, req systemone.Request) (*systemone.Response, error) {
	answers := map[string]systemone.Answer{}
	for name, q := range req.Questions {
		var w []float64
		switch q.Type {
		case systemone.TypeNoul:
			w = []float64{0.7}
		case systemone.TypeChoice:
			for _, o := range q.Options {
				w = append(w, float64(len(o.Name)))
			}
		case systemone.TypeScore:
			for range q.Levels {
				w = append(w, 1)
			}
		}
		a, err := systemone.BuildAnswer(q, w)
		if err != nil {
			return nil, err
		}
		answers[name] = a
	}
	return &systemone.Response{Model: "by-name", Answers: answers}, nil
}

// The laws tell an engine that reads names and says yes to everything
// from a coherent one: renaming, negation, questions about other
// questions and a four-way choice's marginals fail; order and batch pass,
// and so do inclusion–exclusion and the Fréchet bounds, which an engine
// that answers every yes/no question alike keeps.
func TestLawsCatchIncoherence(t *testing.T) {
	r, err := Coherence(context.Background(), byName{}, "by-name", 4)
	if err != nil {
		t.Fatal(err)
	}
	rates := map[string]float64{}
	for _, l := range r.Laws {
		if l.N == 0 {
			t.Errorf("law %s has no instance in the set", l.Law)
		}
		rates[l.Law] = l.Rate
	}
	for law, want := range map[string]float64{"rename_option": 0, "negation_wrapper": 0, "negation_natural": 0,
		"negation_compound": 0, "reorder_options": 1, "batch_independence": 1, "noul_as_score": 0,
		"negation_templated": 0, "compound_negation": 0, "choice_indicator": 0, "score_complement_other": 0,
		"score_cumulative_other": 0, "pair_marginals": 0, "inclusion_exclusion": 1, "frechet_bounds": 1} {
		if rates[law] != want {
			t.Errorf("%s: %v, want %v", law, rates[law], want)
		}
	}
	if len(r.Dimensions) != len(dimensions) || r.Overall <= 0 || r.Overall >= 1 {
		t.Errorf("dimensions %v, overall %v", r.Dimensions, r.Overall)
	}
}
