package observe_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// BenchmarkStack: one request to a handler that writes a small body, bare
// (the baseline) and behind the whole stack (JSON access line to
// io.Discard, Prometheus metrics, tracing off).
//
//	go test ./upstream/infra/observe -run '^$' -bench Stack -count 3
func BenchmarkStack(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"ok":true}`)) })
	m, err := observe.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	stacked := observe.Stack(observe.Config{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Metrics: m})(h)
	for _, tc := range []struct {
		name string
		h    http.Handler
	}{{"bare", h}, {"stack", stacked}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			r := httptest.NewRequest("GET", "/api/v2/sessions", nil)
			for b.Loop() {
				tc.h.ServeHTTP(httptest.NewRecorder(), r)
			}
		})
	}
}
