package main

import (
	"cmp"
	"fmt"
	"math"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/judgeworks/judge/internal/api"
	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/engine/chat"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/settings"
	"github.com/redis/go-redis/v9"
)

// config is every setting of the judge, read once from the environment by
// loadConfig, checked there, and passed down; nothing below main reads the
// environment.
type config struct {
	// Addr is the listen address (JUDGE_ADDR, default :8081).
	Addr string
	// Keys are the accepted bearer keys: JUDGE_API_KEYS' (EnvKeys) and
	// those of JUDGE_KEYS_FILE (KeysFile), which serve reloads.
	Keys, EnvKeys *auth.BearerKeys
	KeysFile      string
	// RateLimitRPM is each key's limit per minute (JUDGE_RATE_LIMIT_RPM).
	RateLimitRPM int
	// RateLimitBurst is how many requests a key may send at once
	// (JUDGE_RATE_LIMIT_BURST); zero means RateLimitRPM.
	RateLimitBurst int
	// RateLimitTPM is each key's input tokens per minute (JUDGE_RATE_LIMIT_TPM).
	RateLimitTPM int
	// MaxQuestions bounds the questions of one request (JUDGE_MAX_QUESTIONS).
	MaxQuestions int
	// Redis, when REDIS_URL is set, holds the per-key state every replica
	// shares (judge/internal/store); nil keeps it in the process and a
	// file.
	Redis *redis.Options
	// RedisPrefix starts the judge's keys in Redis (JUDGE_REDIS_PREFIX).
	RedisPrefix string
	// DataDir is where a judge without Redis keeps what must survive a
	// restart: what keys spent and used (JUDGE_DATA_DIR, default
	// .data/judge under the working directory), made absolute once here.
	DataDir string
	// CacheTTL is how long the answer cache reuses an answer
	// (JUDGE_CACHE_TTL); zero turns it off.
	CacheTTL time.Duration
	// CacheShared lets every key read every key's cached answers
	// (JUDGE_CACHE_SHARED); otherwise each key has its own.
	CacheShared bool
	// WeakKeys, when set, says which key breaks the rule for keys of a judge
	// with a language model or in production; serve refuses to start.
	WeakKeys error
	// Prices override models' USD prices per million input tokens
	// (JUDGE_MODEL_PRICES, "model=price,model=price").
	Prices map[string]float64
	// Aliases are operators' names for models, alias → model (exact name
	// or alias), in the order given: the models file's aliases, then
	// JUDGE_MODEL_ALIASES ("alias=model,…"), which wins for a name both
	// give. jev-latest, unless named here, is the default model's.
	Aliases []alias
	// LLM is the language-model endpoint (LLM_*). Not Configured means the
	// offline engines only; Configured means valid, or loadConfig fails.
	LLM chatmodel.Settings
	// LLMAPI is what the LLM_* provider speaks (LLM_API): chat (the
	// default), systemone (LLM_BASE_URL is the service's base address) or
	// decisions.
	LLMAPI string
	// ModelsFile is JUDGE_MODELS_FILE; Models are its entries, read and
	// checked once here, each provider's key read from the variable it
	// names.
	ModelsFile string
	Models     []modelEntry
	// FileAliases are the models file's aliases: (alias: model).
	FileAliases []alias
	// Adapter shapes the language model's answers (JUDGE_LLM_*).
	Adapter adapterConfig
	// CalibrationFile is loaded at start-up (JUDGE_CALIBRATION_FILE); empty
	// means uncalibrated. `judge calibrate` writes there by default.
	CalibrationFile string
}

