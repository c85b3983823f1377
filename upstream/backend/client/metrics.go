package client

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the client's Prometheus collectors.
type metrics struct {
	calls        *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	retries      *prometheus.CounterVec
	fallbacks    *prometheus.CounterVec
	splits       *prometheus.CounterVec
	breakerState prometheus.Gauge
	sent         *atomic.Int64 // requests sent, for Requests
}

// Register registers the client's metrics with reg (when Options.Registerer
// was not given, or for a second registry).
func (c *Client) Register(reg prometheus.Registerer) error {
	m, err := c.m.register(reg)
	if err != nil {
		return err
	}
	c.m = m
	return nil
}

// Requests returns the number of HTTP requests sent to the upstream.
func (c *Client) Requests() int64 { return c.m.sent.Load() }

// newMetrics creates the collectors and registers them with reg (nil: not
// registered). Registering twice with one registry reuses the collectors
// already there.
func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{sent: new(atomic.Int64),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_upstream_http_requests_total",
			Help: "HTTP requests of the gateway to its upstream, by method, route and status (error: no answer; breaker_open: not sent).",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "okrgate_upstream_http_request_duration_seconds",
			Help:    "Time of the gateway's HTTP requests to its upstream, by method, route and status.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method", "route", "status"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_upstream_http_retries_total",
			Help: "Retries of idempotent upstream reads after a connection error or a 503, by route.",
		}, []string{"route"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_upstream_fallback_calls_total",
			Help: "Per-parent upstream calls made because the upstream lacks a designed listing, by method of upstream.API.",
		}, []string{"operation"}),
		splits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "okrgate_upstream_split_calls_total",
			Help: "Extra upstream calls made because a listing's $in filter was split to keep its URL under the length bound, by route.",
		}, []string{"route"}),
		breakerState: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "okrgate_upstream_circuit_state",
			Help: "State of the circuit breaker in front of the upstream: 0 closed, 1 half-open, 2 open.",
		}),
	}
	return m.register(reg)
}

// register returns m with its collectors registered with reg (those
// registered before in their place).
func (m *metrics) register(reg prometheus.Registerer) (*metrics, error) {
	if reg == nil {
		return m, nil
	}
	m2 := *m
	m = &m2
	var err error
	if m.calls, err = register(reg, m.calls); err != nil {
		return nil, err
	}
	if m.latency, err = register(reg, m.latency); err != nil {
		return nil, err
	}
	if m.retries, err = register(reg, m.retries); err != nil {
		return nil, err
	}
	if m.fallbacks, err = register(reg, m.fallbacks); err != nil {
		return nil, err
	}
	if m.splits, err = register(reg, m.splits); err != nil {
		return nil, err
	}
	if m.breakerState, err = register(reg, m.breakerState); err != nil {
		return nil, err
	}
	return m, nil
}

// register registers c with reg, or returns the equal collector registered
// before (two clients on one registry share their series).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if old, ok := are.ExistingCollector.(C); ok {
				return old, nil
			}
		}
		return c, fmt.Errorf("client: register metrics: %w", err)
	}
	return c, nil
}

// observe records one upstream request.
func (m *metrics) observe(method, route, status string, d time.Duration) {
	m.sent.Add(1)
	m.calls.WithLabelValues(method, route, status).Inc()
	m.latency.WithLabelValues(method, route, status).Observe(d.Seconds())
}
