// Package observe is what an operator sees of a request: its id, its one
// access-log line, its Prometheus metrics and its OpenTelemetry trace.
//
// Stack is the one HTTP middleware stack of the server, put on the
// top-level router in front of the REST facade, GraphQL, the playground and
// /metrics alike. It gives every request a Record in its context; the
// facades fill in what only they know (the route or the GraphQL operation,
// the caller, the error behind a 5xx), the upstream decorator
// (upstream/infra/instrument) and the store count their calls and statements in
// it, and the stack writes the line and the metrics when the request ends.
//
// Tracing is off unless the standard OTEL_* variables configure an
// exporter (Tracing). Code below the stack opens its spans with Tracer,
// which takes the provider from the span already in the context: no global
// provider is set, and with tracing off every span is a no-op.
package observe
