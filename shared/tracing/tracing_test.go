package tracing_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/judgeworks/shared/server"
	"github.com/judgeworks/shared/tracing"
	"github.com/judgeworks/shared/tracing/otlptest"
)

const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
	traceparent = "00-" + callerTrace + "-" + callerSpan + "-01"
)

// hop is a service built with server.New whose one route calls an
// upstream through tracing.Transport, and the upstream, which records the
// traceparent it was sent.
type hop struct {
	srv  *httptest.Server
	url  string
	logs *bytes.Buffer

	mu       sync.Mutex
	upstream []string // the traceparent of each upstream call
}

func startHop(t *testing.T) *hop {
	t.Helper()
	h := &hop{logs: new(bytes.Buffer)}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.upstream = append(h.upstream, r.Header.Get("traceparent"))
		h.mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(up.Close)
	client := &http.Client{Transport: tracing.Transport(http.DefaultTransport)}
	logger := slog.New(slog.NewJSONHandler(h.logs, nil))
	e := server.New(logger)
	e.GET("/call", func(c echo.Context) error {
		req, _ := http.NewRequestWithContext(c.Request().Context(), http.MethodGet, up.URL, nil)
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		_ = res.Body.Close()
		server.LoggerFrom(c.Request().Context()).Info("called upstream")
		return c.String(http.StatusOK, "done")
	})
	h.srv = httptest.NewServer(e)
	t.Cleanup(h.srv.Close)
	h.url = h.srv.URL
	return h
}

// sent is the traceparent of each upstream call.
func (h *hop) sent() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.upstream...)
}

// log stops the service, so that every request's lines are written, and
// returns its log.
func (h *hop) log() string {
	h.srv.Close()
	return h.logs.String()
}

// call sends GET /call with the caller's traceparent.
func (h *hop) call(t *testing.T) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.url+"/call", nil)
	req.Header.Set("traceparent", traceparent)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
}

// Unset, nothing is installed: no exporter, no header read or sent, no
// trace ids in the logs.
func TestOffInstallsNothing(t *testing.T) {
	stop, err := tracing.Setup(context.Background(), "test", func(string) string { return "" }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if tracing.On() {
		t.Fatal("tracing on with the endpoint unset")
	}
	h := startHop(t)
	h.call(t)
	if sent := h.sent(); len(sent) != 1 || sent[0] != "" {
		t.Fatalf("upstream traceparent %q, want none", sent)
	}
	if log := h.log(); strings.Contains(log, "trace_id") {
		t.Fatalf("trace ids logged with tracing off:\n%s", log)
	}
}

func TestBadEndpointIsRefused(t *testing.T) {
	for _, v := range []string{"collector.internal:4318", "ftp://collector.internal", "https://"} {
		_, err := tracing.Setup(context.Background(), "test", func(string) string { return v }, slog.New(slog.DiscardHandler))
		if err == nil || !strings.Contains(err.Error(), tracing.EnvEndpoint) || strings.Contains(err.Error(), v) {
			t.Errorf("%q: err %v, want one naming %s and not its value", v, err, tracing.EnvEndpoint)
		}
	}
}

// Set, a request's server span continues the caller's trace, the upstream
// call is its child and carries the trace on, the spans reach the
// receiver, and the request's log lines carry the ids.
func TestOnExportsOneTrace(t *testing.T) {
	t.Cleanup(func() {
		otel.SetTracerProvider(noop.NewTracerProvider())
		otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator())
	})
	rcv := otlptest.Start(t)
	env := map[string]string{tracing.EnvEndpoint: rcv.URL}
	stop, err := tracing.Setup(context.Background(), "hop", func(k string) string { return env[k] }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	h := startHop(t)
	h.call(t)
	stop() // flushes the batch
	spans := rcv.Trace(callerTrace)
	var srv, cli *otlptest.Span
	for i, s := range spans {
		switch s.Kind {
		case "SPAN_KIND_SERVER":
			srv = &spans[i]
		case "SPAN_KIND_CLIENT":
			cli = &spans[i]
		}
	}
	if srv == nil || cli == nil {
		t.Fatalf("spans of the trace %+v, want a server and a client span", spans)
	}
	if srv.ParentID != callerSpan || srv.Service != "hop" || srv.Name != "GET /call" || cli.ParentID != srv.SpanID {
		t.Fatalf("server span %+v, client span %+v", *srv, *cli)
	}
	if want, sent := "00-"+callerTrace+"-"+cli.SpanID+"-01", h.sent(); len(sent) != 1 || sent[0] != want {
		t.Fatalf("upstream traceparent %q, want %q", sent, want)
	}
	lines, log := 0, h.log()
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		if !strings.Contains(l, `"trace_id":"`+callerTrace+`","span_id":"`+srv.SpanID+`"`) {
			t.Errorf("log line without the request's trace and span ids: %s", l)
		}
		lines++
	}
	if lines != 2 {
		t.Errorf("%d log lines, want the handler's and the access log's:\n%s", lines, log)
	}
}

// The receiver's Wait, which the deploy suite uses, returns
// what it has when the spans never come.
func TestReceiverWaitGivesUp(t *testing.T) {
	rcv := otlptest.Start(t)
	start := time.Now()
	if got := rcv.Wait(callerTrace, 50*time.Millisecond, func(s []otlptest.Span) bool { return len(s) > 0 }); len(got) != 0 || rcv.Posts() != 0 {
		t.Fatalf("spans %v", got)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("Wait did not give up")
	}
}
