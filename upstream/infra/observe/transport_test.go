package observe_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// TestTransportPropagates: a call through observe.Transport from a traced
// request opens a client span in the request's trace and carries that trace
// to the upstream server in traceparent (gateway mode).
func TestTransportPropagates(t *testing.T) {
	got := make(chan string, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("traceparent")
	}))
	defer up.Close()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	ctx, span := tp.Tracer("test").Start(context.Background(), "request")
	req, err := http.NewRequestWithContext(ctx, "GET", up.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := (&http.Client{Transport: observe.Transport(nil)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	span.End()
	tp2 := <-got
	traceID := span.SpanContext().TraceID().String()
	if !strings.HasPrefix(tp2, "00-"+traceID+"-") {
		t.Errorf("traceparent %q, want trace %s", tp2, traceID)
	}
	var client int
	for _, s := range exp.GetSpans() {
		if s.SpanKind == trace.SpanKindClient && s.SpanContext.TraceID() == span.SpanContext().TraceID() {
			client++
			if !strings.Contains(tp2, s.SpanContext.SpanID().String()) {
				t.Errorf("traceparent %q does not name the client span %s", tp2, s.SpanContext.SpanID())
			}
		}
	}
	if client != 1 {
		t.Errorf("%d client spans, want 1", client)
	}
}
