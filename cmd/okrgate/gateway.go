package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/client"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/infra/observe"
	"github.com/okrgate/okrgate/upstream/seed"
)

// gatewayFlags are serve's settings for gateway mode (docs/gateway.md):
// --upstream names a server of the REST API to serve GraphQL, the
// playground and the REST facade over, instead of a local database.
type gatewayFlags struct {
	url           string
	timeout       time.Duration
	maxConcurrent int
	authTTL       time.Duration
	eventPoll     time.Duration
}

func addGatewayFlags(fs *flag.FlagSet) *gatewayFlags {
	g := &gatewayFlags{}
	fs.StringVar(&g.url, "upstream", "", "gateway mode: serve over the REST API at `URL` (http://host:port) instead of --db")
	fs.DurationVar(&g.timeout, "upstream-timeout", client.DefaultTimeout, "gateway mode: bound of one upstream request")
	fs.IntVar(&g.maxConcurrent, "upstream-max-concurrent", client.DefaultMaxConcurrent, "gateway mode: upstream requests in flight at once")
	fs.DurationVar(&g.authTTL, "upstream-auth-ttl", client.DefaultAuthCacheTTL, "gateway mode: how long an authenticated token is reused before the upstream is asked again (0 = the default, negative = never)")
	fs.DurationVar(&g.eventPoll, "upstream-events-poll", client.DefaultEventPoll, "gateway mode: how often the upstream's event feed is polled for the accounts with subscribers (the delay of their updates)")
	return g
}

// backend is what serve serves: the local store, or a client of an upstream.
type backend struct {
	api        upstream.API
	ready      func(context.Context) error
	queryCount func() int64
	// register adds the backend's own metrics to /metrics.
	register func(prometheus.Registerer) error
	// store is the local store (nil in gateway mode).
	store *sqlstore.Store
	// events is the event log subscriptions and the REST event feed read:
	// the store's, or in gateway mode the upstream's event feed (nil when
	// the upstream serves none).
	events upstream.EventLog
	close  func() error
	// where describes the backend for the start-up line.
	where string
	// minWrites is the fewest writes the store wants executing at once
	// (sqlstore.Store.MinWritesInFlight; 0 in gateway mode).
	minWrites int
}

// openBackend opens the database file db, or in gateway mode (g.url set)
// a client of the upstream whose designed operations are read from its
// OpenAPI document (when it does not answer yet, all are assumed, and the
// gateway starts anyway: /readyz says when the upstream answers). opts
// are more options of the store.
func openBackend(ctx context.Context, db string, g *gatewayFlags, tokens upstream.TokenPolicy, log *slog.Logger, opts ...sqlstore.Option) (*backend, error) {
	if g.url == "" {
		st, err := sqlstore.Open(ctx, db, append([]sqlstore.Option{sqlstore.WithTokenPolicy(tokens)}, opts...)...)
		if err != nil {
			return nil, err
		}
		return &backend{api: st, ready: st.Ready, queryCount: st.QueryCount, store: st, events: st, close: st.Close,
			register: func(prometheus.Registerer) error { return nil }, where: "database " + displayDB(db), minWrites: st.MinWritesInFlight()}, nil
	}
	c, err := client.New(g.url, client.Options{Transport: observe.Transport(client.NewTransport()), Timeout: g.timeout, MaxConcurrent: g.maxConcurrent,
		AuthCacheTTL: g.authTTL, EventPoll: g.eventPoll})
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	caps, err := c.Discover(dctx)
	if err != nil {
		log.Warn("gateway: the upstream's OpenAPI document could not be read; assuming every designed operation", "upstream", g.url, "err", err)
		caps = client.AllCapabilities()
	} else {
		log.Info("gateway: upstream capabilities", "upstream", g.url, "capabilities", fmt.Sprintf("%+v", *caps))
	}
	be := &backend{api: c, ready: c.Ready, queryCount: c.Requests, register: c.Register,
		close: func() error { return nil }, where: "upstream " + g.url}
	if caps.Events {
		// Subscriptions follow the upstream's event feed; without one, a
		// subscription is refused with the error of a server without a log.
		be.events = c
	}
	return be, nil
}

// seedUpstream fills the account of token on the server of the REST API at
// url, through the client: every write is an ordinary API call.
func seedUpstream(ctx context.Context, url, token string, opt seed.Options) (seed.Summary, error) {
	c, err := client.New(url, client.Options{})
	if err != nil {
		return seed.Summary{}, err
	}
	caller, err := c.Authenticate(ctx, token)
	if err != nil {
		return seed.Summary{}, fmt.Errorf("seed: authenticate with %s: %w", url, err)
	}
	return seed.SyntheticTo(upstream.NewContext(ctx, caller), c, opt)
}

// errDemoGateway refuses --demo in gateway mode: the demo seeds a local database.
var errDemoGateway = errors.New("--demo seeds a local database; it cannot be combined with --upstream (seed the upstream with okrgate seed --upstream)")
