package evalset

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/systemone"
)

// DefaultOut is where the calibration file goes when neither --out nor
// JUDGE_CALIBRATION_FILE names a path.
const DefaultOut = "calibration.json"

// CalibrateConfig is what `judge calibrate` takes from the judge's config.
type CalibrateConfig struct {
	// LLM is the provider to ask (LLM_*); --model overrides its Model.
	LLM chatmodel.Settings
	// Adapter are the options `judge serve` builds its chat adapter with,
	// less the provider and the calibration: temperatures are fitted on
	// raw answers read exactly the way the judge will read them.
	Adapter []chatadapter.Option
	// File is JUDGE_CALIBRATION_FILE, the default of --out.
	File string
}

// MinItems is the fewest labeled items of a question type worth fitting;
// below it the temperature of that type stays 1.
const MinItems = 10

// Calibrate is `judge calibrate --data labeled.jsonl [--model X] [--out file]`.
func Calibrate(ctx context.Context, args []string, cfg CalibrateConfig, stdout io.Writer) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stdout)
	data := fs.String("data", "", "labeled items, one JSON object per line: {state, question, answer}")
	model := fs.String("model", "", "upstream model to calibrate (default LLM_MODEL)")
	out := fs.String("out", "", "calibration file to write or update (default JUDGE_CALIBRATION_FILE, else "+DefaultOut+")")
	parallel := fs.Int("parallel", 8, "items asked at once")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" {
		return errors.New("--data is required")
	}
	llm := cfg.LLM
	if *model != "" {
		llm.Model = *model
	}
	if *out == "" {
		*out = cfg.File
	}
	if *out == "" {
		*out = DefaultOut
	}
	items, err := readItems(*data)
	if err != nil {
		return err
	}
	// Fitted on raw answers: the adapter gets no calibration of its own.
	adapter, err := chatadapter.New(slices.Concat(cfg.Adapter, []chatadapter.Option{chatadapter.WithLLMSettings(llm)})...)
	if err != nil {
		return err
	}
	byType, err := predict(ctx, adapter, llm.Model, items, max(*parallel, 1))
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
	fmt.Fprintf(stdout, "model %s, readout %s, %d items\n", llm.Model, entry.Readout, len(items))
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
	f.Models[llm.Model] = entry
	if err := f.Save(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s; the judge loads it at start-up when JUDGE_CALIBRATION_FILE=%s\n", *out, *out)
	return nil
}
