// Package evalset holds the commands over labelled decision sets (one
// format, read by both): `judge eval`, which measures any model the judge
// serves; `judge calibrate`, which fits the temperatures of the
// language-model adapter on labelled items; and the adapter settings
// calibrate shares with `judge serve` (a calibration is only valid for answers read the way it
// was fitted, so both build the adapter from the same settings).
package evalset

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/systemone"
)

// Setting names of the judge's language-model adapter (see docs/adapter.md).
const (
	EnvCalibrationFile   = "JUDGE_CALIBRATION_FILE"
	EnvReadout           = "JUDGE_LLM_READOUT"
	EnvRotations         = "JUDGE_LLM_ROTATIONS"
	EnvConcurrency       = "JUDGE_LLM_CONCURRENCY"
	EnvStructuredOutputs = "JUDGE_LLM_STRUCTURED_OUTPUTS"
	EnvQueue             = "JUDGE_LLM_QUEUE"
	EnvTimeout           = "JUDGE_LLM_TIMEOUT"
)

// Settings shape the adapter's answers.
type Settings struct {
	LLM chatmodel.Settings
	// CalibrationFile is loaded at start-up; empty means uncalibrated.
	CalibrationFile string
	Readout         systemone.ReadoutMode
	Rotations       int
	Concurrency     int
	// Queue is how many calls may wait for a slot before new work is
	// refused with 529; Timeout bounds the model's work for one request.
	Queue      int
	Timeout    time.Duration
	Structured bool
}

// SettingsFromEnv reads the settings with getenv, checking each value.
func SettingsFromEnv(getenv func(string) string) (Settings, error) {
	s := Settings{
		LLM:             chatmodel.FromEnv(getenv),
		CalibrationFile: strings.TrimSpace(getenv(EnvCalibrationFile)),
		Readout:         systemone.ReadoutAuto,
		Rotations:       1,
		Concurrency:     systemone.DefaultUpstreamConcurrency,
		Queue:           systemone.DefaultUpstreamQueue,
		Timeout:         systemone.DefaultRequestTimeout,
		Structured:      true,
	}
	if v := strings.TrimSpace(getenv(EnvReadout)); v != "" {
		switch m := systemone.ReadoutMode(v); m {
		case systemone.ReadoutAuto, systemone.ReadoutLogprobs, systemone.ReadoutProbabilities:
			s.Readout = m
		default:
			return s, fmt.Errorf("%s %q: want auto, logprobs or probabilities", EnvReadout, v)
		}
	}
	var err error
	if s.Rotations, err = positive(getenv, EnvRotations, s.Rotations); err != nil {
		return s, err
	}
	if s.Concurrency, err = positive(getenv, EnvConcurrency, s.Concurrency); err != nil {
		return s, err
	}
	if v := strings.TrimSpace(getenv(EnvQueue)); v != "" {
		if s.Queue, err = strconv.Atoi(v); err != nil || s.Queue < 0 {
			return s, fmt.Errorf("%s %q: want a whole number, at least 0", EnvQueue, v)
		}
	}
	if v := strings.TrimSpace(getenv(EnvTimeout)); v != "" {
		if s.Timeout, err = time.ParseDuration(v); err != nil || s.Timeout <= 0 {
			return s, fmt.Errorf("%s %q: want a positive duration such as 20s", EnvTimeout, v)
		}
	}
	if v := strings.TrimSpace(getenv(EnvStructuredOutputs)); v != "" {
		if s.Structured, err = strconv.ParseBool(v); err != nil {
			return s, fmt.Errorf("%s %q: want true or false", EnvStructuredOutputs, v)
		}
	}
	return s, nil
}

func positive(getenv func(string) string, name string, def int) (int, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s %q: want a whole number, at least 1", name, v)
	}
	return n, nil
}

// options are the adapter options of s, without calibration.
func (s Settings) options(logger *slog.Logger) []systemone.AdapterOption {
	return []systemone.AdapterOption{
		systemone.WithLLMSettings(s.LLM),
		systemone.WithReadout(s.Readout),
		systemone.WithRotations(s.Rotations),
		systemone.WithUpstreamConcurrency(s.Concurrency, s.Queue),
		// One call never outlasts the request's deadline.
		systemone.WithUpstreamTimeouts(min(chatmodel.DefaultCallTimeout, s.Timeout), s.Timeout),
		systemone.WithStructuredOutputs(s.Structured),
		systemone.WithAdapterLogger(logger),
	}
}

// NewAdapter builds the serving adapter: s's settings plus the
// calibration file, whose temperatures apply to s.LLM.Model.
func NewAdapter(s Settings, logger *slog.Logger) (*systemone.Adapter, error) {
	cal := calibrate.File{Version: calibrate.FileVersion}
	if s.CalibrationFile != "" {
		var err error
		if cal, err = calibrate.Load(s.CalibrationFile); err != nil {
			return nil, fmt.Errorf("%s: %w", EnvCalibrationFile, err)
		}
		if m, ok := cal.Models[s.LLM.Model]; ok {
			logger.Info("calibration loaded", "file", s.CalibrationFile, "model", s.LLM.Model,
				"readout", m.Readout, "temperatures", m.Temperatures)
		} else {
			logger.Warn("the calibration file has no entry for this model; answers are uncalibrated",
				"file", s.CalibrationFile, "model", s.LLM.Model)
		}
	}
	return systemone.NewAdapter(append(s.options(logger), systemone.WithCalibration(cal))...)
}
