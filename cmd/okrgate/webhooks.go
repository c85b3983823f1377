package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/dispatch"
)

// webhookFlags are serve's settings of webhook deliveries (docs/webhooks.md).
type webhookFlags struct {
	allowPrivate bool
	allowHosts   string
	retry        upstream.WebhookRetryPolicy
	timeout      time.Duration
	off          bool
}

// addWebhookFlags declares the flags on fs.
func addWebhookFlags(fs *flag.FlagSet) *webhookFlags {
	w := &webhookFlags{}
	fs.BoolVar(&w.allowPrivate, "webhook-allow-private", false, "let webhooks target loopback, private and link-local addresses (tests, local use); refused by default")
	fs.StringVar(&w.allowHosts, "webhook-allow-hosts", "", "comma-separated `hosts` webhooks may target (hooks.example.com, or *.example.com for its subdomains); any public host when empty")
	fs.DurationVar(&w.retry.First, "webhook-retry-first", upstream.WebhookFirstRetry, "wait after a delivery's first failed attempt; doubles after each further failure")
	fs.DurationVar(&w.retry.MaxGap, "webhook-retry-max-gap", upstream.WebhookMaxRetryGap, "longest wait between two attempts of a delivery")
	fs.DurationVar(&w.retry.For, "webhook-retry-for", upstream.WebhookRetryFor, "how long a delivery is retried, from when it was queued, before it is abandoned (failed)")
	fs.DurationVar(&w.timeout, "webhook-timeout", dispatch.DefaultTimeout, "time a receiver has to answer one attempt")
	fs.BoolVar(&w.off, "webhook-dispatch-off", false, "serve the webhook API but send no deliveries from this process (another replica sends them)")
	return w
}

// policy is the target policy the flags ask for.
func (w *webhookFlags) policy() upstream.WebhookTargetPolicy {
	p := upstream.WebhookTargetPolicy{AllowPrivate: w.allowPrivate}
	for _, h := range strings.Split(w.allowHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			p.AllowHosts = append(p.AllowHosts, h)
		}
	}
	return p
}

// validate checks the durations.
func (w *webhookFlags) validate() error {
	if w.retry.First <= 0 || w.retry.MaxGap < w.retry.First || w.retry.For <= 0 || w.timeout <= 0 {
		return fmt.Errorf("webhooks: --webhook-retry-first, --webhook-timeout and --webhook-retry-for must be positive, and --webhook-retry-max-gap at least --webhook-retry-first")
	}
	return nil
}

// startWebhooks applies the target policy to the local store, registers
// the delivery metrics and runs the dispatcher until ctx ends. In gateway
// mode (no local store) it does nothing: the upstream has no event log.
func startWebhooks(ctx context.Context, w *webhookFlags, be *backend, reg prometheus.Registerer, log *slog.Logger) error {
	if be.store == nil {
		return nil
	}
	if err := w.validate(); err != nil {
		return err
	}
	be.store.SetWebhookPolicy(w.policy())
	m, err := dispatch.NewMetrics(reg)
	if err != nil {
		return err
	}
	if w.off {
		return nil
	}
	d := dispatch.New(be.store, dispatch.Options{Policy: w.policy(), Retry: w.retry, Timeout: w.timeout, Log: log, Metrics: m})
	go func() {
		if err := d.Run(ctx); err != nil {
			log.Error("webhooks: dispatcher stopped", "err", err)
		}
	}()
	return nil
}

// webhookService is what serves /api/v1/webhooks: the local store, or
// nothing in gateway mode (the routes then answer 404).
func webhookService(be *backend) upstream.WebhookService {
	if be.store == nil {
		return nil
	}
	return be.store
}
