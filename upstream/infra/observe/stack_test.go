package observe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// serve runs one request through the stack around h and returns the answer
// and the JSON log lines.
func serve(t *testing.T, h http.Handler, r *http.Request, quiet bool) (*httptest.ResponseRecorder, []map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	cfg := observe.Config{Logger: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if quiet {
		cfg.Quiet = func(*http.Request) bool { return true }
	}
	w := httptest.NewRecorder()
	observe.Stack(cfg)(h).ServeHTTP(w, r)
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return w, lines
}

func TestRequestID(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if observe.RequestID(r.Context()) != w.Header().Get("X-Request-Id") {
			t.Errorf("context id %q, header %q", observe.RequestID(r.Context()), w.Header().Get("X-Request-Id"))
		}
	})
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for in, keep := range map[string]bool{"": false, "trace-42_a": true, "bad id; drop": false, strings.Repeat("a", 64): true, strings.Repeat("a", 65): false} {
		r := httptest.NewRequest("GET", "/x", nil)
		if in != "" {
			r.Header.Set("X-Request-Id", in)
		}
		w, lines := serve(t, ok, r, false)
		got := w.Header().Get("X-Request-Id")
		if keep && got != in || !keep && !hex32.MatchString(got) {
			t.Errorf("inbound %q: id %q", in, got)
		}
		if len(lines) != 1 || lines[0]["request_id"] != got {
			t.Errorf("inbound %q: lines %v", in, lines)
		}
	}
}

// TestPanicOnOneLine: a panic is a 500 problem with the request id only,
// and one ERROR line with the panic and its stack.
func TestPanicOnOneLine(t *testing.T) {
	boom := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	w, lines := serve(t, boom, httptest.NewRequest("GET", "/x", nil), false)
	var p map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || w.Code != 500 || p["detail"] != "internal error" || p["requestId"] != w.Header().Get("X-Request-Id") || strings.Contains(w.Body.String(), "boom") {
		t.Errorf("answer %d %s", w.Code, w.Body)
	}
	if len(lines) != 1 || lines[0]["level"] != "ERROR" || lines[0]["status"] != 500.0 || lines[0]["error"] != "panic: boom" || !strings.Contains(lines[0]["stack"].(string), "goroutine") {
		t.Errorf("lines %v", lines)
	}
}

// TestRecordOnTheLine: what the facades record is on the line; an error is
// logged at ERROR even in a 200 answer (GraphQL), a client gone at INFO
// with status 499.
func TestRecordOnTheLine(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := observe.FromContext(r.Context())
		rec.SetFacade("graphql")
		rec.SetOperation("Tree")
		rec.SetCaller("acct", "user")
		rec.AddUpstreamCall()
		rec.AddSQLStatement()
		rec.AddSQLStatement()
		if r.URL.Path == "/err" {
			rec.SetError(errors.New("disk I/O error"))
		}
		if r.URL.Path == "/gone" {
			rec.SetClientClosed()
			rec.SetError(context.Canceled)
		}
		_, _ = w.Write([]byte("{}"))
	})
	_, lines := serve(t, h, httptest.NewRequest("POST", "/ok", nil), false)
	l := lines[0]
	if l["level"] != "INFO" || l["operation"] != "Tree" || l["facade"] != "graphql" || l["account"] != "acct" || l["user"] != "user" ||
		l["upstream_calls"] != 1.0 || l["sql_statements"] != 2.0 || l["bytes"] != 2.0 || l["status"] != 200.0 || l["error"] != nil {
		t.Errorf("line %v", l)
	}
	if _, lines := serve(t, h, httptest.NewRequest("POST", "/err", nil), false); lines[0]["level"] != "ERROR" || lines[0]["error"] != "disk I/O error" {
		t.Errorf("error line %v", lines[0])
	}
	if _, lines := serve(t, h, httptest.NewRequest("POST", "/gone", nil), false); lines[0]["level"] != "INFO" || lines[0]["status"] != 499.0 {
		t.Errorf("client-closed line %v", lines[0])
	}
	if _, lines := serve(t, h, httptest.NewRequest("GET", "/healthz", nil), true); lines[0]["level"] != "DEBUG" {
		t.Errorf("quiet line %v", lines[0])
	}
}

// TestTracingFromEnvironment: off unless an OTLP endpoint or exporter is
// named; what is not supported is refused, not ignored.
func TestTracingFromEnvironment(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	ctx := context.Background()
	for _, kv := range []map[string]string{
		{},
		{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"},
		{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"},
	} {
		tp, stop, err := observe.Tracing(ctx, env(kv), "test")
		if err != nil {
			t.Fatalf("%v: %v", kv, err)
		}
		if _, span := tp.Tracer("t").Start(ctx, "x"); span.IsRecording() {
			t.Errorf("%v: tracing is on", kv)
		}
		_ = stop(ctx)
	}
	for _, kv := range []map[string]string{
		{"OTEL_TRACES_EXPORTER": "zipkin"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
	} {
		if _, _, err := observe.Tracing(ctx, env(kv), "test"); err == nil {
			t.Errorf("%v: accepted", kv)
		}
	}
	tp, stop, err := observe.Tracing(ctx, env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}), "test")
	if err != nil {
		t.Fatal(err)
	}
	_, span := tp.Tracer("t").Start(ctx, "x")
	if !span.IsRecording() || !span.SpanContext().IsValid() {
		t.Error("an OTLP endpoint does not turn tracing on")
	}
	span.End()
	sctx, cancel := context.WithCancel(ctx)
	cancel() // nothing listens there: do not wait for the export
	_ = stop(sctx)
}
