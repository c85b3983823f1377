package dispatch

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/upstream"
)

// Metrics are the dispatcher's Prometheus metrics (docs/operations.md).
type Metrics struct {
	attempts   *prometheus.CounterVec
	deliveries *prometheus.CounterVec
	retries    prometheus.Counter
	depth      prometheus.Gauge
}

// NewMetrics creates the metrics and registers them on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_webhook_attempts_total",
			Help: "Webhook delivery attempts, by outcome: success (2xx), http_error (another status), network_error (no answer), refused (target not allowed).",
		}, []string{"outcome"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_webhook_deliveries_total",
			Help: "Webhook deliveries completed, by outcome: succeeded, or failed (abandoned when the retry time ran out).",
		}, []string{"outcome"}),
		retries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "okrgate_webhook_retries_total",
			Help: "Webhook delivery attempts after the first (retries).",
		}),
		depth: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "okrgate_webhook_queue_depth",
			Help: "Webhook deliveries pending (waiting for their first attempt or a retry), as last counted by this replica's dispatcher.",
		}),
	}
	for _, c := range []prometheus.Collector{m.attempts, m.deliveries, m.retries, m.depth} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for _, o := range []string{"success", "http_error", "network_error", "refused"} {
		m.attempts.WithLabelValues(o)
	}
	for _, o := range []string{upstream.DeliverySucceeded, upstream.DeliveryFailed} {
		m.deliveries.WithLabelValues(o)
	}
	return m, nil
}

// attempt counts one attempt and, when it completed the delivery, the
// delivery.
func (m *Metrics) attempt(status int, err error, state string, attempt int) {
	if m == nil {
		return
	}
	outcome := "success"
	switch {
	case err != nil && isRefusal(err):
		outcome = "refused"
	case err != nil:
		outcome = "network_error"
	case !upstream.WebhookAttemptSucceeded(status):
		outcome = "http_error"
	}
	m.attempts.WithLabelValues(outcome).Inc()
	if attempt > 1 {
		m.retries.Inc()
	}
	if state != upstream.DeliveryPending {
		m.deliveries.WithLabelValues(state).Inc()
	}
}

func (m *Metrics) queueDepth(n int64) {
	if m != nil {
		m.depth.Set(float64(n))
	}
}