// adapterConfig holds the chat adapter's JUDGE_LLM_* settings. `judge
// serve` and `judge calibrate` both build their adapter from it (see
// adapterOptions): a calibration is only valid for answers read the way it
// was fitted.
type adapterConfig struct {
	Readout chatadapter.ReadoutMode // JUDGE_LLM_READOUT
	// Rotations of the option order (JUDGE_LLM_ROTATIONS; 1 is off).
	Rotations int
	// Choice says how choice questions are asked (JUDGE_LLM_CHOICE):
	// all options in one call, or each alone.
	Choice chatadapter.ChoiceMode
	// Concurrency bounds the chat calls in flight (JUDGE_LLM_CONCURRENCY);
	// Queue bounds the calls waiting for a slot: a request whose calls
	// would take them past it is refused with 529 (JUDGE_LLM_QUEUE).
	Concurrency, Queue int
	// MaxWait is the longest estimated wait for upstream slots a request
	// is admitted with; beyond it, 529 at once (JUDGE_LLM_MAX_WAIT).
	MaxWait time.Duration
	// Timeout bounds the model's work for one request (JUDGE_LLM_TIMEOUT).
	Timeout time.Duration
	// Structured asks for a strict JSON schema in the probabilities
	// readout (JUDGE_LLM_STRUCTURED_OUTPUTS).
	Structured bool
}

// defaultDataDir is JUDGE_DATA_DIR's default, under the working directory.
const defaultDataDir = ".data/judge"

func loadConfig(getenv func(string) string) (config, error) {
	cfg := config{
		Addr:            strings.TrimSpace(getenv("JUDGE_ADDR")),
		RateLimitRPM:    1200,
		RateLimitTPM:    15_000_000,
		MaxQuestions:    api.DefaultMaxQuestions,
		RedisPrefix:     "judge:",
		Prices:          map[string]float64{},
		LLM:             chatmodel.FromEnv(getenv),
		LLMAPI:          strings.TrimSpace(getenv("LLM_API")),
		ModelsFile:      strings.TrimSpace(getenv("JUDGE_MODELS_FILE")),
		CalibrationFile: strings.TrimSpace(getenv("JUDGE_CALIBRATION_FILE")),
	}
	if cfg.Addr == "" {
		cfg.Addr = ":8081"
	}
	dataDir, err := filepath.Abs(cmp.Or(strings.TrimSpace(getenv("JUDGE_DATA_DIR")), defaultDataDir))
	if err != nil {
		return cfg, fmt.Errorf("JUDGE_DATA_DIR: %w", err)
	}
	cfg.DataDir = dataDir
	if _, _, err := net.SplitHostPort(cfg.Addr); err != nil {
		return cfg, fmt.Errorf("JUDGE_ADDR %q: want host:port or :port", cfg.Addr)
	}
	keys, err := auth.ParseBearerKeys(getenv("JUDGE_API_KEYS"))
	if err != nil {
		return cfg, fmt.Errorf("JUDGE_API_KEYS: %w", err)
	}
	cfg.Keys, cfg.EnvKeys = keys, keys
	if cfg.KeysFile = strings.TrimSpace(getenv("JUDGE_KEYS_FILE")); cfg.KeysFile != "" {
		if cfg.Keys, err = auth.LoadKeys(cfg.KeysFile, keys); err != nil {
			return cfg, err
		}
	}
	if cfg.RateLimitRPM, err = settings.Whole(getenv, "JUDGE_RATE_LIMIT_RPM", cfg.RateLimitRPM, 1, math.MaxInt); err != nil {
		return cfg, err
	}
	if err := limitsFromEnv(getenv, &cfg); err != nil {
		return cfg, err
	}
	if s := strings.TrimSpace(getenv("JUDGE_MODEL_PRICES")); s != "" {
		for item := range strings.SplitSeq(s, ",") {
			name, price, ok := strings.Cut(strings.TrimSpace(item), "=")
			usd, err := strconv.ParseFloat(strings.TrimSpace(price), 64)
			if !ok || err != nil || usd < 0 || strings.TrimSpace(name) == "" {
				return cfg, fmt.Errorf("JUDGE_MODEL_PRICES item %q: want model=USD per million input tokens", item)
			}
			cfg.Prices[strings.TrimSpace(name)] = usd
		}
	}
	// One rule in both services: a base URL or a key means a language model
	// is wanted, and then every LLM_* setting must be right.
	if cfg.LLM.Configured() {
		if err := cfg.LLM.Validate(); err != nil {
			return cfg, err
		}
	}
	switch cfg.LLMAPI {
	case "":
		cfg.LLMAPI = apiChat
	case apiChat, apiSystemOne, apiDecisions:
	default:
		return cfg, fmt.Errorf("LLM_API %q: want %s", cfg.LLMAPI, strings.Join(apis, ", "))
	}
	if cfg.ModelsFile != "" {
		if cfg.Models, cfg.FileAliases, err = loadModels(cfg.ModelsFile, getenv); err != nil {
			return cfg, err
		}
	}
	if cfg.Adapter, err = loadAdapterConfig(getenv); err != nil {
		return cfg, err
	}
	env, err := parseAliases(getenv("JUDGE_MODEL_ALIASES"))
	if err != nil {
		return cfg, err
	}
	cfg.Aliases = mergeAliases(cfg.FileAliases, env)
	return cfg, nil
}

