package api

import (
	"encoding/json"

	"github.com/judgeworks/shared/systemone"
	"github.com/labstack/echo/v4"
)

// rawJSON writes the judge's bodies without HTML escaping: they are JSON,
// never HTML, and a "<" sent back as "\u003c" would make an answer (and
// every stored copy of it, docs/api.md, "Judge: Idempotency-Key") up to
// six times the size of what it says.
//
// A System One answer is written as its MarshalJSON renders it, which is
// already compact and unescaped: through an encoder it would be checked
// and compacted again, byte for byte the same, at a tenth of a request's
// cost.
type rawJSON struct{ echo.DefaultJSONSerializer }

func (rawJSON) Serialize(c echo.Context, i any, indent string) error {
	if r, ok := i.(*systemone.Response); ok && indent == "" {
		b, err := r.MarshalJSON()
		if err != nil {
			return err
		}
		_, err = c.Response().Write(append(b, '\n'))
		return err
	}
	enc := json.NewEncoder(c.Response())
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	return enc.Encode(i)
}
