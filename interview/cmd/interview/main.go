// Command interview serves the mock-interview application: accounts,
// interview sessions, reports and history, and the built web client.
//
// `interview healthcheck` asks a running instance for /healthz and exits 0
// or 1, for container health checks.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/account"
	"github.com/judgeworks/interview/internal/auth"
	"github.com/judgeworks/interview/internal/config"
	"github.com/judgeworks/interview/internal/google"
	"github.com/judgeworks/interview/internal/httpapi"
	"github.com/judgeworks/interview/internal/interviewer/llm"
	"github.com/judgeworks/interview/internal/interviewer/offline"
	"github.com/judgeworks/interview/internal/interviews"
	"github.com/judgeworks/interview/internal/postgres"
	"github.com/judgeworks/interview/internal/scorer"
	"github.com/judgeworks/interview/internal/throttle"
	"github.com/judgeworks/interview/internal/voice"
	"github.com/judgeworks/interview/web"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/server"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tracing"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "healthcheck" {
		os.Exit(healthcheck(os.Getenv("INTERVIEW_ADDR")))
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if err := run(context.Background(), logger); err != nil {
		logger.Error("interview stopped", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, logger *slog.Logger) error {
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		return err
	}
	stopTracing, err := tracing.Setup(ctx, "interview", os.Getenv, logger)
	if err != nil {
		return err
	}
	defer stopTracing()
	pool, err := postgres.OpenMigrated(ctx, cfg.DatabaseURL, cfg.DBMaxConns)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := postgres.NewStore(pool)

	tokens, err := auth.NewTokens(cfg.JWTSecret, "interview", auth.DefaultTokenTTL, nil)
	if err != nil {
		return err
	}
	var verifier interview.GoogleVerifier
	if cfg.GoogleClientID != "" {
		verifier = google.NewVerifier(cfg.GoogleClientID, cfg.GoogleKeysURL, nil, nil)
	}
	iv, err := pickInterviewer(cfg)
	if err != nil {
		return err
	}
	logger.Info("interviewer", "mode", iv.Mode())
	var families []string
	var fallback string
	if off, ok := iv.(*offline.Interviewer); ok {
		families, fallback = off.Families()
	}
	var judge *scorer.Judge
	switch {
	case cfg.JudgeScores():
		judge = scorer.NewJudge(judgeClient(cfg), cfg.JudgeModel, scorer.DefaultTimeout)
		logger.Info("answers scored by the judge", "judge", cfg.JudgeURL, "model", cfg.JudgeModel)
	default:
		logger.Info(cfg.ScoringNote())
	}
	var limits *throttle.Auth
	if cfg.AuthThrottle {
		limits = throttle.NewAuth(postgres.NewBuckets(pool), postgres.NewKnownDevices(pool), throttle.DefaultRules)
	} else {
		logger.Warn("sign-in and registration limits are off (AUTH_THROTTLE=off)")
	}

	if cfg.Limits == (interviews.Limits{}) {
		logger.Warn("per-user limits on model work are off (MODEL_LIMITS=off)")
	}

	vsvc := voice.New(cfg.Voice, postgres.NewVoiceAllowance(pool), nil)
	logger.Info("voice", "mode", vsvc.Describe())

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	e := httpapi.New(httpapi.Deps{
		Logger:         logger,
		Accounts:       account.NewService(store, verifier),
		Interviews:     interviews.NewService(store, iv, judge, cfg.Limits),
		Tokens:         tokens,
		SecureCookies:  cfg.Production,
		GoogleClientID: cfg.GoogleClientID,
		Ready:          pool.Ping,
		Registry:       reg,
		Voice:          vsvc,
		Throttle:       limits,
		TrustedProxies: cfg.TrustedProxies,
		SharedLookups:  throttle.NewLookups(postgres.NewBuckets(pool), throttle.DefaultLookupRule),
		RoleFamilies:   families,
		FallbackFamily: fallback,
	})
	web.Register(e)
	return server.Run(ctx, e, cfg.Addr, logger)
}

// pickInterviewer returns the language-model interviewer when a model is
// configured (config.Load has validated its settings), else the offline
// practice mode.
func pickInterviewer(cfg config.Config) (interview.Interviewer, error) {
	if !cfg.LanguageModel() {
		return offline.New(), nil
	}
	client, err := chatmodel.NewClient(cfg.LLM)
	if err != nil {
		return nil, err
	}
	return llm.New(client, cfg.LLM.Model), nil
}

// judgeClient is the System One client for scoring. Attempts are short and
// few: a person waits on the answer, and scorer.DefaultTimeout bounds the
// whole call anyway.
func judgeClient(cfg config.Config) *systemone.Client {
	return systemone.NewClient(
		systemone.WithBaseURL(cfg.JudgeURL),
		systemone.WithAPIKey(cfg.JudgeAPIKey),
		systemone.WithMaxAttempts(3),
		systemone.WithAttemptTimeout(30*time.Second),
		systemone.WithMaxRetryWait(10*time.Second),
		systemone.WithHTTPClient(&http.Client{Transport: tracing.Transport(http.DefaultTransport)}),
	)
}

// healthcheck returns 0 when the service on addr answers /healthz with 200.
func healthcheck(addr string) int {
	if addr == "" {
		addr = ":8082"
	}
	host := addr
	if strings.HasPrefix(host, ":") {
		host = "127.0.0.1" + host
	}
	client := &http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get("http://" + host + "/healthz")
	if err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, "healthcheck: status", resp.StatusCode)
		return 1
	}
	return 0
}
