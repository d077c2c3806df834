package evalset

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/judgeworks/shared/systemone"
)

// Coherence: the laws of probability a model's answers should obey
// whatever the right answer is. Each law is a metamorphic relation: it
// asks a question of the embedded set (laws/cases.jsonl) and one or more
// transformed versions of it, and checks that the answers relate as the
// law says. None needs a label, so the set measures coherence, not
// accuracy. See docs/eval.md, "Coherence".

//go:embed laws/cases.jsonl
var lawCases []byte

// Tolerance is how far two probabilities a law says are equal may lie
// apart and still pass: language models read probabilities out of a
// sampling distribution that moves a little with any change of prompt.
const Tolerance = 0.05

// The six dimensions, in the order reports list them.
const (
	DimRepresentation = "representation"
	DimMeasure        = "measure"
	DimLogic          = "logic"
	DimJoint          = "joint"
	DimBatch          = "batch"
	DimChoiceSet      = "choice_set"
)

var dimensions = []string{DimRepresentation, DimMeasure, DimLogic, DimJoint, DimBatch, DimChoiceSet}

// lawCase is one line of the set: a state, a question about it and, for
// noul questions, its negations and compounds written in English.
type lawCase struct {
	State    json.RawMessage    `json:"state"`
	Question systemone.Question `json:"question"`
	// Negations ask the noul question's opposite in natural words, each
	// a wording whose positive form is the question itself.
	Negations []string `json:"negations,omitempty"`
	// Either and Neither are a disjunction and its negation ("… or …",
	// "neither … nor …").
	Either  string `json:"either,omitempty"`
	Neither string `json:"neither,omitempty"`
	// Other is a second yes/no question about the state, for the laws
	// of two questions and their compounds.
	Other string `json:"other,omitempty"`
	// siblings are the other questions of the set about the same state.
	siblings []systemone.Question
}

// asker asks one request of the measured model: the questions about state,
// answered under the same names.
type asker func(ctx context.Context, state json.RawMessage, qs map[string]systemone.Question) (map[string]systemone.Answer, error)

// law is one metamorphic relation. check asks what it needs through ask
// and reports whether the relation held; applies says whether the law can
// be built from a case at all (a choice law on a noul question cannot).
// A law with an index (score levels) is checked once per index.
type law struct {
	name, dimension string
	instances       func(c lawCase) int
	check           func(ctx context.Context, ask asker, c lawCase, i int) (bool, error)
}

// LawResult is the pass count of one law.
type LawResult struct {
	Law       string  `json:"law"`
	Dimension string  `json:"dimension"`
	N         int     `json:"n"`
	Passed    int     `json:"passed"`
	Rate      float64 `json:"rate"`
}

// CoherenceReport is the result of running every law on the set.
type CoherenceReport struct {
	Laws []LawResult `json:"laws"`
	// Dimensions is the mean pass rate of each dimension's laws; Overall
	// the mean over the dimensions, each law and dimension weighing the
	// same whatever its number of instances.
	Dimensions map[string]float64 `json:"dimensions"`
	Overall    float64            `json:"overall"`
	Tolerance  float64            `json:"tolerance"`
}

