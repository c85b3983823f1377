package main_test

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP trace receiver that keeps what it is sent.
type collector struct {
	mu       sync.Mutex
	names    []string
	traces   map[string]bool
	services map[string]bool
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || err != nil || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				c.services[a.GetValue().GetStringValue()] = true
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.names = append(c.names, s.GetName())
				c.traces[hex.EncodeToString(s.GetTraceId())] = true
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// TestOTLPExportFromEnvironment: the built binary, given only the standard
// OTEL_EXPORTER_OTLP_ENDPOINT, sends the request's trace (continuing the
// inbound traceparent) over OTLP/HTTP, flushed when it stops.
func TestOTLPExportFromEnvironment(t *testing.T) {
	col := &collector{traces: map[string]bool{}, services: map[string]bool{}}
	cs := httptest.NewServer(col)
	defer cs.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", cs.URL) // the server inherits it
	db := filepath.Join(t.TempDir(), "otlp.db")
	boot := bootstrapDB(t, db, "Acme", "admin@acme.test")
	srv := startServer(t, db)
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	if code, body := get(t, "GET", srv.base+"/api/v2/sessions", "", map[string]string{
		"Authorization": "Bearer " + boot.Token, "traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"}); code != 200 {
		t.Fatalf("REST: %d %s", code, body)
	}
	srv.stop(t) // SIGTERM: the batch of spans is flushed before exit
	col.mu.Lock()
	defer col.mu.Unlock()
	if !col.traces[traceID] || !col.services["okrgate"] {
		t.Errorf("traces %v, services %v: want trace %s of service okrgate", col.traces, col.services, traceID)
	}
	for _, want := range []string{"GET /api/v2/sessions", "upstream.Authenticate", "upstream.ListSessions"} {
		if !slices.Contains(col.names, want) {
			t.Errorf("no span %q in %v", want, col.names)
		}
	}
	if !slices.ContainsFunc(col.names, func(n string) bool { return strings.HasPrefix(n, "sql ") }) {
		t.Errorf("no SQL span in %v", col.names)
	}
}
