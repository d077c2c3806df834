package main

import (
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/judge/internal/semantic"
	"github.com/judgeworks/shared/wordvec"
)

// addSemantic registers the word-vector engine, the default offline model.
// Its first use of wordvec.Default decodes the embedded vectors (tens of
// milliseconds, see docs/semantic.md), so the judge pays that at start-up
// rather than on its first request.
func addSemantic(reg *registry.Registry) error {
	e, err := semantic.New(wordvec.Default())
	if err != nil {
		return err
	}
	return reg.Add(registry.Model{
		Name:        semantic.Name,
		Aliases:     []string{semantic.Alias},
		Description: semantic.Description,
		ReleaseDate: semantic.ReleaseDate,
		Backend:     e,
	})
}
