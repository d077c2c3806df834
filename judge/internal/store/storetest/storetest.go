// Package storetest holds what every store.Store driver must do, as one
// table of behaviours: each row one law, every driver runs every row (Run)
// on a store of its own. A new law is one more row; a new driver one more
// call of Run. The laws run on the real clock, as Redis keeps time by its
// own: each asserts a bound that holds however slowly a busy machine runs
// it.
package storetest

import (
	"context"
	"testing"

	"github.com/judgeworks/judge/internal/store"
)

var bg = context.Background()

// law is one behaviour every driver has.
type law struct {
	name string
	run  func(t *testing.T, s store.Store)
}

// Run runs every law, each on a fresh store from open.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	for _, table := range [][]law{spending, buckets, answers} {
		for _, l := range table {
			t.Run(l.name, func(t *testing.T) {
				l.run(t, open(t))
			})
		}
	}
}
