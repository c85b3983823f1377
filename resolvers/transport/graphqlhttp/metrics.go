package graphqlhttp

import (
	"context"
	"regexp"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/okrgate/okrgate/graph/fastpath"
	"github.com/okrgate/okrgate/resolvers"
)

// Metrics are the Prometheus metrics of the GraphQL API: requests and
// latency per operation, and stray loads. The HTTP metrics of every
// request, the upstream calls and the build are observe.Metrics'.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	strays   prometheus.Counter
	fast     *prometheus.CounterVec

	mu    sync.Mutex
	names map[string]bool
}

// maxOperationNames bounds the operation label's cardinality: names beyond
// it (clients choose them) are reported as "other".
const maxOperationNames = 200

var opNameRE = regexp.MustCompile(`^[_A-Za-z][_0-9A-Za-z]{0,63}$`)

// NewMetrics creates the metrics and registers them on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_graphql_requests_total",
			Help: "GraphQL operations executed, by operation name and outcome (ok or error).",
		}, []string{"operation", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "okrgate_graphql_request_duration_seconds",
			Help:    "Time to produce a GraphQL response, by operation name.",
			Buckets: prometheus.DefBuckets,
		}, []string{"operation"}),
		strays: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "okrgate_graphql_stray_loads_total",
			Help: "Parents whose edge was loaded outside the batch of their level (each an extra upstream call; expected 0).",
		}),
		fast: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_graphql_fast_path_fields_total",
			Help: "Fields whose subtree the breadth-first fast path examined, by outcome: served, unsupported (a selection it leaves to gqlgen's executor) or gave_up (an error or null that gqlgen's executor then reported).",
		}, []string{"outcome"}),
		names: map[string]bool{},
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.strays, m.fast} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Strays returns okrgate_graphql_stray_loads_total.
func (m *Metrics) Strays() int64 {
	var d dto.Metric
	if err := m.strays.Write(&d); err != nil {
		return 0
	}
	return int64(d.GetCounter().GetValue())
}

// AddStrayLoads implements resolvers.Counters.
func (m *Metrics) AddStrayLoads(n int) { m.strays.Add(float64(n)) }

// CountFastPath implements resolvers.Counters.
func (m *Metrics) CountFastPath(o fastpath.Outcome) { m.fast.WithLabelValues(o.String()).Inc() }

var _ resolvers.Counters = (*Metrics)(nil)

// aroundResponses is a gqlgen response middleware: it counts each answer
// by operation and outcome, and times it.
func (m *Metrics) aroundResponses(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	start := time.Now()
	resp := next(ctx)
	op := m.opLabel(operationName(ctx))
	outcome := "ok"
	if resp == nil || len(resp.Errors) > 0 {
		outcome = "error"
	}
	m.requests.WithLabelValues(op, outcome).Inc()
	m.latency.WithLabelValues(op).Observe(time.Since(start).Seconds())
	return resp
}

// FastPath returns okrgate_graphql_fast_path_fields_total of outcome.
func (m *Metrics) FastPath(o fastpath.Outcome) int64 {
	var d dto.Metric
	if err := m.fast.WithLabelValues(o.String()).Write(&d); err != nil {
		return 0
	}
	return int64(d.GetCounter().GetValue())
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