func readLawCases(data []byte) ([]lawCase, error) {
	var cases []lawCase
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var c lawCase
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, fmt.Errorf("law case %d: %w", n, err)
		}
		req := systemone.Request{Model: "laws", State: c.State, Questions: map[string]systemone.Question{"q": c.Question}}
		if err := req.Validate(); err != nil {
			return nil, fmt.Errorf("law case %d: %w", n, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for i := range cases {
		for j := range cases {
			if i != j && bytes.Equal(cases[i].State, cases[j].State) {
				cases[i].siblings = append(cases[i].siblings, cases[j].Question)
			}
		}
	}
	return cases, nil
}

// Coherence runs every law on the embedded set with model through b, at
// most parallel instances at a time.
func Coherence(ctx context.Context, b systemone.Backend, model string, parallel int) (CoherenceReport, error) {
	cases, err := readLawCases(lawCases)
	if err != nil {
		return CoherenceReport{}, err
	}
	return runLaws(ctx, b, model, cases, parallel)
}

func runLaws(ctx context.Context, b systemone.Backend, model string, cases []lawCase, parallel int) (CoherenceReport, error) {
	ask := func(ctx context.Context, state json.RawMessage, qs map[string]systemone.Question) (map[string]systemone.Answer, error) {
		resp, err := b.Ask(ctx, systemone.Request{Model: model, State: state, Questions: qs})
		if err != nil {
			return nil, err
		}
		return resp.Answers, nil
	}
	type job struct{ law, c, i int }
	var jobs []job
	for l, lw := range laws {
		for c := range cases {
			for i := range lw.instances(cases[c]) {
				jobs = append(jobs, job{l, c, i})
			}
		}
	}
	passed := make([]bool, len(jobs))
	err := inParallel(ctx, len(jobs), parallel, func(ctx context.Context, k int) error {
		j := jobs[k]
		var err error
		if passed[k], err = laws[j.law].check(ctx, ask, cases[j.c], j.i); err != nil {
			return fmt.Errorf("law %s, case %d: %w", laws[j.law].name, j.c+1, err)
		}
		return nil
	})
	if err != nil {
		return CoherenceReport{}, err
	}
	r := CoherenceReport{Dimensions: map[string]float64{}, Tolerance: Tolerance}
	for l, lw := range laws {
		res := LawResult{Law: lw.name, Dimension: lw.dimension}
		for k, j := range jobs {
			if j.law == l {
				res.N++
				if passed[k] {
					res.Passed++
				}
			}
		}
		if res.N > 0 {
			res.Rate = float64(res.Passed) / float64(res.N)
		}
		r.Laws = append(r.Laws, res)
	}
	for _, d := range dimensions {
		sum, n := 0.0, 0
		for _, res := range r.Laws {
			if res.Dimension == d && res.N > 0 {
				sum += res.Rate
				n++
			}
		}
		if n > 0 {
			r.Dimensions[d] = sum / float64(n)
			r.Overall += r.Dimensions[d] / float64(len(dimensions))
		}
	}
	return r, nil
}

// Print writes the report: one row per law, then one per dimension.
func (r CoherenceReport) Print(w io.Writer) error {
	fmt.Fprintf(w, "coherence %.1f (pass rates in %%, tolerance %.2f)\n", 100*r.Overall, r.Tolerance)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "dimension\tlaw\tn\tpassed\trate")
	for _, d := range dimensions {
		for _, res := range r.Laws {
			if res.Dimension == d {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f\n", d, res.Law, res.N, res.Passed, 100*res.Rate)
			}
		}
	}
	for _, d := range dimensions {
		fmt.Fprintf(tw, "%s\t(all)\t\t\t%.1f\n", d, 100*r.Dimensions[d])
	}
	return tw.Flush()
}

// probs asks q alone about the case's state and returns one probability
// per outcome (noul: yes, no; choice: q's options in order; score: levels).
func probs(ctx context.Context, ask asker, state json.RawMessage, q systemone.Question) ([]float64, error) {
	ans, err := ask(ctx, state, map[string]systemone.Question{"q": q})
	if err != nil {
		return nil, err
	}
	a, ok := ans["q"]
	if !ok {
		return nil, errors.New("question left unanswered")
	}
	if a.Type != q.Type {
		return nil, fmt.Errorf("a %s question answered as %s", q.Type, a.Type)
	}
	return outcomes(q, a)
}

// within reports whether every a[i] lies within Tolerance of b[i].
func within(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > Tolerance {
			return false
		}
	}
	return true
}

func one(c lawCase, t systemone.QuestionType) int {
	if c.Question.Type == t {
		return 1
	}
	return 0
}

// withOptions is q with opts as its options.
func withOptions(q systemone.Question, opts []systemone.Option) systemone.Question {
	q.Options = opts
	return q
}

