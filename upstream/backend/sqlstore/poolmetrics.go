package sqlstore

import (
	"github.com/prometheus/client_golang/prometheus"
)

// PoolCollector returns the metrics of the store's PostgreSQL connection
// pool (pgxpool's statistics, and the waits for a connection that ran
// past Deadlines.Acquire), or nil on SQLite, whose pools database/sql
// counts (Pools). What they show: connections open, idle and in use
// against the maximum; how often a request waited for a free one and for
// how long in all; how often it gave up.
func (s *Store) PoolCollector() prometheus.Collector {
	if s.pg == nil {
		return nil
	}
	return poolCollector{s.pg}
}

var (
	poolConns = prometheus.NewDesc("okrgate_db_pool_connections",
		"PostgreSQL connections of the pool by state: idle, in_use, connecting.", []string{"state"}, nil)
	poolMax = prometheus.NewDesc("okrgate_db_pool_max_connections",
		"The most connections the PostgreSQL pool opens.", nil, nil)
	poolAcquires = prometheus.NewDesc("okrgate_db_pool_acquires_total",
		"Connections taken from the PostgreSQL pool.", nil, nil)
	poolWaits = prometheus.NewDesc("okrgate_db_pool_waits_total",
		"Takes of a connection that waited: none was idle.", nil, nil)
	poolWaitSeconds = prometheus.NewDesc("okrgate_db_pool_wait_seconds_total",
		"Time spent waiting for a connection of the PostgreSQL pool.", nil, nil)
	poolAcquireTimeouts = prometheus.NewDesc("okrgate_db_pool_acquire_timeouts_total",
		"Waits for a connection that ran past the acquire deadline (--db-acquire-timeout), answered 503 unavailable.", nil, nil)
	poolNewConns = prometheus.NewDesc("okrgate_db_pool_connects_total",
		"Connections opened to PostgreSQL (a rising rate: connections being lost).", nil, nil)
	writeRetries = prometheus.NewDesc("okrgate_db_write_retries_total",
		"Write transactions run again by reason: contention (a deadlock, or a serialization failure with serializable transactions), connection_lost (the connection broke before the COMMIT was sent).", []string{"reason"}, nil)
)

type poolCollector struct{ p *pgStore }

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolConns, poolMax, poolAcquires, poolWaits, poolWaitSeconds, poolAcquireTimeouts, poolNewConns, writeRetries} {
		ch <- d
	}
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.p.pool.Stat()
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(st.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(st.AcquiredConns()), "in_use")
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(st.ConstructingConns()), "connecting")
	ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(st.MaxConns()))
	ch <- prometheus.MustNewConstMetric(poolAcquires, prometheus.CounterValue, float64(st.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(st.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWaitSeconds, prometheus.CounterValue, st.EmptyAcquireWaitTime().Seconds())
	ch <- prometheus.MustNewConstMetric(poolAcquireTimeouts, prometheus.CounterValue, float64(c.p.acquireTimeouts.Load()))
	ch <- prometheus.MustNewConstMetric(poolNewConns, prometheus.CounterValue, float64(st.NewConnsCount()))
	ch <- prometheus.MustNewConstMetric(writeRetries, prometheus.CounterValue, float64(c.p.retries.Load()), "contention")
	ch <- prometheus.MustNewConstMetric(writeRetries, prometheus.CounterValue, float64(c.p.reconnects.Load()), "connection_lost")
}
