package usage

import (
	"context"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/store/file"
	"github.com/judgeworks/judge/internal/store/redis"
	"github.com/judgeworks/shared/redistest"
)

var bg = context.Background()

// Use is counted per key and per model, today and this month; requests
// not answered are counted apart from answered ones, their tokens and cost
// with them; a new day starts the day's figures afresh and keeps the
// month's; every store counts alike, and two books on one Redis count
// together.
func TestAddAndReport(t *testing.T) {
	srv := redistest.New(t)
	newRedis := func() *Book {
		st, err := redis.Open(srv.URL(), redis.Options{Prefix: "test:", Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return New(Settings{Store: st})
	}
	onFile, err := file.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer onFile.Close()
	for name, books := range map[string][2]*Book{
		"process": {New(Settings{}), nil},
		"redis":   {newRedis(), newRedis()},
		"file":    {New(Settings{Store: onFile}), nil},
	} {
		t.Run(name, func(t *testing.T) {
			now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
			a, b := books[0], books[1]
			if b == nil {
				b = a
			}
			for _, bk := range []*Book{a, b} {
				bk.now = func() time.Time { return now }
			}
			a.Add(bg, "k", "m-1", Use{Answered: true, InputTokens: 100, OutputTokens: 2, USD: 0.25})
			b.Add(bg, "k", "m-1", Use{Answered: true, InputTokens: 50, OutputTokens: 1, USD: 0.125})
			b.Add(bg, "k", "m-1", Use{InputTokens: 40, USD: 0.5}) // sent upstream, not answered
			a.Add(bg, "k", "m|2", Use{Answered: true, InputTokens: 10})
			a.Add(bg, "other", "m-1", Use{Answered: true, InputTokens: 1000, USD: 9})
			day, month, err := b.Report(bg, "k")
			if err != nil {
				t.Fatal(err)
			}
			want := Totals{Requests: 2, Unanswered: 1, InputTokens: 190, OutputTokens: 3, CostUSD: 0.875}
			if day.Models["m-1"] != want || day.Requests != 3 || day.Unanswered != 1 || day.InputTokens != 200 || day.CostUSD != 0.875 || month.Requests != 3 || month.Unanswered != 1 {
				t.Errorf("day %+v month %+v", day, month)
			}
			if day.Period != "2026-11-30" || day.ResetsAt != "2026-12-01T00:00:00Z" || month.Period != "2026-11" || month.ResetsAt != "2026-12-01T00:00:00Z" {
				t.Errorf("periods: %+v %+v", day, month)
			}
			if day.Models["m|2"].Requests != 1 {
				t.Errorf("a model name holding the separator: %+v", day.Models)
			}
			now = now.Add(2 * time.Hour) // December
			a.Add(bg, "k", "m-1", Use{Answered: true, InputTokens: 1, USD: 0.5})
			day, month, _ = a.Report(bg, "k")
			if day.Requests != 1 || month.Requests != 1 || month.Unanswered != 0 || month.Period != "2026-12" {
				t.Errorf("a new month: day %+v month %+v", day, month)
			}
		})
	}
}
