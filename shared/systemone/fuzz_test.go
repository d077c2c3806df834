package systemone

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(exampleBody))
	f.Add([]byte(body(`{"type":"choice","instructions":{"a":[1,2]},"criteria":{"b":null,"a":"<&>","c":["x"]}}`)))
	f.Add([]byte(body(`{"type":"score","instructions":"x","criteria":["low","mid","high"]}`)))
	f.Add([]byte(body(`{"type":"noul","instructions":"x","criteria":{"true":"t","false":"f"}}`)))
	f.Add([]byte(`{"model":"m","state":42,"questions":{}}`))
	f.Add([]byte(`{"model":"m","state":"\u00e9\ud800","questions":{"q":{"type":"noul","instructions":"x","type":"score"}}}`))
	f.Add([]byte(`[{"model":"m"}]`))
	f.Add([]byte(`{"model":`))
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := DecodeRequest(b)
		if err != nil {
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("error %T is not a *ValidationError: %v", err, err)
			}
			return
		}
		if req.Validate() != nil {
			return
		}
		out, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("marshal a valid request: %v", err)
		}
		back, err := DecodeRequest(out)
		if err != nil {
			t.Fatalf("re-decode %s: %v", out, err)
		}
		if err := back.Validate(); err != nil {
			t.Fatalf("re-decoded request is invalid: %v\n%s", err, out)
		}
		assertSameRequest(t, req, back)
	})
}

// assertSameRequest compares two requests, JSON values by meaning: encoding
// may escape characters differently without changing the value.
func assertSameRequest(t *testing.T, a, b Request) {
	t.Helper()
	if a.Model != b.Model || !sameJSON(a.State, b.State) || len(a.Questions) != len(b.Questions) {
		t.Fatalf("requests differ:\n%+v\n%+v", a, b)
	}
	for name, qa := range a.Questions {
		qb, ok := b.Questions[name]
		if !ok {
			t.Fatalf("question %q lost", name)
		}
		if qa.Type != qb.Type || !sameJSON(qa.Instructions, qb.Instructions) ||
			!reflect.DeepEqual(qa.Noul, qb.Noul) || !reflect.DeepEqual(qa.Levels, qb.Levels) ||
			len(qa.Options) != len(qb.Options) {
			t.Fatalf("question %q differs:\n%+v\n%+v", name, qa, qb)
		}
		for i := range qa.Options {
			oa, ob := qa.Options[i], qb.Options[i]
			if oa.Name != ob.Name || (oa.Description == nil) != (ob.Description == nil) ||
				oa.Description != nil && !sameJSON(oa.Description, ob.Description) {
				t.Fatalf("option %d of %q differs: %+v vs %+v", i, name, oa, ob)
			}
		}
	}
}

func sameJSON(a, b json.RawMessage) bool {
	va, ea := decodeAny(a)
	vb, eb := decodeAny(b)
	return ea == nil && eb == nil && reflect.DeepEqual(va, vb)
}

func decodeAny(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers beyond float64 stay comparable
	var v any
	err := dec.Decode(&v)
	return v, err
}

// FuzzParseError: error bodies come from servers and proxies we do not
// control; reading them must never panic and always yield a usable error.
func FuzzParseError(f *testing.F) {
	f.Add(429, []byte(`{"detail":{"error_type":"rate_limit_exceeded","message":"slow down"}}`), "250", "3")
	f.Add(422, []byte(`{"detail":[{"loc":["body","state"],"msg":"m","type":"value_error"}]}`), "", "")
	f.Add(404, []byte(`{"detail":"Not Found"}`), "", "Sun, 01 Jun 2025 12:00:07 GMT")
	f.Add(502, []byte(`<html>bad gateway</html>`), "x", "-1")
	f.Add(529, []byte(`{"detail":{"error_type":5}}`), "1e308", "1e308")
	f.Fuzz(func(t *testing.T, status int, body []byte, ms, after string) {
		h := http.Header{}
		h.Set("retry-after-ms", ms)
		h.Set("Retry-After", after)
		e := ParseError(status, h, body)
		if e.Status != status || e.Type == "" {
			t.Fatalf("ParseError(%d, %q) = %+v", status, body, e)
		}
		if e.RetryAfter < 0 {
			t.Fatalf("negative RetryAfter %v from %q, %q", e.RetryAfter, ms, after)
		}
		_ = e.Error()
	})
}