// sameAfter asks q and q2 and checks that q2's probabilities, read in
// q's option order through index (index[i] is the position in q2 of what
// q's outcome i became), equal q's.
func sameAfter(ctx context.Context, ask asker, c lawCase, q2 systemone.Question, index []int) (bool, error) {
	p, err := probs(ctx, ask, c.State, c.Question)
	if err != nil {
		return false, err
	}
	p2, err := probs(ctx, ask, c.State, q2)
	if err != nil {
		return false, err
	}
	got := make([]float64, len(index))
	for i, j := range index {
		got[i] = p2[j]
	}
	return within(p, got), nil
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// instructionText is the question's instructions as plain text.
func instructionText(q systemone.Question) string {
	return strings.TrimSpace(systemone.ContentText(q.Instructions))
}

func instructions(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// noulAbout is a noul question with the given instructions, and, when
// base has meanings of yes and no, those meanings swapped when negated
// (the opposite question's yes is the base question's no).
func noulAbout(base systemone.Question, text string, negated bool) systemone.Question {
	q := systemone.Question{Type: systemone.TypeNoul, Instructions: instructions(text)}
	if base.Noul != nil {
		n := *base.Noul
		if negated {
			n.True, n.False = n.False, n.True
		}
		q.Noul = &n
	}
	return q
}

// complementary asks two noul questions and checks that their yes
// probabilities sum to one.
func complementary(ctx context.Context, ask asker, state json.RawMessage, a, b systemone.Question) (bool, error) {
	pa, err := probs(ctx, ask, state, a)
	if err != nil {
		return false, err
	}
	pb, err := probs(ctx, ask, state, b)
	if err != nil {
		return false, err
	}
	return math.Abs(pa[0]+pb[0]-1) <= Tolerance, nil
}

// scale names a score question's levels in words, lowest first, quoted.
func scale(q systemone.Question) string {
	quoted := make([]string, len(q.Levels))
	for i, l := range q.Levels {
		quoted[i] = strconv.Quote(systemone.ContentText(l))
	}
	return instructionText(q) + " On the scale " + strings.Join(quoted, ", ") + " (lowest first), is it "
}

// atLeast and atMost are the noul questions "level k or higher" and "at
// most level k" on q's scale.
func atLeast(q systemone.Question, k int) systemone.Question {
	return noulAbout(systemone.Question{}, scale(q)+strconv.Quote(systemone.ContentText(q.Levels[k]))+" or higher?", false)
}

func atMost(q systemone.Question, k int) systemone.Question {
	return noulAbout(systemone.Question{}, scale(q)+"at most "+strconv.Quote(systemone.ContentText(q.Levels[k]))+"?", false)
}

// optionTexts is what each option says: its description, else its name.
func optionTexts(opts []systemone.Option) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = strings.TrimSpace(systemone.ContentText(o.Description))
		if out[i] == "" || string(bytes.TrimSpace(o.Description)) == "null" {
			out[i] = o.Name
		}
	}
	return out
}

