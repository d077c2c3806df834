package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/engine/chat"
	"github.com/judgeworks/judge/internal/engine/lexical"
	"github.com/judgeworks/judge/internal/engine/providers"
	"github.com/judgeworks/judge/internal/engine/semantic"
	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/judge/internal/limits"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/wordvec"
)

// The judge's engines (judge/internal/engine): the offline engines, always
// there (lexical, word overlap, and semantic, word vectors); the model of
// the LLM_* settings (llm-1.0), over a chat endpoint (engine/chat) or, by
// LLM_API, a System One or Decisions upstream (engine/providers); and the
// models of the models file, each a Fallback over its providers. They are
// wired here and nowhere else.

// newRegistry registers the engines under their model names and applies
// the configured prices.
func newRegistry(cfg config, count limits.Counter, logger *slog.Logger) (*registry.Registry, error) {
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
	cal, err := loadCalibration(cfg, logger)
	if err != nil {
		return nil, err
	}
	if cfg.LLM.Configured() {
		if err := addLLM(reg, cfg, cal, logger); err != nil {
			return nil, err
		}
	} else if len(cfg.Models) == 0 {
		logger.Info("no LLM settings: answering with the offline engines", "model", semantic.Alias)
	}
	for i, m := range cfg.Models {
		if err := addFileModel(reg, cfg, cal, m, logger); err != nil {
			return nil, fmt.Errorf("JUDGE_MODELS_FILE %s: models[%d] (%s): %w", cfg.ModelsFile, i, m.Name, err)
		}
	}
	for name, usd := range cfg.Prices {
		if err := reg.SetPrice(name, usd); err != nil {
			return nil, fmt.Errorf("JUDGE_MODEL_PRICES: %w", err)
		}
	}
	return reg, nil
}

// loadCalibration reads the calibration file once for every engine that
// applies temperatures; without one, nothing is scaled.
func loadCalibration(cfg config, logger *slog.Logger) (calibrate.File, error) {
	if cfg.CalibrationFile == "" {
		return calibrate.File{Version: calibrate.FileVersion}, nil
	}
	cal, err := calibrate.Load(cfg.CalibrationFile)
	if err != nil {
		return cal, fmt.Errorf("JUDGE_CALIBRATION_FILE: %w", err)
	}
	upstream := map[string]bool{}
	if cfg.LLM.Configured() {
		upstream[cfg.LLM.Model] = true
	}
	for _, m := range cfg.Models {
		for _, p := range m.Providers {
			upstream[p.Model] = true
		}
	}
	for model := range upstream {
		if m, ok := cal.Models[model]; ok {
			logger.Info("calibration loaded", "file", cfg.CalibrationFile, "model", model,
				"readout", m.Readout, "temperatures", m.Temperatures)
		} else {
			logger.Warn("the calibration file has no entry for this model; answers are uncalibrated",
				"file", cfg.CalibrationFile, "model", model)
		}
	}
	return cal, nil
}

// addLLM registers llm-1.0, the model of the LLM_* settings, speaking
// LLM_API.
func addLLM(reg *registry.Registry, cfg config, cal calibrate.File, logger *slog.Logger) error {
	p := providerEntry{API: cfg.LLMAPI, BaseURL: cfg.LLM.BaseURL, APIKey: cfg.LLM.APIKey, APIKeyEnv: chatmodel.EnvAPIKey,
		Model: cfg.LLM.Model, Source: "llm-1.0 (LLM_API=" + cfg.LLMAPI + ")"}
	backend, err := newProvider(cfg, cal, p, logger)
	if err != nil {
		return err
	}
	description := map[string]string{
		apiChat:      "The configured OpenAI-compatible model (" + cfg.LLM.Model + "), read out as calibrated probabilities; answers name the upstream snapshot.",
		apiSystemOne: "The configured System One service's model (" + cfg.LLM.Model + "), calibrated; answers name the upstream version.",
		apiDecisions: "The configured Decisions API model (" + cfg.LLM.Model + "), calibrated; answers name the upstream version.",
	}[cfg.LLMAPI]
	if cfg.LLMAPI != apiChat {
		backend = providers.NewFallback([]providers.Provider{{Source: p.Source, Backend: backend}}, cfg.Adapter.Timeout, logger)
	}
	if err := reg.Add(registry.Model{
		Name:            "llm-1.0",
		Aliases:         []string{"llm-latest"},
		Description:     description,
		ReleaseDate:     "2026-01-01",
		Backend:         backend,
		NameFromBackend: true,
	}); err != nil {
		return err
	}
	attrs := []any{"model", "llm-latest", "api", cfg.LLMAPI, "upstream", cfg.LLM.Model}
	if a, ok := backend.(*chat.Engine); ok {
		attrs = append(attrs, "readout", a.Readout())
	}
	logger.Info("language model configured", attrs...)
	return nil
}

