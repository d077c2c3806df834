// Package tracing holds the OpenTelemetry setup both services share: one
// call in main (Setup) that exports spans by OTLP/HTTP when the standard
// OTEL_EXPORTER_OTLP_ENDPOINT is set and leaves tracing off otherwise, and
// the client side (Transport) that gives each upstream call a span and the
// W3C trace context. The server side, a span per request and its ids in
// the request's logs, is shared/server's.
package tracing

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// EnvEndpoint is the standard setting that turns tracing on: the base URL
// of an OTLP/HTTP receiver (a collector), spans going to its /v1/traces.
const EnvEndpoint = "OTEL_EXPORTER_OTLP_ENDPOINT"

// FlushTimeout bounds the export of the last spans when a service stops.
const FlushTimeout = 5 * time.Second

// Setup turns tracing on for service when EnvEndpoint is set: spans are
// batched and exported by OTLP/HTTP (protobuf), and the W3C trace context
// (traceparent, tracestate) is read from requests and sent on calls.
// Unset, nothing is installed: the tracer stays OpenTelemetry's no-op and
// no header is read or sent. The other OTEL_EXPORTER_OTLP_* settings
// (headers, timeout) and OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and
// OTEL_TRACES_SAMPLER apply as the OpenTelemetry SDK defines them. The
// returned stop exports what is still buffered, for FlushTimeout at most;
// call it once, on the way out.
func Setup(ctx context.Context, service string, getenv func(string) string, logger *slog.Logger) (stop func(), err error) {
	endpoint := strings.TrimSpace(getenv(EnvEndpoint))
	if endpoint == "" {
		return func() {}, nil
	}
	// The message names the setting, never its value: a collector's URL
	// may carry credentials.
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s must be an http(s) URL such as http://collector:4318", EnvEndpoint)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u.String()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvEndpoint, err)
	}
	res, err := resource.Merge(resource.NewSchemaless(attribute.String("service.name", service)), resource.Environment())
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	logger.Info("traces exported by OTLP/HTTP", "setting", EnvEndpoint)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), FlushTimeout)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			logger.Warn("exporting the last traces", "err", err)
		}
	}, nil
}

// On reports whether Setup turned tracing on.
func On() bool {
	_, ok := otel.GetTracerProvider().(*sdktrace.TracerProvider)
	return ok
}

// Transport wraps rt so that, while tracing is on, each call gets a client
// span and carries the trace context; while it is off, calls go to rt
// untouched (the traced path wraps request bodies, which costs the chat
// clients a write per call).
func Transport(rt http.RoundTripper) http.RoundTripper {
	return &transport{plain: rt, traced: otelhttp.NewTransport(rt)}
}

type transport struct{ plain, traced http.RoundTripper }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if On() {
		return t.traced.RoundTrip(req)
	}
	return t.plain.RoundTrip(req)
}
