package chatadapter

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func tops(pairs ...any) []tokenLogprob {
	var out []tokenLogprob
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, tokenLogprob{Token: pairs[i].(string), Logprob: math.Log(pairs[i+1].(float64))})
	}
	return out
}

func TestTokenLabel(t *testing.T) {
	for tok, want := range map[string]string{
		" A": "a", "A": "a", "a": "a", "A.": "a", "(A)": "a", "**A": "a", "A:": "a",
		" Yes": "yes", "YES": "yes", "\n7": "7", "Hello": "hello", "A B": "a b",
	} {
		if got := tokenLabel(tok); got != want {
			t.Errorf("tokenLabel(%q) = %q, want %q", tok, got, want)
		}
	}
}

func TestReadLogprobs(t *testing.T) {
	tests := []struct {
		name   string
		tops   []tokenLogprob
		labels []string
		want   []float64
		err    string
	}{
		{"variants summed", tops(" A", 0.5, "A", 0.2, "a.", 0.1, "B", 0.2), []string{"A", "B"}, []float64{0.8, 0.2}, ""},
		{"renormalised over labels", tops("A", 0.3, "The", 0.5, "B", 0.1, "C", 0.1), []string{"A", "B", "C"}, []float64{0.6, 0.2, 0.2}, ""},
		// D and E are unlisted: unlisted mass .1 shared is .05 each, under the smallest listed .1.
		{"unlisted labels", tops("A", 0.6, "B", 0.2, "C", 0.1), []string{"A", "B", "C", "D", "E"}, []float64{0.6, 0.2, 0.1, 0.05, 0.05}, ""},
		// Unlisted mass .5 but no unlisted token can beat the smallest listed .01.
		{"capped by smallest listed", tops("A", 0.49, "x", 0.01), []string{"A", "B"}, []float64{0.49 / 0.5, 0.01 / 0.5}, ""},
		{"no label at all", tops("The", 0.9, "I", 0.1), []string{"A", "B"}, nil, "none of the labels"},
		{"noul", tops(" yes", 0.7, "No", 0.3), noulLabels, []float64{0.7, 0.3}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readLogprobs(tt.tops, tt.labels)
			checkDistribution(t, got, err, tt.want, tt.err)
		})
	}
}

func TestParseProbabilities(t *testing.T) {
	ab := []string{"A", "B"}
	tests := []struct {
		name      string
		in        string
		normalize bool
		want      []float64
		err       string
	}{
		{"exact", `{"A": 0.25, "B": 0.75}`, false, []float64{0.25, 0.75}, ""},
		{"order free", `{"B": 0.75, "A": 0.25}`, true, []float64{0.25, 0.75}, ""},
		{"normalised", `{"A": 1, "B": 3}`, true, []float64{0.25, 0.75}, ""},
		{"close enough without normalising", `{"A": 0.333, "B": 0.666}`, false, []float64{0.333 / 0.999, 0.666 / 0.999}, ""},
		{"code fence", "```json\n{\"A\": 0.5, \"B\": 0.5}\n```", true, []float64{0.5, 0.5}, ""},
		{"bad sum without normalising", `{"A": 0.5, "B": 0.7}`, false, nil, "sum to 1.2"},
		{"missing key", `{"A": 1}`, true, nil, `"B" is missing`},
		{"unknown key", `{"A": 0.5, "B": 0.4, "C": 0.1}`, true, nil, `unknown key "C"`},
		{"duplicate key", `{"A": 0.5, "A": 0.5, "B": 0}`, true, nil, "twice"},
		{"negative", `{"A": -0.5, "B": 1.5}`, true, nil, "from 0 to 1"},
		{"string value", `{"A": "0.5", "B": 0.5}`, true, nil, "not a number"},
		{"all zero", `{"A": 0, "B": 0}`, true, nil, "all probabilities are 0"},
		{"not an object", `[0.5, 0.5]`, true, nil, "not a JSON object"},
		{"prose", `I think A.`, true, nil, "not a JSON object"},
		{"trailing text", `{"A": 0.5, "B": 0.5} done`, true, nil, "after the JSON object"},
		{"truncated", `{"A": 0.5, "B": 0.`, true, nil, "not valid JSON"},
		{"empty", ``, true, nil, "empty"},
		{"huge number", `{"A": 1e999, "B": 1}`, true, nil, "from 0 to 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProbabilities(tt.in, ab, tt.normalize)
			checkDistribution(t, got, err, tt.want, tt.err)
		})
	}
}

// FuzzParseProbabilities feeds arbitrary model output to the parser: it
// must never panic, and whatever it accepts is a distribution over the
// labels.
func FuzzParseProbabilities(f *testing.F) {
	for _, s := range []string{
		`{"A": 0.25, "B": 0.5, "C": 0.25}`, `{"A": 1, "B": 2, "C": 3}`, "```json\n{\"A\":1,\"B\":0,\"C\":0}\n```",
		`{"A": -1}`, `{"A": 1e309, "B": 0, "C": 0}`, `[]`, `{"A": {"x": 1}}`, `{"A":0.1,"B":0.1,"C":0.8}{}`, `nul`,
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	labels := []string{"A", "B", "C"}
	f.Fuzz(func(t *testing.T, s string, normalize bool) {
		p, err := parseProbabilities(s, labels, normalize)
		if err != nil {
			var m *malformedError
			if !errors.As(err, &m) {
				t.Fatalf("error %v is not a malformed-reply error", err)
			}
			return
		}
		if len(p) != len(labels) {
			t.Fatalf("%d probabilities for %d labels", len(p), len(labels))
		}
		sum := 0.0
		for _, x := range p {
			if math.IsNaN(x) || x < 0 || x > 1 {
				t.Fatalf("probability %v from %q", x, s)
			}
			sum += x
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("sum %v from %q", sum, s)
		}
	})
}

// checkDistribution holds a readout's result to a table row: a malformed
// error mentioning wantErr, or no error and probabilities equal to want.
func checkDistribution(t *testing.T, got []float64, err error, want []float64, wantErr string) {
	t.Helper()
	if wantErr != "" {
		var m *malformedError
		if !errors.As(err, &m) || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want malformed %q", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
