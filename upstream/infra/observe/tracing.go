package observe

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Tracing returns the tracer provider the standard OTEL_* variables ask
// for, and the function that flushes and stops it. Tracing is off (a no-op
// provider) unless an OTLP endpoint is named (OTEL_EXPORTER_OTLP_ENDPOINT
// or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER=otlp;
// OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true keep it off. The
// exporter speaks OTLP over HTTP (http/protobuf, the specification's
// default); grpc is refused rather than silently ignored. The exporter
// reads its own variables (headers, timeout, TLS); the provider reads
// OTEL_TRACES_SAMPLER and its argument; OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES name the service (okrgate by default).
func Tracing(ctx context.Context, getenv func(string) string, version string) (trace.TracerProvider, func(context.Context) error, error) {
	off := func(context.Context) error { return nil }
	exporter := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")))
	endpoint := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") + getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	switch {
	case strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true"), exporter == "none":
		return noop.NewTracerProvider(), off, nil
	case exporter == "" && endpoint == "":
		return noop.NewTracerProvider(), off, nil
	case exporter != "" && exporter != "otlp":
		return nil, nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: only otlp (or none) is supported", exporter)
	}
	proto := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if proto != "" && proto != "http/protobuf" {
		return nil, nil, fmt.Errorf("OTLP protocol %q: only http/protobuf is supported", proto)
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res, err := resource.Merge(
		resource.NewSchemaless(attribute.String("service.name", "okrgate"), attribute.String("service.version", version)),
		resource.Environment(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES win
	)
	if err != nil {
		return nil, nil, fmt.Errorf("OTel resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return tp, tp.Shutdown, nil
}

// Tracer returns the tracer name of the provider of the span in ctx: the
// server span the stack opened, so code below the stack traces into the
// request's trace without a global provider, and does nothing when
// tracing is off.
func Tracer(ctx context.Context, name string) trace.Tracer {
	return trace.SpanFromContext(ctx).TracerProvider().Tracer(name)
}

// Transport wraps base (nil: http.DefaultTransport) for calls to an upstream
// server: each request gets a client span in the trace of its context and
// carries that trace onward in a W3C traceparent header.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		tp := trace.SpanFromContext(r.Context()).TracerProvider()
		t := otelhttp.NewTransport(base,
			otelhttp.WithTracerProvider(tp),
			otelhttp.WithPropagators(Propagator()),
			otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()))
		return t.RoundTrip(r)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
