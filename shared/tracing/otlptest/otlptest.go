// Package otlptest is an OTLP/HTTP trace receiver for tests: it accepts
// what an OpenTelemetry exporter posts to /v1/traces (protobuf, gzip or
// not), decodes it with the OTLP protocol's own types and keeps the spans.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// maxBody bounds one export.
const maxBody = 16 << 20

// Span is what the tests read of a received span.
type Span struct {
	Service  string // the resource's service.name
	Name     string
	Kind     string // SPAN_KIND_SERVER, SPAN_KIND_CLIENT, …
	TraceID  string // hex
	SpanID   string
	ParentID string // "" for a root span
}

// Receiver is a running receiver; URL is what OTEL_EXPORTER_OTLP_ENDPOINT
// takes.
type Receiver struct {
	URL string

	mu      sync.Mutex
	posts   int
	spans   []Span
	changed chan struct{}
}

// Start starts a receiver on a free loopback port, stopped when t ends.
func Start(t testing.TB) *Receiver {
	r := &Receiver{changed: make(chan struct{}, 1)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if err := r.receive(req); err != nil {
			t.Errorf("otlptest: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *Receiver) receive(req *http.Request) error {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		return fmt.Errorf("%s %s, want POST /v1/traces", req.Method, req.URL.Path)
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		return fmt.Errorf("content type %q, want application/x-protobuf", ct)
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			return err
		}
		body = gz
	}
	raw, err := io.ReadAll(io.LimitReader(body, maxBody))
	if err != nil {
		return err
	}
	var export coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(raw, &export); err != nil {
		return err
	}
	var got []Span
	for _, rs := range export.GetResourceSpans() {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				got = append(got, Span{Service: service, Name: s.GetName(), Kind: s.GetKind().String(),
					TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentID: hex.EncodeToString(s.GetParentSpanId())})
			}
		}
	}
	r.mu.Lock()
	r.posts++
	r.spans = append(r.spans, got...)
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
	return nil
}

// Posts is the number of exports received.
func (r *Receiver) Posts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.posts
}

// Trace returns the received spans of one trace.
func (r *Receiver) Trace(traceID string) []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Span
	for _, s := range r.spans {
		if s.TraceID == traceID {
			out = append(out, s)
		}
	}
	return out
}

// Wait waits up to timeout for done to hold of the spans of traceID and
// returns them, whether it came to hold or not.
func (r *Receiver) Wait(traceID string, timeout time.Duration, done func([]Span) bool) []Span {
	deadline := time.After(timeout)
	for {
		spans := r.Trace(traceID)
		if done(spans) {
			return spans
		}
		select {
		case <-r.changed:
		case <-deadline:
			return r.Trace(traceID)
		}
	}
}