// alias is one operator's name for a model.
type alias struct{ Name, Model string }

// parseAliases reads JUDGE_MODEL_ALIASES: "alias=model,…".
func parseAliases(s string) ([]alias, error) {
	var out []alias
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for item := range strings.SplitSeq(s, ",") {
		name, model, ok := strings.Cut(strings.TrimSpace(item), "=")
		name, model = strings.TrimSpace(name), strings.TrimSpace(model)
		if !ok || name == "" || model == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("JUDGE_MODEL_ALIASES item %q: want alias=model (an exact model name or an alias)", item)
		}
		out = append(out, alias{name, model})
	}
	return out, nil
}

// mergeAliases lists file's aliases, then env's; a name in both takes
// env's model, in env's place.
func mergeAliases(file, env []alias) []alias {
	inEnv := map[string]bool{}
	for _, a := range env {
		inEnv[a.Name] = true
	}
	var out []alias
	for _, a := range file {
		if !inEnv[a.Name] {
			out = append(out, a)
		}
	}
	return append(out, env...)
}

func loadAdapterConfig(getenv func(string) string) (adapterConfig, error) {
	a := adapterConfig{
		Readout:     chatadapter.ReadoutAuto,
		Rotations:   1,
		Choice:      chatadapter.ChoiceJoint,
		Concurrency: chat.DefaultConcurrency,
		Queue:       chat.DefaultQueue,
		MaxWait:     chat.DefaultMaxWait,
		Timeout:     chatadapter.DefaultRequestTimeout,
		Structured:  true,
	}
	if v := strings.TrimSpace(getenv("JUDGE_LLM_READOUT")); v != "" {
		switch m := chatadapter.ReadoutMode(v); m {
		case chatadapter.ReadoutAuto, chatadapter.ReadoutLogprobs, chatadapter.ReadoutProbabilities:
			a.Readout = m
		default:
			return a, fmt.Errorf("JUDGE_LLM_READOUT %q: want auto, logprobs or probabilities", v)
		}
	}
	if v := strings.TrimSpace(getenv("JUDGE_LLM_CHOICE")); v != "" {
		switch m := chatadapter.ChoiceMode(v); m {
		case chatadapter.ChoiceJoint, chatadapter.ChoiceApart:
			a.Choice = m
		default:
			return a, fmt.Errorf("JUDGE_LLM_CHOICE %q: want joint or apart", v)
		}
	}
	var err error
	if a.Rotations, err = settings.Whole(getenv, "JUDGE_LLM_ROTATIONS", a.Rotations, 1, math.MaxInt); err != nil {
		return a, err
	}
	if a.Concurrency, err = settings.Whole(getenv, "JUDGE_LLM_CONCURRENCY", a.Concurrency, 1, math.MaxInt); err != nil {
		return a, err
	}
	if a.Queue, err = settings.Whole(getenv, "JUDGE_LLM_QUEUE", a.Queue, 0, math.MaxInt); err != nil {
		return a, err
	}
	// 0: only what can start at once.
	if a.MaxWait, err = settings.Duration(getenv, "JUDGE_LLM_MAX_WAIT", a.MaxWait, 0); err != nil {
		return a, err
	}
	if a.Timeout, err = settings.Duration(getenv, "JUDGE_LLM_TIMEOUT", a.Timeout, time.Millisecond); err != nil {
		return a, err
	}
	if a.Structured, err = settings.Bool(getenv, "JUDGE_LLM_STRUCTURED_OUTPUTS", a.Structured); err != nil {
		return a, err
	}
	return a, nil
}

// port is the port of Addr, for the health check.
func (c config) port() string {
	_, p, _ := net.SplitHostPort(c.Addr)
	return p
}
