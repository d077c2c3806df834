package storetest

import (
	"sync"
	"testing"

	"github.com/judgeworks/judge/internal/store"
)

// Periods the laws write in: a day, the next day of the same month, and
// the first day of the next month.
var (
	nov26 = store.Periods{Day: "2026-11-26", Month: "2026-11"}
	nov27 = store.Periods{Day: "2026-11-27", Month: "2026-11"}
	dec01 = store.Periods{Day: "2026-12-01", Month: "2026-12"}
)

// none is no limit on either period.
var none = store.Amounts{Day: -1, Month: -1}

// spending are the laws of store.Spending and store.Usage.
var spending = []law{
	{"a reservation within both limits is added to both periods", func(t *testing.T, s store.Store) {
		before, ok := reserve(t, s, "k", nov26, 600, store.Amounts{Day: 1000, Month: 1500})
		if !ok || before != (store.Amounts{}) {
			t.Fatalf("first reservation: ok %v, before %+v", ok, before)
		}
		before, ok = reserve(t, s, "k", nov26, 400, store.Amounts{Day: 1000, Month: 1500})
		if !ok || before != (store.Amounts{Day: 600, Month: 600}) {
			t.Fatalf("second reservation, exactly to the day's limit: ok %v, before %+v", ok, before)
		}
		wantSpent(t, s, "k", nov26, store.Amounts{Day: 1000, Month: 1000})
	}},
	{"a reservation past either limit adds nothing", func(t *testing.T, s store.Store) {
		reserve(t, s, "k", nov26, 600, none)
		for _, limits := range []store.Amounts{{Day: 1000, Month: -1}, {Day: -1, Month: 1000}, {Day: 0, Month: 0}} {
			before, ok := reserve(t, s, "k", nov26, 401, limits)
			if ok || before != (store.Amounts{Day: 600, Month: 600}) {
				t.Errorf("limits %+v: ok %v, before %+v; want refused, 600 spent before", limits, ok, before)
			}
		}
		wantSpent(t, s, "k", nov26, store.Amounts{Day: 600, Month: 600})
	}},
	{"a limit of zero admits only what costs nothing", func(t *testing.T, s store.Store) {
		if _, ok := reserve(t, s, "k", nov26, 0, store.Amounts{Day: 0, Month: -1}); !ok {
			t.Error("0 on a zero limit refused")
		}
		if _, ok := reserve(t, s, "k", nov26, 1, store.Amounts{Day: 0, Month: -1}); ok {
			t.Error("1 on a zero limit admitted")
		}
	}},
	{"spending is added and given back in both periods", func(t *testing.T, s store.Store) {
		reserve(t, s, "k", nov26, 600, none)
		addSpent(t, s, "k", nov26, -500)
		addSpent(t, s, "k", nov26, 25)
		wantSpent(t, s, "k", nov26, store.Amounts{Day: 125, Month: 125})
	}},
	{"each key has its own figures", func(t *testing.T, s store.Store) {
		reserve(t, s, "a", nov26, 600, none)
		if before, ok := reserve(t, s, "b", nov26, 1000, store.Amounts{Day: 1000, Month: 1000}); !ok || before != (store.Amounts{}) {
			t.Errorf("another key: ok %v, before %+v", ok, before)
		}
		wantSpent(t, s, "never", nov26, store.Amounts{})
		day, month := use(t, s, "never", nov26)
		if len(day) != 0 || len(month) != 0 {
			t.Errorf("a key that used nothing: %v %v", day, month)
		}
	}},
	{"a new day starts at nothing and the month goes on", func(t *testing.T, s store.Store) {
		reserve(t, s, "k", nov26, 600, none)
		addUse(t, s, "k", nov26, "m", store.Counts{Requests: 1, CostNano: 600})
		if before, ok := reserve(t, s, "k", nov27, 500, store.Amounts{Day: 500, Month: 1000}); ok || before != (store.Amounts{Day: 0, Month: 600}) {
			t.Errorf("the next day, 500 on the month's 400 left: ok %v, before %+v", ok, before)
		}
		reserve(t, s, "k", nov27, 300, none)
		wantSpent(t, s, "k", nov27, store.Amounts{Day: 300, Month: 900})
		day, month := use(t, s, "k", nov27)
		if len(day) != 0 || month["m"].Requests != 1 {
			t.Errorf("the next day's use %v, month's %v", day, month)
		}
	}},
	{"a new month starts at nothing", func(t *testing.T, s store.Store) {
		reserve(t, s, "k", nov26, 600, none)
		addUse(t, s, "k", nov26, "m", store.Counts{Requests: 1})
		wantSpent(t, s, "k", dec01, store.Amounts{})
		if day, month := use(t, s, "k", dec01); len(day) != 0 || len(month) != 0 {
			t.Errorf("a new month's use %v %v", day, month)
		}
	}},
	{"use is counted per key and model, in both periods", func(t *testing.T, s store.Store) {
		addUse(t, s, "k", nov26, "m-1", store.Counts{Requests: 1, InputTokens: 100, OutputTokens: 2, CostNano: 250})
		addUse(t, s, "k", nov26, "m-1", store.Counts{Unanswered: 1, InputTokens: 40, CostNano: 500})
		addUse(t, s, "k", nov26, "m|2:x", store.Counts{Requests: 1, InputTokens: 10})
		addUse(t, s, "other", nov26, "m-1", store.Counts{Requests: 1, InputTokens: 1000})
		day, month := use(t, s, "k", nov26)
		want := map[string]store.Counts{
			"m-1":   {Requests: 1, Unanswered: 1, InputTokens: 140, OutputTokens: 2, CostNano: 750},
			"m|2:x": {Requests: 1, InputTokens: 10},
		}
		for name, got := range map[string]map[string]store.Counts{"day": day, "month": month} {
			if len(got) != len(want) || got["m-1"] != want["m-1"] || got["m|2:x"] != want["m|2:x"] {
				t.Errorf("%s: %+v, want %+v", name, got, want)
			}
		}
	}},
	{"reservations at once never pass a limit", func(t *testing.T, s store.Store) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		admitted := 0
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, ok, err := s.Reserve(bg, "k", nov26, 70, store.Amounts{Day: 1000, Month: -1})
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					admitted++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if admitted != 14 {
			t.Errorf("%d reservations of 70 admitted on a limit of 1000, want 14", admitted)
		}
		wantSpent(t, s, "k", nov26, store.Amounts{Day: 980, Month: 980})
	}},
	{"writes at once all count", func(t *testing.T, s store.Store) {
		var wg sync.WaitGroup
		for range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.AddSpent(bg, "k", nov26, 3); err != nil {
					t.Error(err)
				}
				if err := s.AddUse(bg, "k", nov26, "m", store.Counts{Requests: 1, InputTokens: 5}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		wantSpent(t, s, "k", nov26, store.Amounts{Day: 120, Month: 120})
		if day, _ := use(t, s, "k", nov26); day["m"] != (store.Counts{Requests: 40, InputTokens: 200}) {
			t.Errorf("use after 40 writes at once: %+v", day["m"])
		}
	}},
}

