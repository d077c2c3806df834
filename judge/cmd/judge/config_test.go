package main

import (
	"strings"
	"testing"
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
	cfg, err = loadConfig(env(map[string]string{
		"JUDGE_ADDR": "127.0.0.1:9000", "JUDGE_API_KEYS": "a,b:local/lexical-latest", "JUDGE_RATE_LIMIT_RPM": "60",
		"JUDGE_MODEL_PRICES": "local/lexical-1.0=0.1, llm-latest=2", "LLM_MODEL": "m", "LLM_BASE_URL": "http://localhost:8000/v1",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.port() != "9000" || cfg.RateLimitRPM != 60 || cfg.Keys.Len() != 2 ||
		cfg.Prices["local/lexical-1.0"] != 0.1 || cfg.Prices["llm-latest"] != 2 || !cfg.LLM.Configured() {
		t.Errorf("set: %+v", cfg)
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
		{map[string]string{"JUDGE_MODEL_PRICES": "m=-1"}, "JUDGE_MODEL_PRICES"},
		{map[string]string{"JUDGE_MODEL_PRICES": "=1"}, "JUDGE_MODEL_PRICES"},
	}
	for _, tt := range tests {
		_, err := loadConfig(env(tt.env))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want one naming %s", tt.env, err, tt.want)
		}
	}
}
