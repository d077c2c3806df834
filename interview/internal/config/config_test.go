package config

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/judgeworks/interview/internal/interviews"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoad(t *testing.T) {
	strong := strings.Repeat("s", 32)
	cases := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"production needs a secret", map[string]string{"DATABASE_URL": "postgres://x", "APP_ENV": "production"}, "JWT_SECRET is required"},
		{"production refuses a weak secret", map[string]string{"DATABASE_URL": "postgres://x", "APP_ENV": "production", "JWT_SECRET": "short"}, "at least 32"},
		{"production with a strong secret", map[string]string{"DATABASE_URL": "postgres://x", "APP_ENV": "production", "JWT_SECRET": strong}, ""},
		{"database required", map[string]string{"JWT_SECRET": strong}, "DATABASE_URL"},
		{"unknown APP_ENV", map[string]string{"DATABASE_URL": "postgres://x", "APP_ENV": "prod"}, "APP_ENV"},
		{"bad pool size", map[string]string{"DATABASE_URL": "postgres://x", "JWT_SECRET": strong, "DB_MAX_CONNS": "0"}, "DB_MAX_CONNS"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(env(c.env))
			if c.wantErr == "" {
				if err != nil || !cfg.Production || cfg.Addr != ":8082" {
					t.Fatalf("Load = %+v, %v", cfg, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want it to mention %q", err, c.wantErr)
			}
		})
	}
}

// The language-model rule is the judge's (chatmodel.Settings): a base URL or
// a key switches to a provider, and then every setting must be valid, or the
// service does not start; the error names the setting. A model name alone
// (a default left in .env) keeps the offline interviewer.
func TestLanguageModelSettings(t *testing.T) {
	strong := strings.Repeat("s", 32)
	const key = "sk-never-in-an-error"
	cases := []struct {
		name    string
		llm     map[string]string
		want    bool   // a language model is configured
		wantErr string // the setting the error names first
	}{
		{"none", nil, false, ""},
		{"a model name alone", map[string]string{"LLM_MODEL": "gpt-4o-mini"}, false, ""},
		{"complete", map[string]string{"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_API_KEY": key, "LLM_MODEL": "m"}, true, ""},
		{"base URL without key", map[string]string{"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL": "m"}, false, "LLM_API_KEY"},
		{"key without base URL", map[string]string{"LLM_API_KEY": key, "LLM_MODEL": "m"}, false, "LLM_BASE_URL"},
		{"no model", map[string]string{"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_API_KEY": key}, false, "LLM_MODEL"},
		{"relative base URL", map[string]string{"LLM_BASE_URL": "127.0.0.1/v1", "LLM_API_KEY": key, "LLM_MODEL": "m"}, false, "LLM_BASE_URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := map[string]string{"DATABASE_URL": "postgres://x", "JWT_SECRET": strong}
			for k, v := range c.llm {
				m[k] = v
			}
			cfg, err := Load(env(m))
			if c.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), "language model: "+c.wantErr) {
					t.Fatalf("error %v, want one naming %s first", err, c.wantErr)
				}
				if strings.Contains(err.Error(), key) {
					t.Fatalf("error %q quotes the key", err)
				}
				return
			}
			if err != nil || cfg.LanguageModel() != c.want {
				t.Fatalf("LanguageModel() = %v, %v; want %v", cfg.LanguageModel(), err, c.want)
			}
		})
	}
}

func TestDevelopmentSecretPersists(t *testing.T) {
	dir := t.TempDir()
	e := env(map[string]string{"DATABASE_URL": "postgres://x", "DATA_DIR": dir})
	a, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(e)
	if err != nil || string(a.JWTSecret) != string(b.JWTSecret) || len(a.JWTSecret) < 32 {
		t.Fatalf("secret not kept across loads: %v", err)
	}
	if st, err := os.Stat(filepath.Join(dir, "jwt-secret")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", st, err)
	}
}

