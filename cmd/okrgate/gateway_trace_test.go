package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/okrgate/okrgate/upstream"
)

// TestGatewayPropagatesTrace: in gateway mode every upstream call carries
// the request's trace onward in a W3C traceparent header, and opens a
// client span in that trace.
func TestGatewayPropagatesTrace(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []string // traceparent of each upstream listing call
	)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/v2/integrations/goals") {
			mu.Lock()
			seen = append(seen, r.Header.Get("traceparent"))
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"items":[],"totalCount":0}`))
	}))
	defer up.Close()

	ctx := context.Background()
	g := &gatewayFlags{url: up.URL, timeout: 5 * time.Second, maxConcurrent: 4}
	be, err := openBackend(ctx, "", g, upstream.TokenPolicy{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer be.close()

	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(ctx)
	rctx, span := tp.Tracer("test").Start(ctx, "request")
	caller := upstream.Caller{AccountID: "acc", UserID: "usr", Token: "secret"}
	if _, err := be.api.ListGoals(upstream.NewContext(rctx, caller), upstream.ListQuery{}); err != nil {
		t.Fatalf("ListGoals through the gateway client: %v", err)
	}
	span.End()

	traceID := span.SpanContext().TraceID().String()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 {
		t.Fatalf("upstream listing calls: %d, want 1", len(seen))
	}
	// traceparent: version-traceid-parentid-flags
	parts := strings.Split(seen[0], "-")
	if len(parts) != 4 || parts[1] != traceID {
		t.Fatalf("traceparent %q does not continue trace %s", seen[0], traceID)
	}
	var client bool
	for _, s := range exp.GetSpans() {
		if s.SpanContext.TraceID().String() == traceID && s.SpanContext.SpanID().String() == parts[2] {
			client = true
		}
	}
	if !client {
		t.Fatalf("no span in the trace has the id the upstream saw as parent (%s)", parts[2])
	}
}
