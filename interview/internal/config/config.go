// Package config reads the interview service's settings from the
// environment, once, into a validated struct.
package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/judgeworks/interview/internal/auth"
	"github.com/judgeworks/interview/internal/google"
	"github.com/judgeworks/interview/internal/interviews"
	"github.com/judgeworks/interview/internal/voice"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/settings"
)

// Config is every setting of the service.
type Config struct {
	Addr        string
	DatabaseURL string
	// DBMaxConns bounds the connection pool (DB_MAX_CONNS, default
	// DefaultDBMaxConns).
	DBMaxConns int32
	Production bool
	// DataDir holds development state such as the generated JWT secret.
	DataDir        string
	JWTSecret      []byte
	GoogleClientID string
	GoogleKeysURL  string
	// LLM is the interviewer's language model (LLM_BASE_URL, LLM_API_KEY,
	// LLM_MODEL); not Configured: the offline practice mode. The rule is the
	// judge's, so one .env never makes one service refuse to start while the
	// other silently runs offline.
	LLM chatmodel.Settings
	// JudgeURL, when set, scores answers through the judge (JUDGE_URL),
	// with JudgeAPIKey (JUDGE_API_KEY) and JudgeModel (JUDGE_MODEL).
	JudgeURL    string
	JudgeAPIKey string
	JudgeModel  string
	// TrustedProxies are the peers whose X-Forwarded-For names the client
	// (TRUSTED_PROXIES).
	TrustedProxies []*net.IPNet
	// AuthThrottle turns the sign-in and registration limits on
	// (AUTH_THROTTLE, default on; off only outside production).
	AuthThrottle bool
	// Voice is the voice endpoints' part (see loadVoice).
	Voice voice.Config
	// Limits bound each user's model work: the default token buckets, at
	// most INTERVIEW_MAX_IN_PROGRESS interviews in progress (default 3) and
	// INTERVIEW_DAILY_MODEL_CALLS interviewer calls a day (default 200).
	// MODEL_LIMITS=off (refused in production) lifts them all, for load
	// programs that run one user as fast as it goes.
	Limits interviews.Limits
}

// Judge models: the judge serves llm-latest only when it has a language
// model, and its offline engines always (local/semantic-latest the
// default of them).
const (
	JudgeModelLLM     = "llm-latest"
	JudgeModelOffline = "local/semantic-latest"
)

// DefaultTrustedProxies trusts a proxy on the same host (Caddy in make run).
const DefaultTrustedProxies = "loopback"

