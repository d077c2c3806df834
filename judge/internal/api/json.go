package api

import (
	"encoding/json"

	"github.com/labstack/echo/v4"
)

// rawJSON writes the judge's bodies without HTML escaping: they are JSON,
// never HTML, and a "<" sent back as "\u003c" would make an answer (and
// every stored copy of it, docs/api.md, "Judge: Idempotency-Key") up to
// six times the size of what it says.
type rawJSON struct{ echo.DefaultJSONSerializer }

func (rawJSON) Serialize(c echo.Context, i any, indent string) error {
	enc := json.NewEncoder(c.Response())
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	return enc.Encode(i)
}