func reserve(t *testing.T, s store.Store, key string, at store.Periods, amount int64, limits store.Amounts) (store.Amounts, bool) {
	t.Helper()
	before, ok, err := s.Reserve(bg, key, at, amount, limits)
	if err != nil {
		t.Fatalf("Reserve: %v", err)
	}
	return before, ok
}

func addSpent(t *testing.T, s store.Store, key string, at store.Periods, delta int64) {
	t.Helper()
	if err := s.AddSpent(bg, key, at, delta); err != nil {
		t.Fatalf("AddSpent: %v", err)
	}
}

func addUse(t *testing.T, s store.Store, key string, at store.Periods, model string, c store.Counts) {
	t.Helper()
	if err := s.AddUse(bg, key, at, model, c); err != nil {
		t.Fatalf("AddUse: %v", err)
	}
}

func wantSpent(t *testing.T, s store.Store, key string, at store.Periods, want store.Amounts) {
	t.Helper()
	got, err := s.Spent(bg, key, at)
	if err != nil || got != want {
		t.Errorf("Spent(%s, %+v) = %+v, %v; want %+v", key, at, got, err, want)
	}
}

func use(t *testing.T, s store.Store, key string, at store.Periods) (day, month map[string]store.Counts) {
	t.Helper()
	day, month, err := s.Use(bg, key, at)
	if err != nil {
		t.Fatalf("Use: %v", err)
	}
	return day, month
}
