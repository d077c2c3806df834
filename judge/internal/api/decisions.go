package api

import (
	"net/http"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/decisions"
	"github.com/judgeworks/shared/systemone"
	"github.com/labstack/echo/v4"
)

const decisionsRoute = "/v1/decisions"

// decisions answers POST /v1/decisions, OpenAI's Decisions API as
// openai-go's client.Decisions.New sends and reads it: translated by
// judge/internal/decisions into a System One request, which takes the
// path of /v1/systemone (keys, limits, models, engines, calibration), and
// its answer translated back. See docs/judge.md, "Two endpoints, one judge".
func (h *handler) decisions(c echo.Context) error {
	key := c.Get(keyCtx).(auth.BearerKey)
	body, err := h.readBody(c)
	if err != nil {
		return err
	}
	t, err := decisions.Decode(body, min(decisions.MaxQuestions, h.MaxQuestions))
	if err != nil {
		return err
	}
	m, err := h.resolveModel(c, key, t.Request.Model)
	if err != nil {
		return err
	}
	resp := &systemone.Response{Model: m.Name}
	if len(t.Request.Questions) > 0 {
		if resp, err = h.ask(c, key, m, t.Request); err != nil {
			return t.Relocate(err)
		}
	} else {
		// Every question refused: no engine is asked and no token charged.
		setLimitHeaders(c.Response().Header(), "tokens", h.Limiter.PeekTokens(c.Request().Context(), key.ID))
	}
	return c.JSON(http.StatusOK, t.Answer(resp))
}

// decisionsBodies are the route's error bodies, in OpenAI's shape.
type decisionsBodies struct{}

func (decisionsBodies) fault(kind, msg string) any { return decisions.FaultBody(kind, msg) }

func (decisionsBodies) validation(ve *systemone.ValidationError) any {
	return decisions.ValidationBody(ve)
}
