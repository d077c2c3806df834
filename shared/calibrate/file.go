package calibrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"
)

// FileVersion is the format version written to calibration files.
const FileVersion = 1

// File is the calibration file: one entry per upstream model name (the
// LLM_MODEL setting, not the snapshot the provider reports, because the
// operator chooses the former).
type File struct {
	Version int              `json:"version"`
	Models  map[string]Model `json:"models"`
}

// Model is the calibration of one model.
type Model struct {
	// Readout is the readout the temperatures were fitted on ("logprobs"
	// or "probabilities"); they are applied only to answers read the same
	// way, since the two readouts are miscalibrated differently.
	Readout string `json:"readout"`
	// Temperatures maps a question type (noul, choice, score) to T.
	Temperatures map[string]float64 `json:"temperatures"`
	FittedAt     time.Time          `json:"fitted_at"`
	// Before and After are the metrics on the fitting data, per type.
	Before map[string]Metrics `json:"before,omitempty"`
	After  map[string]Metrics `json:"after,omitempty"`
}

// Temperature returns the temperature for model, readout and question type,
// and 1 (no change) when the file has none.
func (f File) Temperature(model, readout, qtype string) float64 {
	m, ok := f.Models[model]
	if !ok || (m.Readout != "" && m.Readout != readout) {
		return 1
	}
	if t, ok := m.Temperatures[qtype]; ok {
		return t
	}
	return 1
}

// Validate rejects temperatures outside the fitting bounds, which can only
// come from a hand-edited or corrupt file.
func (f File) Validate() error {
	if f.Version != FileVersion {
		return fmt.Errorf("calibration file version %d, want %d", f.Version, FileVersion)
	}
	for name, m := range f.Models {
		for qt, t := range m.Temperatures {
			if math.IsNaN(t) || t < MinTemperature || t > MaxTemperature {
				return fmt.Errorf("model %q, type %q: temperature %v outside [%v, %v]", name, qt, t, MinTemperature, MaxTemperature)
			}
		}
	}
	return nil
}

// Load reads a calibration file. A missing file is an empty calibration,
// so a fresh deployment starts uncalibrated rather than failing.
func Load(path string) (File, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return File{Version: FileVersion, Models: map[string]Model{}}, nil
	}
	if err != nil {
		return File{}, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return File{}, fmt.Errorf("calibration file %s: %w", path, err)
	}
	if err := f.Validate(); err != nil {
		return File{}, fmt.Errorf("calibration file %s: %w", path, err)
	}
	if f.Models == nil {
		f.Models = map[string]Model{}
	}
	return f, nil
}

// Save writes f to path atomically (a temporary file renamed over it), so
// a judge starting at the same moment never reads half a file.
func (f File) Save(path string) error {
	f.Version = FileVersion
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".calibration-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