// proxyKeywords name common ranges in TRUSTED_PROXIES.
var proxyKeywords = map[string][]string{
	"loopback": {"127.0.0.0/8", "::1/128"},
	"private":  {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"},
}

// DefaultDBMaxConns is twice the usable CPUs, at least 8. Connections are
// held only for single queries (never across a model call), so a small pool
// keeps up; a large one mostly adds lock and CPU contention in Postgres.
func DefaultDBMaxConns() int32 {
	return int32(max(8, 2*runtime.GOMAXPROCS(0)))
}

// LanguageModel reports whether a language-model endpoint is configured;
// Load has then validated every LLM_* setting.
func (c Config) LanguageModel() bool { return c.LLM.Configured() }

// Load reads the settings through getenv (os.Getenv in main).
func Load(getenv func(string) string) (Config, error) {
	c := Config{
		Addr:           or(getenv("INTERVIEW_ADDR"), ":8082"),
		DatabaseURL:    getenv("DATABASE_URL"),
		DataDir:        or(getenv("DATA_DIR"), ".data"),
		GoogleClientID: getenv("GOOGLE_CLIENT_ID"),
		GoogleKeysURL:  or(getenv("GOOGLE_KEYS_URL"), google.KeysURL),
		LLM:            chatmodel.FromEnv(getenv),
		DBMaxConns:     DefaultDBMaxConns(),
	}
	switch env := getenv("APP_ENV"); env {
	case "production":
		c.Production = true
	case "", "development", "dev", "test":
	default:
		return c, fmt.Errorf("APP_ENV must be production or development, got %q", env)
	}
	if c.DatabaseURL == "" {
		return c, errors.New("DATABASE_URL is required")
	}
	var err error
	if c.DBMaxConns, err = settings.Whole(getenv, "DB_MAX_CONNS", c.DBMaxConns, 1, 1000); err != nil {
		return c, err
	}
	secret := getenv("JWT_SECRET")
	switch {
	case secret != "" && c.Production && len(secret) < auth.MinSecretBytes:
		return c, fmt.Errorf("JWT_SECRET must be at least %d bytes in production", auth.MinSecretBytes)
	case secret != "":
		c.JWTSecret = []byte(secret)
	case c.Production:
		return c, errors.New("JWT_SECRET is required when APP_ENV=production")
	default:
		s, err := auth.LoadOrCreateSecret(filepath.Join(c.DataDir, "jwt-secret"))
		if err != nil {
			return c, fmt.Errorf("development JWT secret: %w", err)
		}
		c.JWTSecret = s
	}
	if c.LLM.Configured() {
		if err := c.LLM.Validate(); err != nil {
			return c, fmt.Errorf("language model: %w; or unset %s and %s for the offline interviewer", err, chatmodel.EnvBaseURL, chatmodel.EnvAPIKey)
		}
	}
	if err := c.loadJudge(getenv); err != nil {
		return c, err
	}
	proxies, err := ParseProxies(or(getenv("TRUSTED_PROXIES"), DefaultTrustedProxies))
	if err != nil {
		return c, err
	}
	c.TrustedProxies = proxies
	c.Limits = interviews.DefaultLimits()
	if c.Limits.MaxInProgress, err = settings.Whole(getenv, "INTERVIEW_MAX_IN_PROGRESS", c.Limits.MaxInProgress, 1, 100); err != nil {
		return c, err
	}
	if c.Limits.DailyCalls, err = settings.Whole(getenv, "INTERVIEW_DAILY_MODEL_CALLS", c.Limits.DailyCalls, 1, 1_000_000); err != nil {
		return c, err
	}
	switch v := getenv("MODEL_LIMITS"); v {
	case "", "on":
	case "off":
		if c.Production {
			return c, errors.New("MODEL_LIMITS=off is refused when APP_ENV=production")
		}
		c.Limits = interviews.Limits{}
	default:
		return c, fmt.Errorf("MODEL_LIMITS must be on or off, got %q", v)
	}
	switch v := getenv("AUTH_THROTTLE"); v {
	case "", "on":
		c.AuthThrottle = true
	case "off":
		if c.Production {
			return c, errors.New("AUTH_THROTTLE=off is refused when APP_ENV=production")
		}
	default:
		return c, fmt.Errorf("AUTH_THROTTLE must be on or off, got %q", v)
	}
	if err := c.loadVoice(getenv); err != nil {
		return c, err
	}
	return c, nil
}

// loadVoice reads the voice settings. VOICE_BASE_URL and VOICE_API_KEY
// override LLM_BASE_URL and LLM_API_KEY, so speech can use another provider
// than the interviewer's chat model. Offline speech uses espeak-ng when it
// is on the PATH.
func (c *Config) loadVoice(getenv func(string) string) error {
	v := voice.Config{
		BaseURL:              or(getenv("VOICE_BASE_URL"), c.LLM.BaseURL),
		APIKey:               or(getenv("VOICE_API_KEY"), c.LLM.APIKey),
		STTModel:             getenv("STT_MODEL"),
		TTSModel:             getenv("TTS_MODEL"),
		TTSVoice:             or(getenv("TTS_VOICE"), voice.DefaultTTSVoice),
		DailySpeechChars:     voice.DefaultDailySpeechChars,
		DailyTranscribeBytes: voice.DefaultDailyTranscribeBytes,
		MaxUploads:           voice.DefaultMaxUploads,
		MaxUploadsPerUser:    voice.DefaultMaxUploadsPerUser,
	}
	if p, err := exec.LookPath("espeak-ng"); err == nil {
		v.EspeakPath = p
	}
	var err error
	if v.DailySpeechChars, err = settings.Whole(getenv, "VOICE_DAILY_SPEECH_CHARS", v.DailySpeechChars, 0, math.MaxInt64); err != nil {
		return err
	}
	if v.DailyTranscribeBytes, err = settings.Whole(getenv, "VOICE_DAILY_TRANSCRIBE_BYTES", v.DailyTranscribeBytes, 0, math.MaxInt64); err != nil {
		return err
	}
	if v.MaxUploads, err = settings.Whole(getenv, "VOICE_MAX_UPLOADS", v.MaxUploads, 1, 10_000); err != nil {
		return err
	}
	if v.MaxUploadsPerUser, err = settings.Whole(getenv, "VOICE_MAX_UPLOADS_PER_USER", v.MaxUploadsPerUser, 1, 10_000); err != nil {
		return err
	}
	c.Voice = v
	return nil
}

// loadJudge reads the judge settings. The model defaults to the judge's
// language model when this service has LLM settings (compose and make run
// give both services the same ones); otherwise it is empty unless
// JUDGE_MODEL names one (see JudgeScores).
func (c *Config) loadJudge(getenv func(string) string) error {
	c.JudgeURL, c.JudgeAPIKey = getenv("JUDGE_URL"), getenv("JUDGE_API_KEY")
	if c.JudgeURL == "" {
		return nil
	}
	if !settings.IsHTTPURL(c.JudgeURL) {
		return fmt.Errorf("JUDGE_URL must be an absolute http(s) URL, got %q", c.JudgeURL)
	}
	if c.JudgeAPIKey == "" {
		return errors.New("JUDGE_URL is set without JUDGE_API_KEY; the judge would refuse every request")
	}
	c.JudgeModel = getenv("JUDGE_MODEL")
	if c.JudgeModel == "" && c.LanguageModel() {
		c.JudgeModel = JudgeModelLLM
	}
	return nil
}

// JudgeScores reports whether answers are scored through the judge: JUDGE_URL
// is set and a judge model is chosen, explicitly or because this service has
// LLM settings. Without a language model the default stays the offline
// rubric: the judge's offline engine (JudgeModelOffline) compares the
// answer's words with the level texts, not the quality of an answer, so
// its scores would replace meaningful ones with numbers near the middle.
// JUDGE_MODEL=local/semantic-latest scores through it anyway.
func (c Config) JudgeScores() bool { return c.JudgeURL != "" && c.JudgeModel != "" }

// ScoringNote says, for the start-up log, how answers are scored when not
// through the judge.
func (c Config) ScoringNote() string {
	if c.JudgeURL != "" {
		return "answers scored by the offline rubric: the judge has no language model here; set JUDGE_MODEL=" +
			JudgeModelOffline + " to score through its offline engine anyway"
	}
	return "answers scored by the interviewer; set JUDGE_URL to score them through the judge"
}

// ParseProxies reads a comma-separated list of addresses, CIDR ranges and
// the keywords loopback and private; "none" trusts no proxy.
func ParseProxies(v string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		cidrs := proxyKeywords[item]
		switch {
		case item == "" || item == "none":
			continue
		case cidrs != nil:
		case strings.Contains(item, "/"):
			cidrs = []string{item}
		default:
			ip := net.ParseIP(item)
			if ip == nil {
				return nil, fmt.Errorf("TRUSTED_PROXIES: %q is not an address, a CIDR range, loopback, private or none", item)
			}
			bits := 8 * len(ip.To16())
			if ip.To4() != nil {
				ip, bits = ip.To4(), 32
			}
			out = append(out, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
			continue
		}
		for _, s := range cidrs {
			_, n, err := net.ParseCIDR(s)
			if err != nil {
				return nil, fmt.Errorf("TRUSTED_PROXIES: %q is not an address, a CIDR range, loopback, private or none", item)
			}
			out = append(out, n)
		}
	}
	return out, nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