func TestJudgeSettings(t *testing.T) {
	strong := strings.Repeat("s", 32)
	base := func(kv ...string) map[string]string {
		m := map[string]string{"DATABASE_URL": "postgres://x", "JWT_SECRET": strong}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name      string
		env       map[string]string
		wantURL   string
		wantModel string
		wantErr   string
	}{
		{"off without JUDGE_URL", base("JUDGE_API_KEY", "k"), "", "", ""},
		{"no judge model without a language model", base("JUDGE_URL", "http://127.0.0.1:8081", "JUDGE_API_KEY", "k"), "http://127.0.0.1:8081", "", ""},
		{"offline engine when asked for", base("JUDGE_URL", "http://127.0.0.1:8081", "JUDGE_API_KEY", "k", "JUDGE_MODEL", JudgeModelOffline), "http://127.0.0.1:8081", JudgeModelOffline, ""},
		{"llm-latest when this service has LLM settings", base("JUDGE_URL", "http://judge:8081", "JUDGE_API_KEY", "k",
			"LLM_BASE_URL", "http://127.0.0.1/v1", "LLM_API_KEY", "x", "LLM_MODEL", "m"), "http://judge:8081", JudgeModelLLM, ""},
		{"explicit model wins", base("JUDGE_URL", "http://judge:8081", "JUDGE_API_KEY", "k", "JUDGE_MODEL", "local/lexical-1.0"), "http://judge:8081", "local/lexical-1.0", ""},
		{"URL without key", base("JUDGE_URL", "http://judge:8081"), "", "", "JUDGE_API_KEY"},
		{"relative URL", base("JUDGE_URL", "judge:8081", "JUDGE_API_KEY", "k"), "", "", "JUDGE_URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(env(c.env))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want it to mention %q", err, c.wantErr)
				}
				return
			}
			if err != nil || cfg.JudgeURL != c.wantURL || cfg.JudgeModel != c.wantModel {
				t.Fatalf("Load = url %q model %q, %v", cfg.JudgeURL, cfg.JudgeModel, err)
			}
			if want := c.wantURL != "" && c.wantModel != ""; cfg.JudgeScores() != want {
				t.Fatalf("JudgeScores() = %v, want %v", cfg.JudgeScores(), want)
			}
		})
	}
}

func TestParseProxies(t *testing.T) {
	cases := []struct {
		in      string
		trusted []string
		not     []string
		wantErr bool
	}{
		{"loopback", []string{"127.0.0.1", "127.9.9.9", "::1"}, []string{"10.0.0.1", "192.168.1.1"}, false},
		{"private", []string{"10.1.2.3", "172.20.0.5", "192.168.0.9", "fd00::1"}, []string{"127.0.0.1", "8.8.8.8"}, false},
		{"loopback, 203.0.113.0/24,198.51.100.7", []string{"127.0.0.1", "203.0.113.200", "198.51.100.7"}, []string{"198.51.100.8"}, false},
		{"none", nil, []string{"127.0.0.1"}, false},
		{"loopback,caddy", nil, nil, true},
		{"10.0.0.0/33", nil, nil, true},
	}
	for _, c := range cases {
		nets, err := ParseProxies(c.in)
		if (err != nil) != c.wantErr {
			t.Fatalf("%q: err %v", c.in, err)
		}
		contains := func(ip string) bool {
			for _, n := range nets {
				if n.Contains(net.ParseIP(ip)) {
					return true
				}
			}
			return false
		}
		for _, ip := range c.trusted {
			if !contains(ip) {
				t.Errorf("%q: %s not trusted", c.in, ip)
			}
		}
		for _, ip := range c.not {
			if contains(ip) {
				t.Errorf("%q: %s trusted", c.in, ip)
			}
		}
	}
}

func TestAuthThrottleSetting(t *testing.T) {
	strong := strings.Repeat("s", 32)
	on, err := Load(env(map[string]string{"DATABASE_URL": "postgres://x", "JWT_SECRET": strong}))
	if err != nil || !on.AuthThrottle {
		t.Fatalf("default: %v %v", on.AuthThrottle, err)
	}
	off, err := Load(env(map[string]string{"DATABASE_URL": "postgres://x", "JWT_SECRET": strong, "AUTH_THROTTLE": "off"}))
	if err != nil || off.AuthThrottle {
		t.Fatalf("off: %v %v", off.AuthThrottle, err)
	}
	if _, err := Load(env(map[string]string{"DATABASE_URL": "postgres://x", "JWT_SECRET": strong, "AUTH_THROTTLE": "off", "APP_ENV": "production"})); err == nil {
		t.Fatal("AUTH_THROTTLE=off accepted in production")
	}
}

