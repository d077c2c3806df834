package evalset

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/systemone"
)

// questionTypes is the order in which reports list the types.
var questionTypes = []systemone.QuestionType{systemone.TypeChoice, systemone.TypeNoul, systemone.TypeScore}

// Metrics is how one model did on the items of one question type.
type Metrics struct {
	N int `json:"n"`
	// Accuracy is the share of items whose most probable outcome is the
	// label; Chance is the mean of 1/k (k outcomes) over the items, what a
	// uniform guess would score; Kappa is (Accuracy − Chance)/(1 − Chance),
	// 0 for guessing and 1 for always right.
	Accuracy float64 `json:"accuracy"`
	Chance   float64 `json:"chance"`
	Kappa    float64 `json:"kappa"`
	// ECE (10 bins, on the top probability), Brier (multi-class) and
	// LogLoss of the answers as the model gave them.
	ECE     float64 `json:"ece"`
	Brier   float64 `json:"brier"`
	LogLoss float64 `json:"log_loss"`
	// MAE (score only) is the mean |Σ i·pᵢ − label| in levels; MAEMiddle
	// is the same for always answering the middle, (k−1)/2.
	MAE       *float64 `json:"mae,omitempty"`
	MAEMiddle *float64 `json:"mae_middle,omitempty"`
	// AUC (noul only) is the probability that a random yes item gets a
	// higher noul than a random no item (ties count half).
	AUC *float64 `json:"auc,omitempty"`
	// LatencyP50 and LatencyP95 are per question (each item is asked as a
	// request of one question), in milliseconds.
	LatencyP50 float64 `json:"latency_p50_ms"`
	LatencyP95 float64 `json:"latency_p95_ms"`
	// CostPer1000 is the USD cost of 1,000 such decisions at the model's
	// price, from the usage the judge reports.
	CostPer1000 float64 `json:"cost_per_1000_usd"`
	// Temperature, ECEAfter and BrierAfter are set when a temperature was
	// fitted on another labelled file (--fit): the metrics of these
	// answers after scaling by it.
	Temperature *float64 `json:"temperature,omitempty"`
	ECEAfter    *float64 `json:"ece_after,omitempty"`
	BrierAfter  *float64 `json:"brier_after,omitempty"`
}

// Report is the result of one evaluation.
type Report struct {
	Model string `json:"model"`
	// Answered is the exact model name the responses gave.
	Answered string                             `json:"answered"`
	Data     string                             `json:"data"`
	FitData  string                             `json:"fit_data,omitempty"`
	Items    int                                `json:"items"`
	Types    map[systemone.QuestionType]Metrics `json:"types"`
	// Coherence is set with --coherence: the pass rates of the laws.
	Coherence *CoherenceReport `json:"coherence,omitempty"`
}

// outcome is one labelled item asked: the answer as one probability per
// outcome (goldIndex's order), its label, and what asking it took.
type outcome struct {
	qtype   systemone.QuestionType
	p       []float64
	gold    int
	latency time.Duration
	cost    float64
	model   string
}

