package api

import (
	"encoding/json"
	"net/http"
	"sync"

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
		b, err := r.AppendJSON(nil)
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

// answerBuffers hold rendered answers between requests; a buffer grown
// past maxKeptAnswer by a large answer is left to the collector, so the
// pool keeps at most that much per buffer.
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxKeptAnswer = 64 << 10

// jsonContentType is the Content-Type list of every answer, kept rather
// than made per answer: header lists are only read.
var jsonContentType = []string{echo.MIMEApplicationJSON}

// writeAnswer writes resp, the 200 answer of a System One request, with
// the bytes and headers c.JSON would write (rawJSON): rendered into a
// reused buffer and written at once, without echo's serializer, its query
// parsing and header canonicalising. A request with a query (?pretty asks
// echo for indented JSON) goes through c.JSON.
//
// Content-Length is left to net/http, which sets it for an answer that
// fits its 2 KiB buffer (one question's does) without an allocation. Set
// here, a larger answer would reach the client complete while the request
// is still at work: a retry sent at once would find its Idempotency-Key
// still claimed, and the metrics not yet counting it. Sent in chunks, the
// answer ends when the handler does.
func writeAnswer(c echo.Context, resp *systemone.Response) error {
	if c.Request().URL.RawQuery != "" {
		return c.JSON(http.StatusOK, resp)
	}
	bp := answerBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxKeptAnswer {
			answerBuffers.Put(bp)
		}
	}()
	b, err := resp.AppendJSON((*bp)[:0])
	if err != nil {
		return err
	}
	b = append(b, '\n')
	*bp = b
	w := c.Response()
	hdr := w.Header()
	if len(hdr[echo.HeaderContentType]) == 0 {
		hdr[echo.HeaderContentType] = jsonContentType
	}
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(b)
	return err
}
