package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/resolvers/live"
	"github.com/okrgate/okrgate/upstream"
)

// pruneInterval is how often serve prunes the event log.
const pruneInterval = time.Hour

// startLive returns the subscriptions of a local store (nil in gateway
// mode: the upstream's REST API has no event stream) and prunes its event
// log every pruneInterval, keeping upstream.DefaultEventRetention, until
// ctx ends.
func startLive(ctx context.Context, be *backend, log *slog.Logger) *live.Hub {
	if be.store == nil {
		if be.events == nil {
			return nil
		}
		return &live.Hub{Log: be.events} // gateway mode: the upstream's event feed
	}
	go func() {
		t := time.NewTicker(pruneInterval)
		defer t.Stop()
		for {
			if n, err := be.store.PruneEvents(ctx, upstream.DefaultEventRetention); err != nil {
				if ctx.Err() != nil {
					return
				}
				log.Warn("events: prune", "err", err)
			} else if n > 0 {
				log.Info("events: pruned", "events", n)
			}
			if n, err := be.store.PruneWebhookDeliveries(ctx, upstream.DefaultEventRetention); err != nil && ctx.Err() == nil {
				log.Warn("webhooks: prune deliveries", "err", err)
			} else if n > 0 {
				log.Info("webhooks: pruned deliveries", "deliveries", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return &live.Hub{Log: be.store, Classes: be.store}
}

// registerLiveMetrics registers the subscription metrics of l (nil in
// gateway mode: none) on reg.
func registerLiveMetrics(reg prometheus.Registerer, l *live.Hub) error {
	if l == nil {
		return nil
	}
	for _, c := range []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "okrgate_subscriptions_active",
			Help: "GraphQL subscriptions open (graphql-transport-ws and SSE).",
		}, func() float64 { return float64(l.Active()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "okrgate_subscription_events_delivered_total",
			Help: "Items sent to GraphQL subscribers (after their filter and authorization).",
		}, func() float64 { return float64(l.Delivered()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "okrgate_subscription_slow_consumer_disconnects_total",
			Help: "GraphQL subscriptions ended because their consumer fell a whole buffer behind.",
		}, func() float64 { return float64(l.SlowConsumers()) }),
	} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