// laws are the project's metamorphic relations, by dimension.
var laws = []law{
	// Representation: what an option is called and where it is listed
	// carry no meaning once it has a description.
	{name: "rename_option", dimension: DimRepresentation,
		instances: func(c lawCase) int { return one(c, systemone.TypeChoice) },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			opts := append([]systemone.Option(nil), c.Question.Options...)
			opts[0].Name = "zz_" + opts[0].Name + "_renamed"
			return sameAfter(ctx, ask, c, withOptions(c.Question, opts), identity(len(opts)))
		}},
	{name: "clone_ids", dimension: DimRepresentation,
		instances: func(c lawCase) int { return one(c, systemone.TypeChoice) },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			opts := append([]systemone.Option(nil), c.Question.Options...)
			for i := range opts {
				opts[i].Name = "option_" + strconv.Itoa(len(opts)-i)
			}
			return sameAfter(ctx, ask, c, withOptions(c.Question, opts), identity(len(opts)))
		}},
	{name: "swap_descriptions", dimension: DimRepresentation,
		instances: func(c lawCase) int { return one(c, systemone.TypeChoice) },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			opts := append([]systemone.Option(nil), c.Question.Options...)
			opts[0].Description, opts[1].Description = opts[1].Description, opts[0].Description
			index := identity(len(opts))
			index[0], index[1] = 1, 0
			return sameAfter(ctx, ask, c, withOptions(c.Question, opts), index)
		}},
	{name: "reorder_options", dimension: DimRepresentation,
		instances: func(c lawCase) int { return one(c, systemone.TypeChoice) },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			n := len(c.Question.Options)
			opts := make([]systemone.Option, n)
			index := make([]int, n)
			for i, o := range c.Question.Options {
				opts[n-1-i], index[i] = o, n-1-i
			}
			return sameAfter(ctx, ask, c, withOptions(c.Question, opts), index)
		}},

	// Measure: probability adds up over events that are the same, that
	// exclude each other or that make up a whole.
	{name: "duplicate_option", dimension: DimMeasure,
		instances: func(c lawCase) int { return one(c, systemone.TypeChoice) },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			p, err := probs(ctx, ask, c.State, c.Question)
			if err != nil {
				return false, err
			}
			dup := c.Question.Options[0]
			dup.Name = "also_" + dup.Name
			q2 := withOptions(c.Question, append(append([]systemone.Option(nil), c.Question.Options...), dup))
			p2, err := probs(ctx, ask, c.State, q2)
			if err != nil {
				return false, err
			}
			n := len(p)
			merged := append([]float64{p2[0] + p2[n]}, p2[1:n]...)
			return within(p, merged) && math.Abs(p2[0]-p2[n]) <= Tolerance, nil
		}},
	{name: "choice_complement", dimension: DimMeasure,
		instances: func(c lawCase) int { return one(c, systemone.TypeChoice) },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			texts := optionTexts(c.Question.Options)
			some := strings.Join(texts[:len(texts)/2], "; ")
			ins := instructionText(c.Question)
			return complementary(ctx, ask, c.State,
				noulAbout(systemone.Question{}, ins+" Is it one of these: "+some+"?", false),
				noulAbout(systemone.Question{}, ins+" Is it none of these: "+some+"?", false))
		}},
	{name: "score_at_least", dimension: DimMeasure,
		instances: func(c lawCase) int { return one(c, systemone.TypeScore) * (len(c.Question.Levels) - 1) },
		check: func(ctx context.Context, ask asker, c lawCase, i int) (bool, error) {
			k := i + 1
			p, err := probs(ctx, ask, c.State, c.Question)
			if err != nil {
				return false, err
			}
			pk, err := probs(ctx, ask, c.State, atLeast(c.Question, k))
			if err != nil {
				return false, err
			}
			sum := 0.0
			for _, x := range p[k:] {
				sum += x
			}
			return math.Abs(pk[0]-sum) <= Tolerance, nil
		}},
	{name: "score_at_most", dimension: DimMeasure,
		instances: func(c lawCase) int { return one(c, systemone.TypeScore) * (len(c.Question.Levels) - 1) },
		check: func(ctx context.Context, ask asker, c lawCase, k int) (bool, error) {
			p, err := probs(ctx, ask, c.State, c.Question)
			if err != nil {
				return false, err
			}
			pk, err := probs(ctx, ask, c.State, atMost(c.Question, k))
			if err != nil {
				return false, err
			}
			sum := 0.0
			for _, x := range p[:k+1] {
				sum += x
			}
			return math.Abs(pk[0]-sum) <= Tolerance, nil
		}},
	{name: "score_complement", dimension: DimMeasure,
		instances: func(c lawCase) int { return one(c, systemone.TypeScore) * (len(c.Question.Levels) - 1) },
		check: func(ctx context.Context, ask asker, c lawCase, i int) (bool, error) {
			return complementary(ctx, ask, c.State, atLeast(c.Question, i+1), atMost(c.Question, i))
		}},

	// Logic: a question and its negation, however it is worded, and the
	// same question asked as another type.
	{name: "negation_wrapper", dimension: DimLogic,
		instances: func(c lawCase) int { return one(c, systemone.TypeNoul) },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			neg := noulAbout(c.Question, "Is it not the case that the answer to this question is yes: "+instructionText(c.Question), true)
			return complementary(ctx, ask, c.State, c.Question, neg)
		}},
	{name: "negation_templated", dimension: DimLogic,
		instances: func(c lawCase) int { return one(c, systemone.TypeNoul) * len(negationTemplates) },
		check: func(ctx context.Context, ask asker, c lawCase, i int) (bool, error) {
			neg := noulAbout(c.Question, negationTemplates[i]+instructionText(c.Question), true)
			return complementaryBeside(ctx, ask, c.State, c.Question, neg)
		}},
	{name: "negation_natural", dimension: DimLogic,
		instances: func(c lawCase) int { return one(c, systemone.TypeNoul) * len(c.Negations) },
		check: func(ctx context.Context, ask asker, c lawCase, i int) (bool, error) {
			return complementaryBeside(ctx, ask, c.State, c.Question, noulAbout(c.Question, c.Negations[i], true))
		}},
	{name: "negation_compound", dimension: DimLogic,
		instances: func(c lawCase) int { return one(c, systemone.TypeNoul) * boolInt(c.Either != "" && c.Neither != "") },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			return complementary(ctx, ask, c.State,
				noulAbout(systemone.Question{}, c.Either, false), noulAbout(systemone.Question{}, c.Neither, false))
		}},
	{name: "noul_as_choice", dimension: DimLogic,
		instances: func(c lawCase) int { return one(c, systemone.TypeNoul) * boolInt(c.Question.Noul == nil) },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			p, err := probs(ctx, ask, c.State, c.Question)
			if err != nil {
				return false, err
			}
			null := json.RawMessage("null")
			q2 := systemone.Question{Type: systemone.TypeChoice, Instructions: c.Question.Instructions,
				Options: []systemone.Option{{Name: "yes", Description: null}, {Name: "no", Description: null}}}
			p2, err := probs(ctx, ask, c.State, q2)
			if err != nil {
				return false, err
			}
			return within(p, p2), nil
		}},
	{name: "noul_as_score", dimension: DimLogic,
		instances: func(c lawCase) int { return one(c, systemone.TypeNoul) * boolInt(c.Question.Noul == nil) },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			p, err := probs(ctx, ask, c.State, c.Question)
			if err != nil {
				return false, err
			}
			q2 := systemone.Question{Type: systemone.TypeScore, Instructions: c.Question.Instructions, Levels: systemone.Texts("no", "yes")}
			p2, err := probs(ctx, ask, c.State, q2)
			if err != nil {
				return false, err
			}
			return within(p, []float64{p2[1], p2[0]}), nil
		}},

	// Joint: two yes/no questions about one state and their compounds,
	// asked together.
	{name: "compound_negation", dimension: DimLogic,
		instances: func(c lawCase) int { return pairOf(c) * len(bothWordings) },
		check: func(ctx context.Context, ask asker, c lawCase, i int) (bool, error) {
			a, b := instructionText(c.Question), c.Other
			p, err := askNouls(ctx, ask, c.State, a, b, bothWordings[i](a, b), notBothWordings[i](a, b))
			if err != nil {
				return false, err
			}
			return math.Abs(p[2]+p[3]-1) <= Tolerance, nil
		}},
	{name: "inclusion_exclusion", dimension: DimJoint,
		instances: func(c lawCase) int { return pairOf(c) * len(bothWordings) },
		check: func(ctx context.Context, ask asker, c lawCase, i int) (bool, error) {
			a, b := instructionText(c.Question), c.Other
			p, err := askNouls(ctx, ask, c.State, a, b, bothWordings[i](a, b), someWordings[i](a, b))
			if err != nil {
				return false, err
			}
			return math.Abs(p[2]+p[3]-p[0]-p[1]) <= Tolerance, nil
		}},
	{name: "frechet_bounds", dimension: DimJoint,
		instances: func(c lawCase) int { return pairOf(c) * len(bothWordings) },
		check: func(ctx context.Context, ask asker, c lawCase, i int) (bool, error) {
			a, b := instructionText(c.Question), c.Other
			p, err := askNouls(ctx, ask, c.State, a, b, bothWordings[i](a, b), someWordings[i](a, b))
			if err != nil {
				return false, err
			}
			lo, hi := math.Max(0, p[0]+p[1]-1), math.Min(p[0], p[1])
			return p[2] >= lo-Tolerance && p[2] <= hi+Tolerance &&
				p[3] >= math.Max(p[0], p[1])-Tolerance && p[3] <= math.Min(1, p[0]+p[1])+Tolerance, nil
		}},
	{name: "pair_marginals", dimension: DimJoint,
		instances: func(c lawCase) int { return pairOf(c) * len(pairOptions) },
		check: func(ctx context.Context, ask asker, c lawCase, i int) (bool, error) {
			a, b := instructionText(c.Question), c.Other
			pair := systemone.Question{Type: systemone.TypeChoice,
				Instructions: instructions("Consider these two questions about the text: " + a + " " + b + " Which answers are right?"),
				Options:      pairOptions[i]}
			ans, err := ask(ctx, c.State, map[string]systemone.Question{"a": noulAbout(systemone.Question{}, a, false),
				"b": noulAbout(systemone.Question{}, b, false), "pair": pair})
			if err != nil {
				return false, err
			}
			pa, pb, err := nouls(ans, "a", "b")
			if err != nil {
				return false, err
			}
			pp, err := outcomes(pair, ans["pair"])
			if err != nil {
				return false, err
			}
			// The options are listed both, first only, second only, neither.
			return math.Abs(pp[0]+pp[1]-pa) <= Tolerance && math.Abs(pp[0]+pp[2]-pb) <= Tolerance, nil
		}},

	// Measure, across questions: a yes/no question about an option or a
	// level of a choice or score asked in the same request.
	{name: "choice_indicator", dimension: DimMeasure,
		instances: func(c lawCase) int { return one(c, systemone.TypeChoice) * len(c.Question.Options) * len(isWordings) },
		check: func(ctx context.Context, ask asker, c lawCase, i int) (bool, error) {
			o, w := i/len(isWordings), i%len(isWordings)
			return outcomeBeside(ctx, ask, c, isWordings[w](instructionText(c.Question), optionTexts(c.Question.Options)[o], c.Question.Options[o].Name), []int{o}, false)
		}},
	{name: "choice_complement_other", dimension: DimMeasure,
		instances: func(c lawCase) int {
			return one(c, systemone.TypeChoice) * len(c.Question.Options) * len(otherWordings)
		},
		check: func(ctx context.Context, ask asker, c lawCase, i int) (bool, error) {
			o, w := i/len(otherWordings), i%len(otherWordings)
			return outcomeBeside(ctx, ask, c, otherWordings[w](instructionText(c.Question), optionTexts(c.Question.Options)[o], c.Question.Options[o].Name), []int{o}, true)
		}},
	{name: "score_complement_other", dimension: DimMeasure,
		instances: func(c lawCase) int { return one(c, systemone.TypeScore) * len(c.Question.Levels) * len(otherWordings) },
		check: func(ctx context.Context, ask asker, c lawCase, i int) (bool, error) {
			k, w := i/len(otherWordings), i%len(otherWordings)
			// A level is named by its text, quoted: unquoted, a level
			// such as "not urgent" would read as a negation.
			l := systemone.ContentText(c.Question.Levels[k])
			return outcomeBeside(ctx, ask, c, otherWordings[w](instructionText(c.Question), l, strconv.Quote(l)), []int{k}, true)
		}},
	{name: "score_cumulative_other", dimension: DimMeasure,
		instances: func(c lawCase) int {
			return one(c, systemone.TypeScore) * (len(c.Question.Levels) - 1) * len(tailWordings)
		},
		check: func(ctx context.Context, ask asker, c lawCase, i int) (bool, error) {
			k, w := i/len(tailWordings), i%len(tailWordings)
			n := len(c.Question.Levels)
			ins := instructionText(c.Question)
			if w%2 == 0 {
				// Level k+1 or higher: the upper tail.
				return outcomeBeside(ctx, ask, c, tailWordings[w](ins, systemone.ContentText(c.Question.Levels[k+1])), rangeOf(k+1, n-1), false)
			}
			// At most level k: the lower tail.
			return outcomeBeside(ctx, ask, c, tailWordings[w](ins, systemone.ContentText(c.Question.Levels[k])), rangeOf(0, k), false)
		}},

	// Batch: a question's answer does not depend on what else is asked.
	{name: "batch_independence", dimension: DimBatch,
		instances: func(c lawCase) int { return boolInt(len(c.siblings) > 0) },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			p, err := probs(ctx, ask, c.State, c.Question)
			if err != nil {
				return false, err
			}
			qs := map[string]systemone.Question{"target": c.Question}
			for i, s := range c.siblings {
				qs["other_"+strconv.Itoa(i)] = s
			}
			ans, err := ask(ctx, c.State, qs)
			if err != nil {
				return false, err
			}
			p2, err := outcomes(c.Question, ans["target"])
			if err != nil {
				return false, err
			}
			return within(p, p2), nil
		}},

	// Choice set: the odds between two options do not depend on which
	// other options are offered.
	{name: "remove_option", dimension: DimChoiceSet,
		instances: func(c lawCase) int { return one(c, systemone.TypeChoice) * boolInt(len(c.Question.Options) > 2) },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			p, err := probs(ctx, ask, c.State, c.Question)
			if err != nil {
				return false, err
			}
			n := len(p)
			p2, err := probs(ctx, ask, c.State, withOptions(c.Question, c.Question.Options[:n-1]))
			if err != nil {
				return false, err
			}
			return within(renormalised(p[:n-1]), p2), nil
		}},
	{name: "add_option", dimension: DimChoiceSet,
		instances: func(c lawCase) int { return one(c, systemone.TypeChoice) },
		check: func(ctx context.Context, ask asker, c lawCase, _ int) (bool, error) {
			p, err := probs(ctx, ask, c.State, c.Question)
			if err != nil {
				return false, err
			}
			extra := systemone.Option{Name: "other", Description: instructions("something else not listed here")}
			q2 := withOptions(c.Question, append(append([]systemone.Option(nil), c.Question.Options...), extra))
			p2, err := probs(ctx, ask, c.State, q2)
			if err != nil {
				return false, err
			}
			return within(p, renormalised(p2[:len(p)])), nil
		}},
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// renormalised is p scaled to sum to 1 (unchanged when it sums to 0).
func renormalised(p []float64) []float64 {
	sum := 0.0
	for _, x := range p {
		sum += x
	}
	out := append([]float64(nil), p...)
	if sum > 0 {
		for i := range out {
			out[i] /= sum
		}
	}
	return out
}