// addFileModel registers one entry of the models file: a Fallback over
// its providers, named by the upstream version that answered.
func addFileModel(reg *registry.Registry, cfg config, cal calibrate.File, m modelEntry, logger *slog.Logger) error {
	list := make([]providers.Provider, len(m.Providers))
	summary := make([]string, len(m.Providers))
	for i, p := range m.Providers {
		b, err := newProvider(cfg, cal, p, logger)
		if err != nil {
			return err
		}
		list[i] = providers.Provider{Source: p.Source, Backend: b}
		summary[i] = p.API + " " + p.Model
	}
	description := m.Description
	if description == "" {
		// Base URLs stay out: callers of /v1/models need not learn them.
		description = "Upstream providers, tried in order: " + strings.Join(summary, ", ") + "."
	}
	model := registry.Model{
		Name:            m.Name,
		Aliases:         m.Aliases,
		Description:     description,
		ReleaseDate:     m.ReleaseDate,
		Backend:         providers.NewFallback(list, cfg.Adapter.Timeout, logger),
		NameFromBackend: true,
	}
	if m.PricePerMillion != nil {
		model.PricePerMillion = *m.PricePerMillion
	}
	if err := reg.Add(model); err != nil {
		return err
	}
	if m.PricePerMillion != nil && *m.PricePerMillion == 0 {
		if err := reg.SetPrice(m.Name, 0); err != nil {
			return err
		}
	}
	logger.Info("model from the models file", "model", m.Name, "aliases", m.Aliases, "providers", summary)
	return nil
}

// newProvider builds the engine for one upstream: the chat adapter with
// the JUDGE_LLM_* settings, or a System One or Decisions provider whose
// calls in flight and deadline follow the same settings (one call there
// answers the whole request).
func newProvider(cfg config, cal calibrate.File, p providerEntry, logger *slog.Logger) (engine.Engine, error) {
	s := providers.Settings{
		BaseURL: p.BaseURL, APIKey: p.APIKey, Model: p.Model, Source: p.Source, KeyEnv: p.APIKeyEnv,
		// The same slots, queue and admission wait as the chat adapter's,
		// shared among the keys in turn.
		MaxInFlight: cfg.Adapter.Concurrency, Queue: cfg.Adapter.Queue, MaxWait: cfg.Adapter.MaxWait,
		// One call never outlasts the request's deadline, and leaves
		// time for the next provider when it fails slowly.
		CallTimeout: min(chatmodel.DefaultCallTimeout, cfg.Adapter.Timeout),
		Calibration: cal,
	}
	switch p.API {
	case apiSystemOne:
		return providers.NewSystemOne(s), nil
	case apiDecisions:
		return providers.NewDecisions(s)
	}
	slots := engine.NewSlots(fairqueue.Config{Slots: cfg.Adapter.Concurrency, Queue: cfg.Adapter.Queue, MaxWait: cfg.Adapter.MaxWait}, "")
	return chat.New(slots, append(cfg.adapterOptions(logger),
		chatadapter.WithProvider(p.BaseURL, p.APIKey, p.Model), chatadapter.WithCalibration(cal))...)
}

// adapterOptions are the chat adapter's options from the JUDGE_LLM_*
// settings, without the provider and the calibration, which `judge serve`
// and `judge calibrate` each add their own way.
func (c config) adapterOptions(logger *slog.Logger) []chatadapter.Option {
	return []chatadapter.Option{
		chatadapter.WithReadout(c.Adapter.Readout),
		chatadapter.WithRotations(c.Adapter.Rotations),
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
