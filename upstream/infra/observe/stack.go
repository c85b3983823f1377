package observe

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5/middleware"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Config configures Stack.
type Config struct {
	// Logger receives the access line of every request. Nil discards.
	Logger *slog.Logger
	// Metrics, when not nil, records every request (NewMetrics).
	Metrics *Metrics
	// Tracer provides the spans; nil (tracing off) still reads an inbound
	// traceparent, so that the logs carry the caller's trace id.
	Tracer trace.TracerProvider
	// Quiet reports requests whose access line is logged at Debug rather
	// than Info: probes and scrapes, which would drown the log.
	Quiet func(r *http.Request) bool
}

// Propagator is the W3C trace context (traceparent, tracestate) and
// baggage: what the server accepts inbound and sends on upstream calls.
func Propagator() propagation.TextMapPropagator {
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// Stack returns the middleware stack of the server, outermost first:
// tracing (a server span continuing an inbound traceparent), the request
// id and Record, the access line, the metrics, and panic recovery.
func Stack(cfg Config) func(http.Handler) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Tracer == nil {
		cfg.Tracer = noop.NewTracerProvider()
	}
	return func(next http.Handler) http.Handler {
		h := recoverer(Patterns(next))
		if cfg.Metrics != nil {
			h = cfg.Metrics.instrument(h)
		}
		h = access(cfg, h)
		return otelhttp.NewHandler(h, "http.request",
			otelhttp.WithTracerProvider(cfg.Tracer),
			otelhttp.WithPropagators(Propagator()),
			otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()), // metrics are Prometheus's
			otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }))
	}
}

// Patterns records the pattern of the http.ServeMux next as the route of a
// request that no facade named (the playground, /metrics, the probes). The
// mux sets r.Pattern on the request it is handed, so it is read after.
// Stack applies it to the handler it wraps; wrap an inner mux with it too.
func Patterns(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		if rec := FromContext(r.Context()); rec != nil {
			rec.mu.Lock()
			if rec.route == "" {
				rec.route = r.Pattern
			}
			rec.mu.Unlock()
		}
	})
}

// access gives the request its id and Record, and writes its one access
// line when it ends.
func access(cfg Config, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !ValidRequestID(id) {
			id = NewRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		rec := &Record{RequestID: id}
		ctx := NewContext(r.Context(), rec)
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		defer func() {
			status := ww.Status()
			if status == 0 {
				status = http.StatusOK
			}
			s := rec.snapshot()
			if s.closed {
				status = StatusClientClosed
			}
			route := s.route
			if route == "" {
				route = "unmatched"
			}
			span := trace.SpanFromContext(ctx)
			span.SetName(r.Method + " " + route)
			span.SetAttributes(attribute.String("http.route", route), attribute.String("okrgate.request_id", id))
			if s.operation != "" {
				span.SetAttributes(attribute.String("graphql.operation.name", s.operation))
			}
			level := slog.LevelInfo
			switch {
			case s.closed || status == StatusClientClosed:
				// The client went away: not a server failure.
			case status >= 500 || s.err != nil:
				// A server error, or GraphQL's masked internal error
				// in a 200 answer: the cause is on this line.
				level = slog.LevelError
			case cfg.Quiet != nil && cfg.Quiet(r):
				level = slog.LevelDebug
			}
			attrs := []slog.Attr{
				slog.String("request_id", id),
				slog.String("trace_id", traceID(span)),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.String("route", route),
			}
			if s.facade != "" {
				attrs = append(attrs, slog.String("facade", s.facade))
			}
			if s.facade == "graphql" {
				attrs = append(attrs, slog.String("operation", s.operation))
			}
			attrs = append(attrs,
				slog.Int("status", status),
				slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
				slog.Int("bytes", ww.BytesWritten()),
				slog.String("account", s.account),
				slog.String("user", s.user),
				slog.Int64("upstream_calls", rec.UpstreamCalls()),
				slog.Int64("sql_statements", rec.SQLStatements()),
				slog.Int64("sql_round_trips", rec.SQLRoundTrips()),
			)
			if s.err != nil && !s.closed {
				cfg.Metrics.fault(s.facade, s.err)
			}
			if s.err != nil {
				attrs = append(attrs, slog.String("error", s.err.Error()))
				var p *panicError
				if errors.As(s.err, &p) {
					attrs = append(attrs, slog.String("stack", p.stack))
				}
			}
			cfg.Logger.LogAttrs(ctx, level, "request", attrs...)
		}()
		next.ServeHTTP(ww, r.WithContext(ctx))
	})
}

// traceID is the trace id of span, or "" when there is none.
func traceID(span trace.Span) string {
	if sc := span.SpanContext(); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}

// StatusClientClosed is the status logged (and written, to nobody) when the
// client went away before its answer: nginx's 499 "client closed request".
// Such a request is not a server failure and is not logged as one.
const StatusClientClosed = 499

// panicError is a recovered panic with the stack it happened on.
type panicError struct {
	value any
	stack string
}

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// Panic returns the error of a recovered panic v that happened on stack; on
// the access line it brings its stack along.
func Panic(v any, stack []byte) error { return &panicError{value: v, stack: string(stack)} }

// recoverer turns a panic into a 500 problem whose body carries only the
// request id; the panic and its stack go on the access line.
func recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			FromContext(r.Context()).SetError(&panicError{value: v, stack: string(debug.Stack())})
			if ww, ok := w.(middleware.WrapResponseWriter); ok && ww.Status() != 0 {
				return // the answer has started; nothing sane can follow
			}
			WriteInternalError(w, r)
		}()
		next.ServeHTTP(w, r)
	})
}

// WriteInternalError writes the RFC 9457 problem of an internal error: no
// detail but the request id, which is on the access line with the cause.
func WriteInternalError(w http.ResponseWriter, r *http.Request) {
	body, _ := json.Marshal(map[string]any{
		"type": "urn:okrgate:problem:internal", "title": http.StatusText(http.StatusInternalServerError),
		"status": http.StatusInternalServerError, "detail": "internal error", "code": "internal",
		"requestId": RequestID(r.Context()),
	})
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write(append(body, '\n'))
}
