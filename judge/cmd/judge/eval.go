package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/judgeworks/judge/internal/evalset"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// runEval is `judge eval`: it measures a model of the registry `judge
// serve` would build from the same settings, so the figures (cost
// included) are those of the served model.
func runEval(ctx context.Context, cfg config, args []string, stdout io.Writer, logger *slog.Logger) error {
	reg, err := newRegistry(cfg, tokens.Default(), logger)
	if err != nil {
		return err
	}
	return evalset.RunEval(ctx, args, served{reg}, stdout)
}

// served answers a request with the registry model it names, as the API
// does.
type served struct{ reg *registry.Registry }

func (s served) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	m, ok := s.reg.Resolve(req.Model)
	if !ok {
		var names []string
		for _, m := range s.reg.Models() {
			names = append(names, m.Name)
		}
		return nil, fmt.Errorf("unknown model %q; this judge serves %s", req.Model, strings.Join(names, ", "))
	}
	return s.reg.Ask(ctx, m, req)
}
