package main

import (
	"fmt"
	"log/slog"

	"github.com/judgeworks/judge/internal/lexical"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/judge/internal/semantic"
	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/wordvec"
)

// The judge's engines, side by side as systemone.Backends: the offline
// engines, always there (judge/internal/lexical, word overlap, and
// judge/internal/semantic, word vectors), and the chat adapter over the
// configured language model (shared/chatadapter). They are wired here and
// nowhere else.

// newRegistry registers the engines under their model names and applies
// the configured prices.
func newRegistry(cfg config, count systemone.TokenCounter, logger *slog.Logger) (*registry.Registry, error) {
	reg := registry.New(count)
	if err := reg.Add(registry.Model{
		Name:        lexical.Name,
		Aliases:     []string{lexical.Alias},
		Description: "Offline lexical engine for development and demos without a language-model key: word overlap with negation, not a language model.",
		ReleaseDate: lexical.ReleaseDate,
		Backend:     lexical.Engine{},
	}); err != nil {
		return nil, err
	}
	if err := addSemantic(reg); err != nil {
		return nil, err
	}
	if cfg.LLM.Configured() {
		adapter, err := newAdapter(cfg, logger)
		if err != nil {
			return nil, err
		}
		if err := reg.Add(registry.Model{
			Name:            "llm-1.0",
			Aliases:         []string{"llm-latest"},
			Description:     "The configured OpenAI-compatible model (" + cfg.LLM.Model + "), read out as calibrated probabilities; answers name the upstream snapshot.",
			ReleaseDate:     "2026-01-01",
			Backend:         adapter,
			NameFromBackend: true,
		}); err != nil {
			return nil, err
		}
		logger.Info("language model configured", "model", "llm-latest", "upstream", cfg.LLM.Model, "readout", adapter.Readout())
	} else {
		logger.Info("no LLM settings: answering with the offline engines", "model", semantic.Alias)
	}
	for name, usd := range cfg.Prices {
		if err := reg.SetPrice(name, usd); err != nil {
			return nil, fmt.Errorf("JUDGE_MODEL_PRICES: %w", err)
		}
	}
	return reg, nil
}

// newAdapter builds the serving chat adapter: the configured provider, the
// JUDGE_LLM_* settings, and the temperatures of the calibration file for
// the configured model.
func newAdapter(cfg config, logger *slog.Logger) (*chatadapter.Adapter, error) {
	cal := calibrate.File{Version: calibrate.FileVersion}
	if cfg.CalibrationFile != "" {
		var err error
		if cal, err = calibrate.Load(cfg.CalibrationFile); err != nil {
			return nil, fmt.Errorf("JUDGE_CALIBRATION_FILE: %w", err)
		}
		if m, ok := cal.Models[cfg.LLM.Model]; ok {
			logger.Info("calibration loaded", "file", cfg.CalibrationFile, "model", cfg.LLM.Model,
				"readout", m.Readout, "temperatures", m.Temperatures)
		} else {
			logger.Warn("the calibration file has no entry for this model; answers are uncalibrated",
				"file", cfg.CalibrationFile, "model", cfg.LLM.Model)
		}
	}
	return chatadapter.New(append(cfg.adapterOptions(logger),
		chatadapter.WithLLMSettings(cfg.LLM), chatadapter.WithCalibration(cal))...)
}

// adapterOptions are the chat adapter's options from the JUDGE_LLM_*
// settings, without the provider and the calibration, which `judge serve`
// and `judge calibrate` each add their own way.
func (c config) adapterOptions(logger *slog.Logger) []chatadapter.Option {
	return []chatadapter.Option{
		chatadapter.WithReadout(c.Adapter.Readout),
		chatadapter.WithRotations(c.Adapter.Rotations),
		chatadapter.WithUpstreamConcurrency(c.Adapter.Concurrency, c.Adapter.Queue),
		chatadapter.WithUpstreamMaxWait(c.Adapter.MaxWait),
		// One call never outlasts the request's deadline.
		chatadapter.WithUpstreamTimeouts(min(chatmodel.DefaultCallTimeout, c.Adapter.Timeout), c.Adapter.Timeout),
		chatadapter.WithStructuredOutputs(c.Adapter.Structured),
		chatadapter.WithLogger(logger),
	}
}

// addSemantic registers the word-vector engine, the default offline model.
// Its first use of wordvec.Default decodes the embedded vectors (tens of
// milliseconds, see docs/semantic.md), so the judge pays that at start-up
// rather than on its first request.
func addSemantic(reg *registry.Registry) error {
	e, err := semantic.New(wordvec.Default())
	if err != nil {
		return err
	}
	return reg.Add(registry.Model{
		Name:        semantic.Name,
		Aliases:     []string{semantic.Alias},
		Description: semantic.Description,
		ReleaseDate: semantic.ReleaseDate,
		Backend:     e,
	})
}