// negationTemplates wrap a yes/no question verbatim in its negation.
var negationTemplates = []string{
	"Is it false that the answer to the following question is yes: ",
	"Is the answer to the following question no: ",
	"Is it not true that the answer to this question is yes: ",
}

// bothWordings, someWordings and notBothWordings ask, in one wording
// each, whether both of two questions hold, whether at least one does,
// and whether not both do.
var (
	bothWordings = []func(a, b string) string{
		func(a, b string) string { return "Is the answer yes to both of these questions: " + a + " " + b },
		func(a, b string) string {
			return "Is the answer yes to both " + strconv.Quote(a) + " and " + strconv.Quote(b) + "?"
		},
		func(a, b string) string { return "Are both of these true: " + a + " " + b },
	}
	someWordings = []func(a, b string) string{
		func(a, b string) string {
			return "Is the answer yes to at least one of these questions: " + a + " " + b
		},
		func(a, b string) string {
			return "Is the answer yes to either " + strconv.Quote(a) + " or " + strconv.Quote(b) + "?"
		},
		func(a, b string) string { return "Is at least one of these true: " + a + " " + b },
	}
	notBothWordings = []func(a, b string) string{
		func(a, b string) string { return "Is the answer no to at least one of these questions: " + a + " " + b },
		func(a, b string) string {
			return "Is it not the case that the answer is yes to both " + strconv.Quote(a) + " and " + strconv.Quote(b) + "?"
		},
		func(a, b string) string { return "Is it false that both of these are true: " + a + " " + b },
	}
)

