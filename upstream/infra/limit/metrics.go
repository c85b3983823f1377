package limit

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the admission's Prometheus metrics.
type Metrics struct {
	admittedN *prometheus.CounterVec
	waits     *prometheus.HistogramVec
	refusals  *prometheus.CounterVec
}

// NewMetrics returns the counters and histogram of admission decisions.
func NewMetrics() *Metrics {
	return &Metrics{
		admittedN: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_admission_admitted_total",
			Help: "Requests and GraphQL operations admitted to execute, by lane (read, write).",
		}, []string{"lane"}),
		waits: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "okrgate_admission_queue_wait_seconds",
			Help:    "Time admitted requests waited in the admission queue, by lane and share (within: the request's key held less than its fair share of the limit; over: it held its share or more).",
			Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5},
		}, []string{"lane", "share"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_admission_refusals_total",
			Help: "Requests refused with 503, by lane, reason (wait: the estimated wait was over the allowance; timeout: waited the whole allowance) and share (within or over, as for the queue wait).",
		}, []string{"lane", "reason", "share"}),
	}
}

// Values of the share label: whether the request's key (account, token or
// address) held less than its fair share of the lane's limit when it was
// admitted or refused. Two values whatever the number of keys, so the
// series stay few; refusals "within" a share are the ones to look at (the
// server is short of capacity for everyone), refusals "over" are a flood
// being held to its share.
const (
	shareWithin = "within"
	shareOver   = "over"
)

func shareLabel(over bool) string {
	if over {
		return shareOver
	}
	return shareWithin
}

func (m *Metrics) admitted(lane string, wait time.Duration, over bool) {
	if m != nil {
		m.admittedN.WithLabelValues(lane).Inc()
		m.waits.WithLabelValues(lane, shareLabel(over)).Observe(wait.Seconds())
	}
}

func (m *Metrics) refused(lane, reason string, over bool) {
	if m != nil {
		m.refusals.WithLabelValues(lane, reason, shareLabel(over)).Inc()
	}
}

// Register registers m and the gauges of a (current limit, requests
// executing, queue length, per lane) on reg.
func (m *Metrics) Register(reg prometheus.Registerer, a *Admission) error {
	cs := []prometheus.Collector{m.admittedN, m.waits, m.refusals}
	for _, l := range []*lane{a.reads, a.writes} {
		// The counters' series exist from the start, at 0: alerting rules
		// on a ratio of refusals then see it rise rather than appear.
		m.admittedN.WithLabelValues(l.name)
		for _, reason := range []string{ReasonWait, ReasonTimeout} {
			for _, share := range []string{shareWithin, shareOver} {
				m.refusals.WithLabelValues(l.name, reason, share)
			}
		}
		for _, g := range []struct {
			name, help string
			pick       func(limit, inflight, queued int) int
		}{
			{"okrgate_admission_limit", "Current concurrency limit of the lane (0: unbounded).", func(l, _, _ int) int { return l }},
			{"okrgate_admission_inflight", "Requests executing in the lane.", func(_, i, _ int) int { return i }},
			{"okrgate_admission_queue_length", "Requests waiting in the lane's queue.", func(_, _, q int) int { return q }},
		} {
			cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: g.name, Help: g.help, ConstLabels: prometheus.Labels{"lane": l.name},
			}, func() float64 { return float64(g.pick(l.state())) }))
		}
		for _, shed := range []bool{false, true} {
			state := "served"
			if shed {
				state = "shed"
			}
			cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name:        "okrgate_admission_keys",
				Help:        "Keys (accounts, tokens or addresses) busy in the lane during the last interval, by state: served (none of their requests refused) or shed (some refused; they get their shares of the limit after the served keys).",
				ConstLabels: prometheus.Labels{"lane": l.name, "state": state},
			}, func() float64 { return float64(l.keys(shed)) }))
		}
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
