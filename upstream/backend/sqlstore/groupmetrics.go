package sqlstore

import (
	"github.com/prometheus/client_golang/prometheus"
)

// GroupCollector returns the metrics of group commit (groupcommit.go,
// grouplocal.go), on SQLite and PostgreSQL alike: the write transactions
// the account queues drained and the writes they took. Their rates'
// quotient is the mean group: near 1 when writes come one at a time,
// higher when they queue behind one another (check-ins side by side),
// which is what makes an account's writes cheaper per write under load.
func (s *Store) GroupCollector() prometheus.Collector {
	return groupCollector{&s.groups}
}

var (
	groupTxs = prometheus.NewDesc("okrgate_db_write_groups_total",
		"Write transactions committed for queued writes (group commit): each took one or more writes of one account.", nil, nil)
	groupWrites = prometheus.NewDesc("okrgate_db_grouped_writes_total",
		"Writes taken by those transactions; ÷ okrgate_db_write_groups_total is the mean group.", nil, nil)
)

type groupCollector struct{ g *groups }

func (c groupCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- groupTxs
	ch <- groupWrites
}

func (c groupCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(groupTxs, prometheus.CounterValue, float64(c.g.txs.Load()))
	ch <- prometheus.MustNewConstMetric(groupWrites, prometheus.CounterValue, float64(c.g.writes.Load()))
}