// pairOptions are the options of a four-way choice over two questions,
// in two wordings, listed both, first only, second only, neither.
var pairOptions = [][]systemone.Option{
	{{Name: "both"}, {Name: "only the first"}, {Name: "only the second"}, {Name: "neither"}},
	{{Name: "a", Description: instructions("yes, yes")}, {Name: "b", Description: instructions("yes, no")},
		{Name: "c", Description: instructions("no, yes")}, {Name: "d", Description: instructions("no to both")}},
}

// isWordings and otherWordings ask whether the answer to question q is
// an outcome (given by its text and its name), and whether it is
// anything else; tailWordings whether a score is at a level or above
// (even places) or at a level or below (odd).
var (
	isWordings = []func(q, text, name string) string{
		func(q, text, _ string) string { return q + " Is the answer " + strconv.Quote(text) + "?" },
		func(q, _, name string) string { return q + " Is it " + name + "?" },
		func(q, text, _ string) string {
			return "Is the answer to " + strconv.Quote(q) + " " + strconv.Quote(text) + "?"
		},
	}
	otherWordings = []func(q, text, name string) string{
		func(q, text, _ string) string {
			return q + " Is the answer anything other than " + strconv.Quote(text) + "?"
		},
		func(q, _, name string) string { return q + " Is it something other than " + name + "?" },
		func(q, text, _ string) string { return q + " Is the answer not " + strconv.Quote(text) + "?" },
	}
	tailWordings = []func(q, level string) string{
		func(q, l string) string { return q + " Is it " + strconv.Quote(l) + " or higher?" },
		func(q, l string) string { return q + " Is the answer at most " + strconv.Quote(l) + "?" },
		func(q, l string) string { return q + " Is the answer at least " + strconv.Quote(l) + "?" },
		func(q, l string) string { return q + " Is the answer " + strconv.Quote(l) + " or below?" },
	}
)

