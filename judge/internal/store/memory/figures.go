package memory

import (
	"context"
	"sync"

	"github.com/judgeworks/judge/internal/store"
)

// figures are what keys spent and used in the newest day and month
// written.
type figures struct {
	mu         sync.Mutex
	day, month *period
}

// period is one period's figures: key → nano-dollars, and key → model →
// counts.
type period struct {
	name  string
	spent map[string]int64
	use   map[string]map[string]*store.Counts
}

func newPeriod(name string) *period {
	return &period{name: name, spent: map[string]int64{}, use: map[string]map[string]*store.Counts{}}
}

// kept is where the period of the kind named (day or month) is held.
func (f *figures) kept(month bool) **period {
	if month {
		return &f.month
	}
	return &f.day
}

// periods are the figures of at's day and month, or nil for a period that
// has none. For a write, a period newer than the one kept replaces it, and
// one older is nil (the write is dropped). The caller holds f.mu.
func (f *figures) periods(at store.Periods, write bool) [2]*period {
	var out [2]*period
	for i, name := range [2]string{at.Day, at.Month} {
		kept := f.kept(i == 1)
		switch p := *kept; {
		case p.name == name:
			out[i] = p
		case write && p.name < name:
			*kept = newPeriod(name)
			out[i] = *kept
		}
	}
	return out
}

func (m *Store) Reserve(_ context.Context, key string, at store.Periods, amount int64, limits store.Amounts) (store.Amounts, bool, error) {
	f := &m.figures
	f.mu.Lock()
	defer f.mu.Unlock()
	ps := f.periods(at, true)
	before := store.Amounts{Day: spentIn(ps[0], key), Month: spentIn(ps[1], key)}
	fits := (limits.Day < 0 || before.Day+amount <= limits.Day) && (limits.Month < 0 || before.Month+amount <= limits.Month)
	if !fits {
		return before, false, nil
	}
	addSpent(ps, key, amount)
	return before, true, nil
}

func (m *Store) AddSpent(_ context.Context, key string, at store.Periods, delta int64) error {
	f := &m.figures
	f.mu.Lock()
	defer f.mu.Unlock()
	addSpent(f.periods(at, true), key, delta)
	return nil
}

func (m *Store) Spent(_ context.Context, key string, at store.Periods) (store.Amounts, error) {
	f := &m.figures
	f.mu.Lock()
	defer f.mu.Unlock()
	ps := f.periods(at, false)
	return store.Amounts{Day: spentIn(ps[0], key), Month: spentIn(ps[1], key)}, nil
}

func spentIn(p *period, key string) int64 {
	if p == nil {
		return 0
	}
	return p.spent[key]
}

func addSpent(ps [2]*period, key string, delta int64) {
	for _, p := range ps {
		if p != nil {
			p.spent[key] += delta
		}
	}
}

func (m *Store) AddUse(_ context.Context, key string, at store.Periods, model string, c store.Counts) error {
	f := &m.figures
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.periods(at, true) {
		if p != nil {
			p.counts(key, model).Add(c)
		}
	}
	return nil
}

// counts are key's counts of model in p, created empty if missing.
func (p *period) counts(key, model string) *store.Counts {
	byModel := p.use[key]
	if byModel == nil {
		byModel = map[string]*store.Counts{}
		p.use[key] = byModel
	}
	c := byModel[model]
	if c == nil {
		c = &store.Counts{}
		byModel[model] = c
	}
	return c
}

func (m *Store) Use(_ context.Context, key string, at store.Periods) (day, month map[string]store.Counts, err error) {
	f := &m.figures
	f.mu.Lock()
	defer f.mu.Unlock()
	var out [2]map[string]store.Counts
	for i, p := range f.periods(at, false) {
		out[i] = map[string]store.Counts{}
		if p == nil {
			continue
		}
		for model, c := range p.use[key] {
			out[i][model] = *c
		}
	}
	return out[0], out[1], nil
}

// Figure names one figure: a key's spending (Model empty) or its use of
// Model, in the day (Month false) or the month named Period. The file
// driver keeps figures on disk by these names.
type Figure struct {
	Month              bool
	Period, Key, Model string
}

// Figure is fig as held now; ok is false when its period is no longer the
// newest of its kind, and the figure is gone.
func (m *Store) Figure(fig Figure) (spent int64, use store.Counts, ok bool) {
	f := &m.figures
	f.mu.Lock()
	defer f.mu.Unlock()
	p := *f.kept(fig.Month)
	if p.name != fig.Period {
		return 0, store.Counts{}, false
	}
	if fig.Model == "" {
		return p.spent[fig.Key], store.Counts{}, true
	}
	if c := p.use[fig.Key][fig.Model]; c != nil {
		return 0, *c, true
	}
	return 0, store.Counts{}, true
}

// SetFigure sets fig to spent (a spending) or use (a use), for a driver
// that loads figures it kept. A period newer than the one held of its
// kind replaces it; a figure of an older one is dropped.
func (m *Store) SetFigure(fig Figure, spent int64, use store.Counts) {
	f := &m.figures
	f.mu.Lock()
	defer f.mu.Unlock()
	kept := f.kept(fig.Month)
	if (*kept).name < fig.Period {
		*kept = newPeriod(fig.Period)
	}
	p := *kept
	if p.name != fig.Period {
		return
	}
	if fig.Model == "" {
		p.spent[fig.Key] = spent
		return
	}
	*p.counts(fig.Key, fig.Model) = use
}
