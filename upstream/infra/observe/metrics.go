package observe

import (
	"context"
	"net/http"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/okrgate/okrgate/upstream"
)

// Metrics are the server's HTTP and upstream-call metrics. They are
// registered on a registry of the caller's (never the global one).
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	size     *prometheus.HistogramVec
	inFlight prometheus.Gauge
	upstream *prometheus.CounterVec
	faults   *prometheus.CounterVec
}

// NewMetrics creates the metrics and registers them, with the build
// information and the Go runtime and process collectors, on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	labels := []string{"facade", "route", "method", "code"}
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_http_requests_total",
			Help: "HTTP requests answered, by facade (rest, graphql, or empty for the server's own pages), route pattern, method and status code.",
		}, labels),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "okrgate_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by facade, route pattern, method and status code.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, labels),
		size: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "okrgate_http_response_size_bytes",
			Help:    "Size of HTTP response bodies, by facade, route pattern, method and status code.",
			Buckets: prometheus.ExponentialBuckets(64, 4, 10), // 64 B .. 16 MiB
		}, labels),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "okrgate_http_requests_in_flight",
			Help: "HTTP requests being answered.",
		}),
		upstream: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_upstream_calls_total",
			Help: "Calls of upstream.API methods, by the facade that made them (rest, graphql, or empty outside a request) and method.",
		}, []string{"facade", "method"}),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_faults_total",
			Help: "Requests that failed for the infrastructure (upstream.Classify: unavailable, upstream_unavailable, timeout, outcome_unknown, storage_full), by facade and code.",
		}, []string{"facade", "code"}),
	}
	// Every series exists from the start, at 0: alerting rules then see a
	// rise rather than a series appearing.
	for _, row := range upstream.Codes() {
		if row.Code.Infrastructure() {
			for _, facade := range []string{"rest", "graphql"} {
				m.faults.WithLabelValues(facade, string(row.Code))
			}
		}
	}
	for _, c := range []prometheus.Collector{
		m.requests, m.latency, m.size, m.inFlight, m.upstream, m.faults, buildInfo(),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// UpstreamCall counts one call of method, under the facade of the request
// of ctx (upstream/infra/instrument calls it).
func (m *Metrics) UpstreamCall(ctx context.Context, method string) {
	if m != nil {
		m.upstream.WithLabelValues(FromContext(ctx).Facade(), method).Inc()
	}
}

// fault counts a request whose recorded error (Record.SetError) is a
// failure of the infrastructure, under its facade and code.
func (m *Metrics) fault(facade string, err error) {
	if m == nil || err == nil {
		return
	}
	if e := upstream.Classify(err); e != nil && e.Code.Infrastructure() {
		m.faults.WithLabelValues(facade, string(e.Code)).Inc()
	}
}

// instrument wraps h with promhttp's instrumentation; the facade and route
// labels come from the request's Record once it has been answered.
func (m *Metrics) instrument(h http.Handler) http.Handler {
	facade := promhttp.WithLabelFromCtx("facade", func(ctx context.Context) string { return FromContext(ctx).Facade() })
	route := promhttp.WithLabelFromCtx("route", func(ctx context.Context) string {
		rec := FromContext(ctx)
		if rec == nil {
			return ""
		}
		if s := rec.snapshot(); s.route != "" {
			return s.route
		}
		return "unmatched"
	})
	h = promhttp.InstrumentHandlerResponseSize(m.size, h, facade, route)
	h = promhttp.InstrumentHandlerDuration(m.latency, h, facade, route)
	h = promhttp.InstrumentHandlerCounter(m.requests, h, facade, route)
	return promhttp.InstrumentHandlerInFlight(m.inFlight, h)
}

// buildInfo is okrgate_build_info: the module version, the commit and the
// Go version of the binary, as the toolchain recorded them.
func buildInfo() prometheus.Collector {
	version, revision, goVersion := "(devel)", "unknown", "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "okrgate_build_info",
		Help:        "Always 1; the labels say which build is running.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": goVersion},
	})
	g.Set(1)
	return g
}
