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

	"github.com/judgeworks/interview/internal/account"
	"github.com/judgeworks/interview/internal/config"
	"github.com/judgeworks/interview/internal/google"
	"github.com/judgeworks/interview/internal/httpapi"
	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/interviewer/llm"
	"github.com/judgeworks/interview/internal/interviewer/offline"
	"github.com/judgeworks/interview/internal/interviews"
	"github.com/judgeworks/interview/internal/postgres"
	"github.com/judgeworks/interview/internal/voice"
	"github.com/judgeworks/interview/web"
	"github.com/judgeworks/shared/auth"
	sharedllm "github.com/judgeworks/shared/llm"
	"github.com/judgeworks/shared/server"
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
	pool, err := postgres.Open(ctx, cfg.DatabaseURL, cfg.DBMaxConns)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := postgres.Migrate(ctx, pool); err != nil {
		return err
	}
	store := postgres.NewStore(pool)

	tokens, err := auth.NewTokens(cfg.JWTSecret, "interview", auth.DefaultTokenTTL, nil)
	if err != nil {
		return err
	}
	var verifier account.GoogleVerifier
	if cfg.GoogleClientID != "" {
		verifier = google.NewVerifier(cfg.GoogleClientID, cfg.GoogleKeysURL, nil, nil)
	}
	iv := pickInterviewer(cfg, logger)
	logger.Info("interviewer", "mode", iv.Mode())

	vcfg, err := voice.LoadConfig(os.Getenv)
	if err != nil {
		return err
	}
	vsvc := voice.New(vcfg, voice.NewUsage(pool), nil)
	logger.Info("voice", "mode", vsvc.Describe())
	transcribe, speech := vsvc.Features()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	e, api := httpapi.New(httpapi.Deps{
		Logger:         logger,
		Accounts:       account.NewService(store, verifier),
		Interviews:     interviews.NewService(store, iv, nil),
		Tokens:         tokens,
		SecureCookies:  cfg.Production,
		GoogleClientID: cfg.GoogleClientID,
		Ready:          pool.Ping,
		Registry:       reg,
		Voice:          httpapi.Voice{Transcribe: transcribe, Speech: speech},
	})
	voice.NewHandler(vsvc, api.UserID).Register(e)
	web.Register(e)
	return server.Run(ctx, e, cfg.Addr, logger)
}

// pickInterviewer returns the language-model interviewer when an endpoint is
// configured, else the offline practice mode.
func pickInterviewer(cfg config.Config, logger *slog.Logger) interviewer.Interviewer {
	if cfg.LanguageModel() {
		client, err := sharedllm.NewClient(sharedllm.Settings{BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey, Model: cfg.LLMModel})
		if err == nil {
			return llm.New(client, cfg.LLMModel)
		}
		logger.Warn("LLM settings incomplete; using the offline mode", "err", err)
	}
	return offline.New()
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
