package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/judgeworks/judge/internal/evalset"
	"github.com/judgeworks/judge/internal/limits"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// runEval is `judge eval`: it measures a model of the registry `judge
// serve` would build from the same settings, so the figures (cost
// included) are those of the served model.
func runEval(ctx context.Context, cfg config, args []string, stdout io.Writer, logger *slog.Logger) error {
	reg, err := newRegistry(cfg, logger)
	if err != nil {
		return err
	}
	return evalset.RunEval(ctx, args, served{reg, tokens.Default()}, stdout)
}

// served answers a request with the registry model it names, as the API
// does.
type served struct {
	reg   *registry.Registry
	count limits.Counter
}

func (s served) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	m, ok := s.reg.Resolve(req.Model)
	if !ok {
		var names []string
		for _, m := range s.reg.Models() {
			names = append(names, m.Name)
		}
		return nil, fmt.Errorf("unknown model %q; this judge serves %s", req.Model, strings.Join(names, ", "))
	}
	checked, err := limits.Check(req, s.count)
	if err != nil {
		return nil, err
	}
	resp, _, err := s.reg.Ask(ctx, m, checked)
	return resp, err
}