// askAll asks every item of the labelled set with model, at most n at a
// time, one question per request. The first failure stops the run: metrics
// over the items that happened to succeed would be biased.
func askAll(ctx context.Context, b systemone.Backend, model string, items []labeled, n int) ([]outcome, error) {
	outs := make([]outcome, len(items))
	err := inParallel(ctx, len(items), n, func(ctx context.Context, i int) error {
		it := items[i]
		req := it.req
		req.Model = model
		q := req.Questions["q"]
		start := time.Now()
		resp, err := b.Ask(ctx, req)
		took := time.Since(start)
		if err == nil {
			outs[i] = outcome{qtype: q.Type, gold: it.gold, latency: took, cost: resp.Usage.Cost, model: resp.Model}
			outs[i].p, err = outcomes(q, resp.Answers["q"])
		}
		if err != nil {
			return fmt.Errorf("item on line %d: %w", it.line, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return outs, nil
}

// inParallel runs do for 0…n-1, at most p at a time. The first failure
// cancels the rest and is returned (not the cancellations it caused).
func inParallel(ctx context.Context, n, p int, do func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	sem := make(chan struct{}, max(p, 1))
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			if errs[i] = do(ctx, i); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return errors.Join(errs...)
}

// Evaluate asks every item of items with model through b and measures the
// answers per question type. With fit non-empty it first asks those items
// too and fits a temperature per type on them (calibrate.Fit), then
// reports the metrics of items after that scaling as well: an honest
// "after calibration" figure needs the fit and the measurement on
// different items.
func Evaluate(ctx context.Context, b systemone.Backend, model string, items, fit []labeled, parallel int) (Report, error) {
	r := Report{Model: model, Items: len(items), Types: map[systemone.QuestionType]Metrics{}}
	temps := map[systemone.QuestionType]float64{}
	if len(fit) > 0 {
		outs, err := askAll(ctx, b, model, fit, parallel)
		if err != nil {
			return r, fmt.Errorf("fit set: %w", err)
		}
		for qt, preds := range byType(outs) {
			if len(preds) < MinItems {
				continue
			}
			t, err := calibrate.Fit(calibrationItems(preds))
			if err != nil {
				return r, err
			}
			temps[qt] = t
		}
	}
	outs, err := askAll(ctx, b, model, items, parallel)
	if err != nil {
		return r, err
	}
	if len(outs) > 0 {
		r.Answered = outs[0].model
	}
	for qt, group := range byType(outs) {
		m, err := measure(group)
		if err != nil {
			return r, fmt.Errorf("%s: %w", qt, err)
		}
		if t, ok := temps[qt]; ok {
			after, err := calibrate.Measure(calibrationItems(group), t)
			if err != nil {
				return r, err
			}
			m.Temperature, m.ECEAfter, m.BrierAfter = &t, &after.ECE, &after.Brier
		}
		r.Types[qt] = m
	}
	return r, nil
}

func byType(outs []outcome) map[systemone.QuestionType][]outcome {
	m := map[systemone.QuestionType][]outcome{}
	for _, o := range outs {
		m[o.qtype] = append(m[o.qtype], o)
	}
	return m
}

// calibrationItems are outs as the calibrate package takes them.
func calibrationItems(outs []outcome) []calibrate.Item {
	items := make([]calibrate.Item, len(outs))
	for i, o := range outs {
		items[i] = calibrate.Item{P: o.p, Gold: o.gold}
	}
	return items
}

// measure computes the metrics of the outcomes of one question type.
func measure(outs []outcome) (Metrics, error) {
	base, err := calibrate.Measure(calibrationItems(outs), 1)
	if err != nil {
		return Metrics{}, err
	}
	m := Metrics{N: base.N, Accuracy: base.Accuracy, ECE: base.ECE, Brier: base.Brier, LogLoss: base.LogLoss}
	lat := make([]float64, len(outs))
	for i, o := range outs {
		m.Chance += 1 / float64(len(o.p))
		m.CostPer1000 += o.cost
		lat[i] = float64(o.latency) / float64(time.Millisecond)
	}
	n := float64(len(outs))
	m.Chance /= n
	m.CostPer1000 *= 1000 / n
	m.Kappa = (m.Accuracy - m.Chance) / (1 - m.Chance)
	m.LatencyP50, m.LatencyP95 = quantile(lat, 0.5), quantile(lat, 0.95)
	switch outs[0].qtype {
	case systemone.TypeScore:
		var mae, mid float64
		for _, o := range outs {
			expected := 0.0
			for i, p := range o.p {
				expected += float64(i) * p
			}
			mae += math.Abs(expected - float64(o.gold))
			mid += math.Abs(float64(len(o.p)-1)/2 - float64(o.gold))
		}
		mae, mid = mae/n, mid/n
		m.MAE, m.MAEMiddle = &mae, &mid
	case systemone.TypeNoul:
		if auc, ok := aucOf(outs); ok {
			m.AUC = &auc
		}
	}
	return m, nil
}

// aucOf is the area under the ROC curve of the noul probability for the
// label yes (outcome 0): the Mann-Whitney statistic, ties counting half.
// It is undefined (false) unless both labels occur.
func aucOf(outs []outcome) (float64, bool) {
	var yes, no []float64
	for _, o := range outs {
		if o.gold == 0 {
			yes = append(yes, o.p[0])
		} else {
			no = append(no, o.p[0])
		}
	}
	if len(yes) == 0 || len(no) == 0 {
		return 0, false
	}
	sort.Float64s(no)
	wins := 0.0
	for _, y := range yes {
		below := sort.SearchFloat64s(no, y)
		ties := sort.SearchFloat64s(no, math.Nextafter(y, math.Inf(1))) - below
		wins += float64(below) + float64(ties)/2
	}
	return wins / float64(len(yes)*len(no)), true
}

// quantile is the q-quantile of xs by the nearest-rank method.
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// Labelled asks b every item of the labelled file at path with model and
// returns the answers with their labels by question type, as
// shared/calibrate takes them (Fit, Ceiling, Mixing).
func Labelled(ctx context.Context, b systemone.Backend, model, path string, parallel int) (map[systemone.QuestionType][]calibrate.Item, error) {
	items, err := readItems(path)
	if err != nil {
		return nil, err
	}
	return predict(ctx, b, model, items, parallel)
}

// EvaluateFile is Evaluate over the labelled file at path, with the
// temperatures fitted on the file at fitPath when it is not empty.
func EvaluateFile(ctx context.Context, b systemone.Backend, model, path, fitPath string, parallel int) (Report, error) {
	items, err := readItems(path)
	if err != nil {
		return Report{}, err
	}
	var fit []labeled
	if fitPath != "" {
		if fit, err = readItems(fitPath); err != nil {
			return Report{}, err
		}
	}
	r, err := Evaluate(ctx, b, model, items, fit, parallel)
	r.Data, r.FitData = path, fitPath
	return r, err
}

// RunEval is `judge eval --data F --model M [--fit F] [--json out]`: it asks
// b (which answers for any model the judge serves, by the request's model
// name) every labelled item and prints the metrics per question type.
func RunEval(ctx context.Context, args []string, b systemone.Backend, stdout io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stdout)
	data := fs.String("data", "", "labelled items, one JSON object per line: {state, question, answer}")
	model := fs.String("model", "", "model to evaluate, exact name or alias, as a request names it")
	fitData := fs.String("fit", "", "labelled items to fit a temperature per type on, for the after-calibration figures (e.g. the dev split)")
	jsonOut := fs.String("json", "", "also write the report as JSON to this file")
	parallel := fs.Int("parallel", 1, "items asked at once (1 keeps latencies free of queueing)")
	coherence := fs.Bool("coherence", false, "also run the laws of probability (metamorphic relations) on the embedded set and print their pass rates")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *model == "" || *data == "" && !*coherence {
		return errors.New("--model and --data (or --coherence) are required")
	}
	r := Report{Model: *model}
	if *data != "" {
		var err error
		if r, err = EvaluateFile(ctx, b, *model, *data, *fitData, *parallel); err != nil {
			return err
		}
		if err := r.Print(stdout); err != nil {
			return err
		}
	}
	if *coherence {
		c, err := Coherence(ctx, b, *model, *parallel)
		if err != nil {
			return fmt.Errorf("coherence: %w", err)
		}
		r.Coherence = &c
		fmt.Fprintf(stdout, "model %s, %d laws on %d questions\n", *model, len(laws), lawCaseCount())
		if err := c.Print(stdout); err != nil {
			return err
		}
	}
	if *jsonOut != "" {
		out, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonOut, append(out, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", *jsonOut)
	}
	return nil
}

// Print writes the report as a table, one row per question type.
func (r Report) Print(w io.Writer) error {
	fmt.Fprintf(w, "model %s (answered as %s), %d items from %s\n", r.Model, r.Answered, r.Items, r.Data)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "type\tn\taccuracy\tkappa\tECE\tBrier\tMAE (middle)\tAUC\tp50 ms\tp95 ms\tUSD/1k\tT\tECE after\tBrier after")
	for _, qt := range questionTypes {
		m, ok := r.Types[qt]
		if !ok {
			continue
		}
		mae, auc, t, ece, brier := "-", "-", "-", "-", "-"
		if m.MAE != nil {
			mae = fmt.Sprintf("%.3f (%.3f)", *m.MAE, *m.MAEMiddle)
		}
		if m.AUC != nil {
			auc = fmt.Sprintf("%.3f", *m.AUC)
		}
		if m.Temperature != nil {
			t, ece, brier = fmt.Sprintf("%.2f", *m.Temperature), fmt.Sprintf("%.3f", *m.ECEAfter), fmt.Sprintf("%.3f", *m.BrierAfter)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\t%.3f\t%.3f\t%.4f\t%s\t%s\t%s\n", qt, m.N, m.Accuracy, m.Kappa,
			m.ECE, m.Brier, mae, auc, m.LatencyP50, m.LatencyP95, m.CostPer1000, t, ece, brier)
	}
	return tw.Flush()
}
