package semantic

import (
	"context"
	"math"
	"testing"

	"github.com/judgeworks/judge/internal/evalset"
	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/wordvec"
)

// The engine's mixing is what calibrate works out from its unmixed
// answers to the dev split: the least that keeps every answer within the
// confidence those answers support.
func TestMixingFitsDev(t *testing.T) {
	e, err := New(wordvec.Default())
	if err != nil {
		t.Fatal(err)
	}
	e.mixing = nil
	byType, err := evalset.Labelled(context.Background(), e, Name, "../../../testdata/eval/dev.jsonl", 1)
	if err != nil {
		t.Fatal(err)
	}
	for qt, want := range mixing {
		items := byType[qt]
		c := calibrate.Ceiling(items)
		if got := calibrate.Mixing(items, c); math.Abs(got-want) > 5e-5 {
			t.Errorf("%s: dev answers support %.4f, which takes mixing %.4f; the engine mixes %.4f", qt, c, got, want)
		}
	}
}
