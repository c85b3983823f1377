package resolvers

import (
	"net/http"
	"regexp"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
)

// Metrics are the Prometheus metrics of the GraphQL API, in their own
// registry (never the global default one).
type Metrics struct {
	Registry *prometheus.Registry
	Calls    *CallCounter

	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	upstream *prometheus.CounterVec
	strays   prometheus.Counter

	mu    sync.Mutex
	names map[string]bool
}

// maxOperationNames bounds the operation label's cardinality: names beyond
// it (clients choose them) are reported as "other".
const maxOperationNames = 200

var opNameRE = regexp.MustCompile(`^[_A-Za-z][_0-9A-Za-z]{0,63}$`)

// NewMetrics creates the metrics. storeQueries, when not nil, is exported as
// okrgate_store_queries_total (cmd passes the store's QueryCount).
func NewMetrics(storeQueries func() int64) *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		Calls:    NewCallCounter(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_graphql_requests_total",
			Help: "GraphQL operations executed, by operation name and outcome (ok or error).",
		}, []string{"operation", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "okrgate_graphql_request_duration_seconds",
			Help:    "Time to produce a GraphQL response, by operation name.",
			Buckets: prometheus.DefBuckets,
		}, []string{"operation"}),
		upstream: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_upstream_calls_total",
			Help: "Calls of upstream.API methods made by the GraphQL resolvers and loaders.",
		}, []string{"method"}),
		strays: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "okrgate_graphql_stray_loads_total",
			Help: "Parents whose edge was loaded outside the batch of their level (each an extra upstream call; expected 0).",
		}),
		names: map[string]bool{},
	}
	m.Calls.OnCall = func(method string) { m.upstream.WithLabelValues(method).Inc() }
	m.Registry.MustRegister(m.requests, m.latency, m.upstream, m.strays,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if storeQueries != nil {
		m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "okrgate_store_queries_total",
			Help: "SQL statements run by the store.",
		}, func() float64 { return float64(storeQueries()) }))
	}
	return m
}

// Strays returns okrgate_graphql_stray_loads_total.
func (m *Metrics) Strays() int64 {
	var d dto.Metric
	if err := m.strays.Write(&d); err != nil {
		return 0
	}
	return int64(d.GetCounter().GetValue())
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

func (m *Metrics) opLabel(name string) string {
	if name == "" {
		return "anonymous"
	}
	if !opNameRE.MatchString(name) {
		return "other"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.names[name] {
		if len(m.names) >= maxOperationNames {
			return "other"
		}
		m.names[name] = true
	}
	return name
}
