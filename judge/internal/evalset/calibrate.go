package evalset

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/systemone"
)

// DefaultOut is where the calibration file goes when neither --out nor
// JUDGE_CALIBRATION_FILE names a path.
const DefaultOut = "calibration.json"

// MinItems is the fewest labeled items of a question type worth fitting;
// below it the temperature of that type stays 1.
const MinItems = 10

// Item is one line of the labeled file: a state, one question about it and
// the right answer (noul: true or false; choice: the option name; score:
// the level index or the level text).
type Item struct {
	State    json.RawMessage    `json:"state"`
	Question systemone.Question `json:"question"`
	Answer   json.RawMessage    `json:"answer"`
}

// Run is `judge calibrate --data labeled.jsonl --model X [--out file]`.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stdout)
	data := fs.String("data", "", "labeled items, one JSON object per line: {state, question, answer}")
	model := fs.String("model", "", "upstream model to calibrate (default LLM_MODEL)")
	out := fs.String("out", "", "calibration file to write or update (default "+EnvCalibrationFile+", else "+DefaultOut+")")
	parallel := fs.Int("parallel", 8, "items asked at once")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" {
		return errors.New("--data is required")
	}
	s, err := SettingsFromEnv(getenv)
	if err != nil {
		return err
	}
	if *model != "" {
		s.LLM.Model = *model
	}
	if *out == "" {
		*out = s.CalibrationFile
	}
	if *out == "" {
		*out = DefaultOut
	}
	items, err := readItems(*data)
	if err != nil {
		return err
	}
	// Fitted on raw answers: the adapter gets no calibration of its own.
	adapter, err := systemone.NewAdapter(s.options(logger)...)
	if err != nil {
		return err
	}
	byType, err := predict(ctx, adapter, s.LLM.Model, items, max(*parallel, 1))
	if err != nil {
		return err
	}
	entry := calibrate.Model{
		Readout:      adapter.Readout(),
		Temperatures: map[string]float64{},
		FittedAt:     time.Now().UTC().Truncate(time.Second),
		Before:       map[string]calibrate.Metrics{},
		After:        map[string]calibrate.Metrics{},
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(stdout, "model %s, readout %s, %d items\n", s.LLM.Model, entry.Readout, len(items))
	fmt.Fprintln(tw, "type\tn\tT\taccuracy\tECE before → after\tBrier before → after\tlog-loss before → after")
	for _, qt := range []systemone.QuestionType{systemone.TypeNoul, systemone.TypeChoice, systemone.TypeScore} {
		preds := byType[qt]
		if len(preds) == 0 {
			continue
		}
		before, err := calibrate.Measure(preds, 1)
		if err != nil {
			return err
		}
		t := 1.0
		if len(preds) >= MinItems {
			if t, err = calibrate.Fit(preds); err != nil {
				return err
			}
			entry.Temperatures[string(qt)] = t
		} else {
			fmt.Fprintf(stdout, "%s: only %d items, fewer than %d; its temperature stays 1\n", qt, len(preds), MinItems)
		}
		after, err := calibrate.Measure(preds, t)
		if err != nil {
			return err
		}
		entry.Before[string(qt)], entry.After[string(qt)] = before, after
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.4f → %.4f\t%.4f → %.4f\t%.4f → %.4f\n", qt, len(preds), t, before.Accuracy,
			before.ECE, after.ECE, before.Brier, after.Brier, before.LogLoss, after.LogLoss)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	f, err := calibrate.Load(*out)
	if err != nil {
		return err
	}
	f.Models[s.LLM.Model] = entry
	if err := f.Save(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s; the judge loads it at start-up when %s=%s\n", *out, EnvCalibrationFile, *out)
	return nil
}

// labeled is an item checked and ready: its request and gold outcome.
type labeled struct {
	line int
	req  systemone.Request
	gold int
}

func readItems(path string) ([]labeled, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var items []labeled
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		it, err := parseItem([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		it.line = n
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: no labeled items", path)
	}
	return items, nil
}

func parseItem(b []byte) (labeled, error) {
	var it Item
	if err := json.Unmarshal(b, &it); err != nil {
		return labeled{}, err
	}
	req := systemone.Request{Model: "calibration", State: it.State, Questions: map[string]systemone.Question{"q": it.Question}}
	if err := req.Validate(nil); err != nil {
		return labeled{}, err
	}
	gold, err := goldIndex(it.Question, it.Answer)
	if err != nil {
		return labeled{}, fmt.Errorf("answer: %w", err)
	}
	return labeled{req: req, gold: gold}, nil
}

// goldIndex is the index of the right outcome in the order of outcomes():
// noul yes 0, no 1; choice the option's position; score the level.
func goldIndex(q systemone.Question, raw json.RawMessage) (int, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil || v == nil {
		return 0, errors.New("missing or not JSON")
	}
	switch q.Type {
	case systemone.TypeNoul:
		switch v {
		case true, "yes", "true":
			return 0, nil
		case false, "no", "false":
			return 1, nil
		}
		return 0, fmt.Errorf("a noul answer is true or false, got %s", raw)
	case systemone.TypeChoice:
		if s, ok := v.(string); ok {
			for i, o := range q.Options {
				if o.Name == s {
					return i, nil
				}
			}
		}
		return 0, fmt.Errorf("a choice answer names one of the options, got %s", raw)
	case systemone.TypeScore:
		switch x := v.(type) {
		case float64:
			if i := int(x); float64(i) == x && i >= 0 && i < len(q.Levels) {
				return i, nil
			}
		case string:
			for i, l := range q.Levels {
				if l == x || strconv.Itoa(i) == x {
					return i, nil
				}
			}
		}
		return 0, fmt.Errorf("a score answer is a level index 0..%d or a level text, got %s", len(q.Levels)-1, raw)
	}
	return 0, fmt.Errorf("unknown question type %q", q.Type)
}

// outcomes is the answer as one probability per outcome, in goldIndex's order.
func outcomes(q systemone.Question, a systemone.Answer) ([]float64, error) {
	switch q.Type {
	case systemone.TypeNoul:
		if a.Noul == nil {
			return nil, errors.New("noul answer without a probability")
		}
		return []float64{*a.Noul, 1 - *a.Noul}, nil
	case systemone.TypeChoice:
		p := make([]float64, len(q.Options))
		for i, o := range q.Options {
			p[i] = a.Probabilities[o.Name]
		}
		return p, nil
	default:
		p := make([]float64, len(q.Levels))
		for i := range q.Levels {
			p[i] = a.Probabilities[strconv.Itoa(i)]
		}
		return p, nil
	}
}

// predict asks every item, parallel at most n at a time, and groups the
// predictions by question type.
func predict(ctx context.Context, b systemone.Backend, model string, items []labeled, n int) (map[systemone.QuestionType][]calibrate.Item, error) {
	outs, err := askAll(ctx, b, model, items, n)
	if err != nil {
		return nil, err
	}
	preds := map[systemone.QuestionType][]calibrate.Item{}
	for qt, group := range byType(outs) {
		preds[qt] = calibrationItems(group)
	}
	return preds, nil
}
