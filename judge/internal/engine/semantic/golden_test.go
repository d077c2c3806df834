package semantic_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/judgeworks/judge/internal/engine/lexical"
	"github.com/judgeworks/judge/internal/engine/semantic"
	"github.com/judgeworks/judge/internal/evalset"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/wordvec"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.json from the engines' current answers")

const golden = "testdata/golden.json"

// goldenRequests are every labelled item of judge/testdata/eval (both
// splits) as a one-question request, and one request whose state is all
// their states together, long enough that the semantic engine keeps only
// its heaviest words.
func goldenRequests(t *testing.T) []systemone.Request {
	var reqs []systemone.Request
	var states []string
	for _, path := range []string{"../../../testdata/eval/dev.jsonl", "../../../testdata/eval/heldout.jsonl"} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var it evalset.Item
			if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
				t.Fatal(err)
			}
			reqs = append(reqs, systemone.Request{State: it.State, Questions: map[string]systemone.Question{"q": it.Question}})
			states = append(states, string(it.State))
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	long, _ := json.Marshal(strings.Join(states, " "))
	qs := map[string]systemone.Question{}
	for i, r := range reqs[:30] {
		qs[string(rune('a'+i%26))+string(rune('a'+i/26))] = r.Questions["q"]
	}
	return append(reqs, systemone.Request{State: long, Questions: qs})
}

// TestGoldenAnswers holds both offline engines to the answers they gave
// when testdata/golden.json was written, within 1e-12: work on their speed
// must not move an answer. A change meant to alter answers bumps the
// engine's Name and rewrites the file with -update.
func TestGoldenAnswers(t *testing.T) {
	sem, err := semantic.New(wordvec.Default())
	if err != nil {
		t.Fatal(err)
	}
	backends := map[string]systemone.Backend{semantic.Name: sem, lexical.Name: lexical.Engine{}}
	reqs := goldenRequests(t)
	got := map[string][]map[string]systemone.Answer{}
	for name, b := range backends {
		for _, req := range reqs {
			req.Model = name
			resp, err := b.Ask(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			got[name] = append(got[name], resp.Answers)
		}
	}
	if *update {
		b, _ := json.MarshalIndent(got, "", " ")
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]map[string]systemone.Answer
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for name := range backends {
		if len(want[name]) != len(reqs) {
			t.Fatalf("%s: %d golden answers for %d requests", name, len(want[name]), len(reqs))
		}
		for i, answers := range got[name] {
			for q, a := range answers {
				if msg := differ(a, want[name][i][q]); msg != "" {
					t.Errorf("%s, request %d, question %s: %s", name, i, q, msg)
				}
			}
		}
	}
}

// differ says how a differs from b beyond 1e-12, or "".
func differ(a, b systemone.Answer) string {
	near := func(x, y *float64) bool {
		return (x == nil) == (y == nil) && (x == nil || math.Abs(*x-*y) <= 1e-12)
	}
	switch {
	case a.Type != b.Type || a.Choice != b.Choice:
		return "type or choice " + string(a.Type) + " " + a.Choice + ", want " + string(b.Type) + " " + b.Choice
	case !near(a.Noul, b.Noul) || !near(a.Score, b.Score) || !near(a.Confidence, b.Confidence):
		return "noul, score or confidence moved"
	case len(a.Probabilities) != len(b.Probabilities):
		return "other options"
	}
	for k, p := range a.Probabilities {
		q, ok := b.Probabilities[k]
		if !ok || math.Abs(p-q) > 1e-12 {
			return "probability of " + k + " moved"
		}
	}
	return ""
}
