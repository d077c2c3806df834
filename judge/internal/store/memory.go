package store

import (
	"context"
	"sync"
)

// Memory is a Store in the process. The zero value is not ready: use
// NewMemory.
type Memory struct {
	mu sync.Mutex
	// day and month are the newest period of each kind written.
	day, month *memPeriod
}

// memPeriod is one period's figures: key → nano-dollars, and key → model →
// counts.
type memPeriod struct {
	name  string
	spent map[string]int64
	use   map[string]map[string]*Counts
}

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{day: &memPeriod{}, month: &memPeriod{}}
}

// periods are the figures of at's day and month, or nil for a period that
// has none. For a write, a period newer than the one kept replaces it, and
// one older is nil (the write is dropped). The caller holds m.mu.
func (m *Memory) periods(at Periods, write bool) [2]*memPeriod {
	var out [2]*memPeriod
	for i, kept := range [2]**memPeriod{&m.day, &m.month} {
		name := [2]string{at.Day, at.Month}[i]
		switch p := *kept; {
		case p.name == name:
			out[i] = p
		case write && p.name < name:
			*kept = &memPeriod{name: name, spent: map[string]int64{}, use: map[string]map[string]*Counts{}}
			out[i] = *kept
		}
	}
	return out
}

func (m *Memory) Reserve(_ context.Context, key string, at Periods, amount int64, limits Amounts) (Amounts, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ps := m.periods(at, true)
	before := Amounts{spentIn(ps[0], key), spentIn(ps[1], key)}
	if !fits(before, amount, limits) {
		return before, false, nil
	}
	add(ps, key, amount)
	return before, true, nil
}

func (m *Memory) AddSpent(_ context.Context, key string, at Periods, delta int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	add(m.periods(at, true), key, delta)
	return nil
}

func (m *Memory) Spent(_ context.Context, key string, at Periods) (Amounts, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ps := m.periods(at, false)
	return Amounts{spentIn(ps[0], key), spentIn(ps[1], key)}, nil
}

func spentIn(p *memPeriod, key string) int64 {
	if p == nil {
		return 0
	}
	return p.spent[key]
}

func add(ps [2]*memPeriod, key string, delta int64) {
	for _, p := range ps {
		if p != nil {
			p.spent[key] += delta
		}
	}
}

func (m *Memory) AddUse(_ context.Context, key string, at Periods, model string, c Counts) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.periods(at, true) {
		if p == nil {
			continue
		}
		byModel := p.use[key]
		if byModel == nil {
			byModel = map[string]*Counts{}
			p.use[key] = byModel
		}
		if byModel[model] == nil {
			byModel[model] = &Counts{}
		}
		byModel[model].Add(c)
	}
	return nil
}

func (m *Memory) Use(_ context.Context, key string, at Periods) (day, month map[string]Counts, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out [2]map[string]Counts
	for i, p := range m.periods(at, false) {
		out[i] = map[string]Counts{}
		if p == nil {
			continue
		}
		for model, c := range p.use[key] {
			out[i][model] = *c
		}
	}
	return out[0], out[1], nil
}

// Close does nothing: the figures go with the process.
func (m *Memory) Close() error { return nil }
