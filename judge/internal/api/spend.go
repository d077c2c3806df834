package api

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/budget"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/judge/internal/usage"
	"github.com/judgeworks/shared/systemone"
	"github.com/labstack/echo/v4"
)

// spend charges the planned cost of answering with m, plannedTokens input
// tokens (the most the model's most expensive path sends), to the key's
// budgets before any upstream call, and puts what is left on the answer.
// What it returns settles the charge with what the answer really cost and
// counts the use.
func (h *handler) spend(c echo.Context, key auth.BearerKey, m *registry.Model, plannedTokens int) (spending, error) {
	ctx := c.Request().Context()
	hold, err := h.Budgets.Reserve(ctx, key.ID, budget.Caps{Day: key.BudgetPerDay, Month: key.BudgetPerMonth}, m.Cost(plannedTokens))
	if hold != nil {
		setBudgetHeaders(c.Response().Header(), hold.Left, time.Now())
	}
	if err != nil {
		if fault.CodeOf(err) == fault.BudgetExceeded {
			h.Metrics.BudgetRefused(key.ID)
		}
		return spending{}, err
	}
	return spending{h: h, ctx: ctx, key: key.ID, model: m.Name, hold: hold}, nil
}

// spending is a charge reserved by spend, to be settled: a value rather
// than a closure, which every request would allocate.
type spending struct {
	h          *handler
	ctx        context.Context
	key, model string
	hold       *budget.Hold
}

// settle settles the charge with what the request cost, answered or not:
// charge, every upstream call it sent (registry.Ask), and counts the use.
// A request that sent nothing and failed costs nothing; one that sent
// calls and failed (a later call failing, a timeout, its caller hanging
// up) is charged them and counted as unanswered. It runs even when the
// client has gone.
func (s spending) settle(charge systemone.Usage, answered bool) {
	ctx := context.WithoutCancel(s.ctx)
	s.hold.Settle(ctx, charge.Cost)
	if !answered && charge.InputTokens == 0 {
		return
	}
	s.h.Usage.Add(ctx, s.key, s.model, usage.Use{Answered: answered, InputTokens: charge.InputTokens, OutputTokens: charge.OutputTokens, USD: charge.Cost})
	s.h.Metrics.Charged(s.key, s.model, charge, answered)
}

// setBudgetHeaders writes each capped budget's figures beside the rate
// limits' (docs/api.md, "Judge: budgets"): the cap in USD, what is left,
// and the time until the period ends.
func setBudgetHeaders(h http.Header, left []budget.Left, now time.Time) {
	for _, l := range left {
		kind := "usd-" + l.Period.String()
		h.Set("x-ratelimit-limit-"+kind, strconv.FormatFloat(l.Cap, 'f', -1, 64))
		h.Set("x-ratelimit-remaining-"+kind, strconv.FormatFloat(l.Remaining, 'f', -1, 64))
		h.Set("x-ratelimit-reset-"+kind, resetString(l.Reset.Sub(now)))
	}
}

// usageReport is the body of GET /v1/usage.
type usageReport struct {
	Key   string      `json:"key"`
	Today usagePeriod `json:"today"`
	Month usagePeriod `json:"month"`
}

// usagePeriod is a period's use, and its budget when the key has one.
type usagePeriod struct {
	usage.Period
	BudgetUSD    *float64 `json:"budget_usd,omitempty"`
	RemainingUSD *float64 `json:"remaining_usd,omitempty"`
}

// usage answers the calling key's own use today and this month, per model.
func (h *handler) usageOf(c echo.Context) error {
	key := c.Get(keyCtx).(auth.BearerKey)
	ctx := c.Request().Context()
	day, month, err := h.Usage.Report(ctx, key.ID)
	var spentDay, spentMonth float64
	if err == nil {
		spentDay, spentMonth, err = h.Budgets.Spent(ctx, key.ID)
		if key.BudgetPerDay == nil && key.BudgetPerMonth == nil {
			err = nil // no budget to report: what was spent is not needed
		}
	}
	if err != nil {
		return fault.Retry(fault.Unavailable, time.Second, "usage cannot be read right now: retry shortly")
	}
	period := func(p usage.Period, cap *float64, spent float64) usagePeriod {
		out := usagePeriod{Period: p}
		if cap != nil {
			left := max(*cap-spent, 0)
			out.BudgetUSD, out.RemainingUSD = cap, &left
		}
		return out
	}
	return c.JSON(http.StatusOK, usageReport{
		Key:   key.ID,
		Today: period(day, key.BudgetPerDay, spentDay),
		Month: period(month, key.BudgetPerMonth, spentMonth),
	})
}
