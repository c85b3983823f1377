package respcache

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// metrics are the cache's Prometheus metrics: hits, misses, evictions,
// answers superseded by a later version's, single-flight joins, and the
// bytes and answers kept.
type metrics struct {
	hits, misses, evictions, superseded, joins prometheus.Counter
	// derived and full count executions (misses) by how they ran: derived
	// from their lane's base, or in full (bases.go).
	derived, full prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, c *Cache) (*metrics, error) {
	m := &metrics{
		hits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "okrgate_graphql_cache_hits_total",
			Help: "GraphQL reads answered from the cache of shared answers.",
		}),
		misses: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "okrgate_graphql_cache_misses_total",
			Help: "GraphQL reads executed because no answer of their key was kept (one per execution, however many joined it).",
		}),
		evictions: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "okrgate_graphql_cache_evictions_total",
			Help: "Answers dropped from the cache to keep it within its byte bound.",
		}),
		superseded: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "okrgate_graphql_cache_superseded_total",
			Help: "Answers dropped from the cache because an answer of a later data version of their account was kept (no request asks for an earlier version again).",
		}),
		joins: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "okrgate_graphql_cache_joins_total",
			Help: "GraphQL reads answered by joining an identical read in flight (single-flight) instead of executing.",
		}),
	}
	executions := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "okrgate_graphql_cache_executions_total",
		Help: "Executions of shared answers by how they ran: derived (from the previous answer of their request and class, reading again only the items check-ins changed) or full.",
	}, []string{"kind"})
	m.derived, m.full = executions.WithLabelValues("derived"), executions.WithLabelValues("full")
	if reg == nil {
		return m, nil
	}
	bytes := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "okrgate_graphql_cache_bytes",
		Help: "Bytes the cache of shared answers holds (bodies, keys and bookkeeping).",
	}, func() float64 { return float64(c.Bytes()) })
	entries := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "okrgate_graphql_cache_entries",
		Help: "Answers the cache of shared answers holds.",
	}, func() float64 { return float64(c.Len()) })
	baseBytes := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "okrgate_graphql_cache_base_bytes",
		Help: "Bytes the cache of shared answers holds for deriving the next answers of its requests (the previous answers' pieces and levels).",
	}, func() float64 { return float64(c.BaseBytes()) })
	for _, col := range []prometheus.Collector{m.hits, m.misses, m.evictions, m.superseded, m.joins, executions, bytes, entries, baseBytes} {
		if err := reg.Register(col); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Stats are the cache's counters so far.
type Stats struct {
	Hits, Misses, Evictions, Superseded, Joins int64
	// Derived and Full are the executions derived from their lane's base
	// and those executed in full.
	Derived, Full int64
}

// Stats returns the cache's counters so far (also on /metrics).
func (c *Cache) Stats() Stats {
	return Stats{Hits: value(c.metrics.hits), Misses: value(c.metrics.misses),
		Evictions: value(c.metrics.evictions), Superseded: value(c.metrics.superseded), Joins: value(c.metrics.joins),
		Derived: value(c.metrics.derived), Full: value(c.metrics.full)}
}

func value(ctr prometheus.Counter) int64 {
	var m dto.Metric
	if err := ctr.Write(&m); err != nil {
		return 0
	}
	return int64(m.GetCounter().GetValue())
}
