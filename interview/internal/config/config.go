// Package config reads the interview service's settings from the
// environment, once, into a validated struct.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/judgeworks/interview/internal/google"
	"github.com/judgeworks/shared/auth"
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
	LLMBaseURL     string
	LLMAPIKey      string
	LLMModel       string
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
}

// Judge models: the judge serves llm-latest only when it has a language
// model, and the offline engine always.
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

// LanguageModel reports whether a language-model endpoint is configured.
func (c Config) LanguageModel() bool { return c.LLMBaseURL != "" && c.LLMAPIKey != "" }

// Load reads the settings through getenv (os.Getenv in main).
func Load(getenv func(string) string) (Config, error) {
	c := Config{
		Addr:           or(getenv("INTERVIEW_ADDR"), ":8082"),
		DatabaseURL:    getenv("DATABASE_URL"),
		DataDir:        or(getenv("DATA_DIR"), ".data"),
		GoogleClientID: getenv("GOOGLE_CLIENT_ID"),
		GoogleKeysURL:  or(getenv("GOOGLE_KEYS_URL"), google.KeysURL),
		LLMBaseURL:     getenv("LLM_BASE_URL"),
		LLMAPIKey:      getenv("LLM_API_KEY"),
		LLMModel:       getenv("LLM_MODEL"),
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
	if v := getenv("DB_MAX_CONNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return c, fmt.Errorf("DB_MAX_CONNS must be 1 to 1000, got %q", v)
		}
		c.DBMaxConns = int32(n)
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
	if (c.LLMBaseURL == "") != (c.LLMAPIKey == "") {
		return c, errors.New("set both LLM_BASE_URL and LLM_API_KEY, or neither for the offline interviewer")
	}
	if err := c.loadJudge(getenv); err != nil {
		return c, err
	}
	proxies, err := ParseProxies(or(getenv("TRUSTED_PROXIES"), DefaultTrustedProxies))
	if err != nil {
		return c, err
	}
	c.TrustedProxies = proxies
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
	return c, nil
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
	if u, err := url.Parse(c.JudgeURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
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
// rubric: the judge's lexical engine measures word overlap between the answer
// and the level texts, not the quality of an answer, so its scores would
// replace meaningful ones with numbers near the middle. JUDGE_MODEL=
// local/lexical-latest scores through it anyway.
func (c Config) JudgeScores() bool { return c.JudgeURL != "" && c.JudgeModel != "" }

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