// pairOf is 1 for a noul case with a second question about its state.
func pairOf(c lawCase) int { return one(c, systemone.TypeNoul) * boolInt(c.Other != "") }

// askNouls asks the yes/no questions texts in one request about state
// and returns the probability of yes of each, in order.
func askNouls(ctx context.Context, ask asker, state json.RawMessage, texts ...string) ([]float64, error) {
	qs := make(map[string]systemone.Question, len(texts))
	names := make([]string, len(texts))
	for i, t := range texts {
		names[i] = "q" + strconv.Itoa(i)
		qs[names[i]] = noulAbout(systemone.Question{}, t, false)
	}
	ans, err := ask(ctx, state, qs)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(texts))
	for i, n := range names {
		a, ok := ans[n]
		if !ok || a.Noul == nil {
			return nil, fmt.Errorf("%s: no yes/no answer", n)
		}
		out[i] = *a.Noul
	}
	return out, nil
}

// nouls is the probability of yes of the answers named a and b.
func nouls(ans map[string]systemone.Answer, a, b string) (float64, float64, error) {
	x, y := ans[a], ans[b]
	if x.Noul == nil || y.Noul == nil {
		return 0, 0, errors.New("a yes/no question without a yes/no answer")
	}
	return *x.Noul, *y.Noul, nil
}

