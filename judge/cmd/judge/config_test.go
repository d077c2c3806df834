package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/engine/chat"
	"github.com/judgeworks/shared/chatadapter"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadConfig(t *testing.T) {
	cfg, err := loadConfig(env(map[string]string{"JUDGE_API_KEYS": "dev-key"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":8081" || cfg.RateLimitRPM != 1200 || cfg.Keys.Len() != 1 || cfg.port() != "8081" || cfg.LLM.Configured() {
		t.Errorf("defaults: %+v", cfg)
	}
	want := adapterConfig{Readout: chatadapter.ReadoutAuto, Rotations: 1, Choice: chatadapter.ChoiceJoint, Concurrency: chat.DefaultConcurrency,
		Queue: chat.DefaultQueue, MaxWait: chat.DefaultMaxWait, Timeout: chatadapter.DefaultRequestTimeout,
		Structured: true}
	if cfg.Adapter != want || cfg.CalibrationFile != "" {
		t.Errorf("adapter defaults: %+v, want %+v", cfg.Adapter, want)
	}
	// JUDGE_DATA_DIR: .data/judge under the working directory, made
	// absolute once so that logs and errors name the real place.
	wd, _ := os.Getwd()
	if cfg.DataDir != filepath.Join(wd, ".data", "judge") {
		t.Errorf("data directory %q, want .data/judge under %s", cfg.DataDir, wd)
	}
	if cfg, _ := loadConfig(env(map[string]string{"JUDGE_DATA_DIR": " /var/lib/judge "})); cfg.DataDir != "/var/lib/judge" {
		t.Errorf("JUDGE_DATA_DIR set: %q", cfg.DataDir)
	}
	cfg, err = loadConfig(env(map[string]string{
		"JUDGE_ADDR": "127.0.0.1:9000", "JUDGE_API_KEYS": "a,b:local/lexical-latest", "JUDGE_RATE_LIMIT_RPM": "60",
		"JUDGE_MODEL_PRICES": "local/lexical-1.0=0.1, llm-latest=2", "LLM_MODEL": "m", "LLM_BASE_URL": "http://localhost:8000/v1",
		"LLM_API_KEY": "local", "JUDGE_CALIBRATION_FILE": " cal.json ", "JUDGE_LLM_READOUT": "probabilities", "JUDGE_LLM_ROTATIONS": "3", "JUDGE_LLM_CHOICE": "apart",
		"JUDGE_LLM_CONCURRENCY": "16", "JUDGE_LLM_QUEUE": "0", "JUDGE_LLM_MAX_WAIT": "500ms", "JUDGE_LLM_TIMEOUT": "1500ms", "JUDGE_LLM_STRUCTURED_OUTPUTS": "false",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.port() != "9000" || cfg.RateLimitRPM != 60 || cfg.Keys.Len() != 2 ||
		cfg.Prices["local/lexical-1.0"] != 0.1 || cfg.Prices["llm-latest"] != 2 || !cfg.LLM.Configured() {
		t.Errorf("set: %+v", cfg)
	}
	want = adapterConfig{Readout: chatadapter.ReadoutProbabilities, Rotations: 3, Choice: chatadapter.ChoiceApart, Concurrency: 16, Queue: 0,
		MaxWait: 500 * time.Millisecond, Timeout: 1500 * time.Millisecond, Structured: false}
	if cfg.Adapter != want || cfg.CalibrationFile != "cal.json" {
		t.Errorf("adapter: %+v %q, want %+v", cfg.Adapter, cfg.CalibrationFile, want)
	}
	// A model name alone (a default left in .env) does not switch to a provider.
	cfg, err = loadConfig(env(map[string]string{"JUDGE_API_KEYS": "k", "LLM_MODEL": "gpt-4o-mini"}))
	if err != nil || cfg.LLM.Configured() {
		t.Errorf("model name alone: configured %v, err %v", cfg.LLM.Configured(), err)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"JUDGE_ADDR": "8081"}, "JUDGE_ADDR"},
		{map[string]string{"JUDGE_API_KEYS": "a,,b"}, "JUDGE_API_KEYS"},
		{map[string]string{"JUDGE_RATE_LIMIT_RPM": "0"}, "JUDGE_RATE_LIMIT_RPM"},
		{map[string]string{"JUDGE_RATE_LIMIT_RPM": "fast"}, "JUDGE_RATE_LIMIT_RPM"},
		{map[string]string{"JUDGE_MODEL_PRICES": "m"}, "JUDGE_MODEL_PRICES"},
		{map[string]string{"JUDGE_RATE_LIMIT_BURST": "0"}, "JUDGE_RATE_LIMIT_BURST"},
		{map[string]string{"JUDGE_RATE_LIMIT_BURST": "1201"}, "JUDGE_RATE_LIMIT_BURST"},
		{map[string]string{"JUDGE_MODEL_ALIASES": "fast"}, "JUDGE_MODEL_ALIASES"},
		{map[string]string{"JUDGE_MODEL_ALIASES": "fast=,x=y"}, "JUDGE_MODEL_ALIASES"},
		{map[string]string{"JUDGE_MODEL_ALIASES": "a b=local/semantic-latest"}, "JUDGE_MODEL_ALIASES"},
		{map[string]string{"JUDGE_MODEL_PRICES": "m=-1"}, "JUDGE_MODEL_PRICES"},
		{map[string]string{"JUDGE_MODEL_PRICES": "=1"}, "JUDGE_MODEL_PRICES"},
		// A base URL or a key means a model is wanted: every LLM_* setting must then be right.
		{map[string]string{"LLM_API_KEY": "sk-secret-123", "LLM_MODEL": "m"}, "LLM_BASE_URL"},
		{map[string]string{"LLM_BASE_URL": "localhost:8000", "LLM_API_KEY": "sk-secret-123", "LLM_MODEL": "m"}, "LLM_BASE_URL"},
		{map[string]string{"LLM_BASE_URL": "http://localhost:8000/v1", "LLM_API_KEY": "sk-secret-123"}, "LLM_MODEL"},
		{map[string]string{"LLM_BASE_URL": "http://localhost:8000/v1", "LLM_MODEL": "m"}, "LLM_API_KEY"},
		{map[string]string{"JUDGE_LLM_READOUT": "guess"}, "JUDGE_LLM_READOUT"},
		{map[string]string{"JUDGE_LLM_ROTATIONS": "0"}, "JUDGE_LLM_ROTATIONS"},
		{map[string]string{"JUDGE_LLM_CHOICE": "each"}, "JUDGE_LLM_CHOICE"},
		{map[string]string{"JUDGE_LLM_CONCURRENCY": "x"}, "JUDGE_LLM_CONCURRENCY"},
		{map[string]string{"JUDGE_LLM_QUEUE": "-1"}, "JUDGE_LLM_QUEUE"},
		{map[string]string{"JUDGE_LLM_MAX_WAIT": "-1s"}, "JUDGE_LLM_MAX_WAIT"},
		{map[string]string{"JUDGE_LLM_MAX_WAIT": "2"}, "JUDGE_LLM_MAX_WAIT"},
		{map[string]string{"JUDGE_LLM_TIMEOUT": "0s"}, "JUDGE_LLM_TIMEOUT"},
		{map[string]string{"JUDGE_LLM_TIMEOUT": "soon"}, "JUDGE_LLM_TIMEOUT"},
		{map[string]string{"JUDGE_LLM_STRUCTURED_OUTPUTS": "maybe"}, "JUDGE_LLM_STRUCTURED_OUTPUTS"},
	}
	for _, tt := range tests {
		_, err := loadConfig(env(tt.env))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want one naming %s", tt.env, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), tt.env["LLM_API_KEY"]) && tt.env["LLM_API_KEY"] != "" {
			t.Errorf("%v: err = %v quotes the key", tt.env, err)
		}
	}
}