func TestVoiceSettings(t *testing.T) {
	base := map[string]string{"DATABASE_URL": "postgres://x", "JWT_SECRET": strings.Repeat("s", 32),
		"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_API_KEY": "llm-key", "LLM_MODEL": "m"}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	cfg, err := Load(env(with(map[string]string{"STT_MODEL": "whisper"})))
	if err != nil {
		t.Fatal(err)
	}
	v := cfg.Voice
	if v.BaseURL != "http://127.0.0.1:9/v1" || v.APIKey != "llm-key" || v.STTModel != "whisper" || v.TTSVoice != "alloy" {
		t.Fatalf("voice defaults to the LLM endpoint: %+v", v)
	}
	if v.DailySpeechChars != 6000 || v.DailyTranscribeBytes != 40<<20 || v.MaxUploads != 8 || v.MaxUploadsPerUser != 2 {
		t.Fatalf("voice limits: %+v", v)
	}
	cfg, err = Load(env(with(map[string]string{"VOICE_BASE_URL": "http://127.0.0.1:10/v1", "VOICE_API_KEY": "voice-key",
		"TTS_VOICE": "nova", "VOICE_DAILY_SPEECH_CHARS": "0", "VOICE_MAX_UPLOADS": "20", "VOICE_MAX_UPLOADS_PER_USER": "1"})))
	if err != nil {
		t.Fatal(err)
	}
	v = cfg.Voice
	if v.BaseURL != "http://127.0.0.1:10/v1" || v.APIKey != "voice-key" || v.TTSVoice != "nova" ||
		v.DailySpeechChars != 0 || v.MaxUploads != 20 || v.MaxUploadsPerUser != 1 {
		t.Fatalf("voice overrides: %+v", v)
	}
	for key, val := range map[string]string{
		"VOICE_DAILY_TRANSCRIBE_BYTES": "-1", "VOICE_DAILY_SPEECH_CHARS": "lots",
		"VOICE_MAX_UPLOADS": "0", "VOICE_MAX_UPLOADS_PER_USER": "100000",
	} {
		if _, err := Load(env(with(map[string]string{key: val}))); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s=%s: error %v, want it to name the setting", key, val, err)
		}
	}
}

func TestModelWorkLimits(t *testing.T) {
	strong := strings.Repeat("s", 32)
	base := map[string]string{"DATABASE_URL": "postgres://x", "JWT_SECRET": strong}
	cfg, err := Load(env(base))
	if err != nil || cfg.Limits != interviews.DefaultLimits() {
		t.Fatalf("defaults: %+v, %v", cfg.Limits, err)
	}
	set := map[string]string{"INTERVIEW_MAX_IN_PROGRESS": "5", "INTERVIEW_DAILY_MODEL_CALLS": "1000"}
	for k, v := range base {
		set[k] = v
	}
	cfg, err = Load(env(set))
	if err != nil || cfg.Limits.MaxInProgress != 5 || cfg.Limits.DailyCalls != 1000 || cfg.Limits.Answer != interviews.DefaultAnswer {
		t.Fatalf("set: %+v, %v", cfg.Limits, err)
	}
	set["MODEL_LIMITS"] = "off"
	if cfg, err := Load(env(set)); err != nil || cfg.Limits != (interviews.Limits{}) {
		t.Fatalf("MODEL_LIMITS=off: %+v, %v", cfg.Limits, err)
	}
	set["APP_ENV"], set["JWT_SECRET"] = "production", strings.Repeat("p", 32)
	if _, err := Load(env(set)); err == nil || !strings.Contains(err.Error(), "MODEL_LIMITS") {
		t.Fatalf("MODEL_LIMITS=off in production: %v", err)
	}
	for name, v := range map[string]string{"INTERVIEW_MAX_IN_PROGRESS": "0", "INTERVIEW_DAILY_MODEL_CALLS": "lots", "MODEL_LIMITS": "no"} {
		bad := map[string]string{name: v}
		for k, v := range base {
			bad[k] = v
		}
		if _, err := Load(env(bad)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: error %v, want one naming the setting", name, v, err)
		}
	}
}

// The start-up log names the judge's offline engine by the model it is
// asked for, not an engine the judge no longer has.
func TestScoringNote(t *testing.T) {
	note := Config{JudgeURL: "http://judge:8081"}.ScoringNote()
	if !strings.Contains(note, JudgeModelOffline) || strings.Contains(note, "lexical") {
		t.Fatalf("note %q", note)
	}
	if note := (Config{}).ScoringNote(); !strings.Contains(note, "JUDGE_URL") {
		t.Fatalf("note %q", note)
	}
}
