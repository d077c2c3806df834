package server

import (
	"log/slog"

	"github.com/judgeworks/shared/tracing"
	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// tracer names the spans of incoming requests. While tracing is off (see
// shared/tracing) it is OpenTelemetry's no-op, and so is the propagator.
var tracer = otel.Tracer("github.com/judgeworks/shared/server")

// traced gives the request a server span, the child of the caller's W3C
// trace context when it sends one, and puts the trace and span ids on the
// request's log, so the access log and every request-scoped line carry
// them; then it runs the request (logged). The span is named for the
// route pattern, never the path, which may hold a secret (a share link's
// token). While tracing is off it does nothing at all: the no-op span
// would carry no ids, and reading the headers, naming and starting it
// would cost every request allocations for nothing.
func traced(c echo.Context, next echo.HandlerFunc, l *requestLog) error {
	if !tracing.On() {
		return logged(c, next, l)
	}
	req := c.Request()
	ctx := otel.GetTextMapPropagator().Extract(req.Context(), propagation.HeaderCarrier(req.Header))
	route := c.Path()
	ctx, span := tracer.Start(ctx, req.Method+" "+route, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", req.Method), attribute.String("http.route", route)))
	defer span.End()
	sc := span.SpanContext()
	if !sc.IsValid() {
		return logged(c, next, l)
	}
	c.SetRequest(req.WithContext(ctx))
	l.add(slog.String("trace_id", sc.TraceID().String()))
	l.add(slog.String("span_id", sc.SpanID().String()))
	err := logged(c, next, l)
	status := c.Response().Status
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if status >= 500 {
		span.SetStatus(codes.Error, "")
	}
	return err
}