// complementaryBeside asks two noul questions in one request and checks
// that their yes probabilities sum to one.
func complementaryBeside(ctx context.Context, ask asker, state json.RawMessage, a, b systemone.Question) (bool, error) {
	ans, err := ask(ctx, state, map[string]systemone.Question{"a": a, "b": b})
	if err != nil {
		return false, err
	}
	pa, pb, err := nouls(ans, "a", "b")
	if err != nil {
		return false, err
	}
	return math.Abs(pa+pb-1) <= Tolerance, nil
}

// outcomeBeside asks the case's question and the yes/no question text
// about it in one request, and checks that the yes/no answer is the sum
// of the probabilities of the outcomes at (or one minus it, with
// complement).
func outcomeBeside(ctx context.Context, ask asker, c lawCase, text string, at []int, complement bool) (bool, error) {
	ans, err := ask(ctx, c.State, map[string]systemone.Question{"src": c.Question, "about": noulAbout(systemone.Question{}, text, false)})
	if err != nil {
		return false, err
	}
	p, err := outcomes(c.Question, ans["src"])
	if err != nil {
		return false, err
	}
	a := ans["about"]
	if a.Noul == nil {
		return false, errors.New("a yes/no question without a yes/no answer")
	}
	want := 0.0
	for _, i := range at {
		want += p[i]
	}
	if complement {
		want = 1 - want
	}
	return math.Abs(*a.Noul-want) <= Tolerance, nil
}

func rangeOf(lo, hi int) []int {
	out := make([]int, 0, hi-lo+1)
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

// lawCaseCount is the number of questions of the embedded set.
func lawCaseCount() int {
	cases, _ := readLawCases(lawCases)
	return len(cases)
}
