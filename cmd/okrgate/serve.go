package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/go-chi/cors"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/resolvers/transport/playground"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/infra/limit"
	"github.com/okrgate/okrgate/upstream/infra/observe"
	"github.com/okrgate/okrgate/upstream/seed"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// shutdownGrace bounds how long in-flight requests may take to finish after SIGTERM.
const shutdownGrace = 20 * time.Second

// serveAs returns the serve command of a binary invoked as prog
// (invokedAs): serve --demo on a database that already holds the demo
// account prints the command, prog's, that mints a new token for it.
func serveAs(prog string) func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
		return serve(ctx, prog, args, getenv, stdout, stderr)
	}
}

func serve(ctx context.Context, prog string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", "okrgate serve [--addr 127.0.0.1:8080] [--db okrgate.db] [--demo] [flags]", `
Serves, on one address: the REST facade of the OKR API under /api/
(docs/rest.md), the GraphQL API at /graphql (docs/graphql.md), the GraphiQL
playground at /, the REST API's reference at /reference (Redoc over
/api/openapi.json) and the probes /healthz and /readyz; Prometheus metrics at
/metrics on a listener of their own (--metrics-addr, loopback by default).
Traces go to an OTLP endpoint when the standard OTEL_* variables name one
(docs/operations.md). Creates the database file if it does not exist.
SIGTERM or Ctrl-C stops accepting connections and lets in-flight requests
finish.`)
	addr := fs.String("addr", "127.0.0.1:8080", "listen `address`")
	db := fs.String("db", "okrgate.db", "SQLite database `file` (created if missing) or postgres:// URL")
	demo := fs.Bool("demo", false, "on an empty database, create a demo account and print its admin token")
	playgroundAssets := fs.String("playground-assets", playground.Embedded, "the assets of the GraphiQL playground and the REST reference: embedded (compiled in; works offline), cdn (jsDelivr), or a `dir` filled by .ci/playground-assets.sh DIR")
	introspection := fs.Bool("introspection", true, "allow GraphQL introspection (--introspection=false turns it off)")
	federation := fs.Bool("federation", false, "serve GraphQL as an Apollo Federation v2 subgraph: _service and _entities (docs/graphql-federation.md)")
	graphqlLimits := graphqlLimitFlags(fs.FlagSet)
	graphqlCache := graphqlCacheFlags(fs.FlagSet)
	restReadTimeout := fs.Duration("rest-read-timeout", rest.DefaultReadTimeout, "REST: deadline of a read (GET); past it the work stops and the answer is 503 timeout")
	restWriteTimeout := fs.Duration("rest-write-timeout", rest.DefaultWriteTimeout, "REST: deadline of a write (POST, PUT, PATCH, DELETE), its reads and its wait for the account's turn included; past it the answer is 503 timeout, or outcome_unknown when its COMMIT was cut")
	corsOrigins := fs.String("cors-origins", "", "comma-separated `origins` whose browser pages may call the API (https://app.example.com, https://*.example.com, or * for any); none by default")
	guard := addGuardFlags(fs.FlagSet)
	gateway := addGatewayFlags(fs.FlagSet)
	faults := addFaultFlags(fs.FlagSet) // faults.go
	ops := addOpsFlags(fs.FlagSet)
	webhooks := addWebhookFlags(fs.FlagSet)    // webhooks.go
	signin := addOIDCFlags(fs.FlagSet)         // signin.go
	trustedDocs := addTrustedFlags(fs.FlagSet) // trusted.go
	if err := fs.parse(args, getenv, stdout, stderr); err != nil {
		return err
	}
	if err := guard.validate(); err != nil {
		return err
	}
	log, err := ops.logger(stderr)
	if err != nil {
		return err
	}
	tracer, stopTracing, err := observe.Tracing(ctx, getenv, moduleVersion())
	if err != nil {
		return err
	}
	defer flush(stopTracing)

	be, err := openBackend(ctx, *db, gateway, guard.tokens, log, faults.storeOptions()...)
	if err != nil {
		return err
	}
	defer be.close()
	obs, err := newObservability(be, tracer, log)
	if err != nil {
		return err
	}
	api := obs.instrument(be.api)
	ready := newReadiness(be.ready) // faults.go
	if err := ready.register(obs.registry); err != nil {
		return err
	}
	ready.Start() // the first probe finds a result
	// One authentication middleware for both facades (and the live
	// streams, which re-authenticate through it).
	auth, err := signin.authenticator(ctx, be, api)
	if err != nil {
		return err
	}
	if err := startWebhooks(ctx, webhooks, be, obs.registry, log); err != nil {
		return err
	}

	var boot sqlstore.BootstrapResult
	var again string // serve --demo on a database with data: how to get back in
	if *demo && be.store == nil {
		return errDemoGateway
	}
	if *demo {
		if boot, err = demoAccount(ctx, be.store); err != nil {
			return err
		}
		if boot.Token == "" {
			if again, err = demoAgain(ctx, be.store, prog, *db); err != nil {
				return err
			}
		}
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	// Writes on PostgreSQL wait on its round trips, on SQLite on the one
	// writer where the writes waiting together are committed together:
	// never fewer in flight than the store asks for (limit.Config.MinWrites).
	guard.admission.MinWrites = be.minWrites
	adm, err := guard.newAdmission(obs.registry)
	if err != nil {
		ln.Close()
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", rest.New(api, rest.Options{Logger: log, Webhooks: webhookService(be), Events: be.events, ReadTimeout: *restReadTimeout, WriteTimeout: *restWriteTimeout, Authn: auth}))
	gqlConfig := graphqlhttp.Config{API: api, Authn: auth, Metrics: obs.graphql, Logger: log, DisableIntrospection: !*introspection,
		Federation: *federation, Admission: adm, CostClass: limit.CostClass}
	graphqlLimits(&gqlConfig)
	if err := graphqlCache(&gqlConfig, be.store, obs.registry); err != nil {
		ln.Close()
		return err
	}
	if gqlConfig.Trusted, err = trustedDocs.extension(); err != nil {
		ln.Close()
		return err
	}
	allowed := parseOrigins(*corsOrigins)
	gqlConfig.Live = startLive(ctx, be, log) // live.go: subscriptions and event pruning
	if gqlConfig.Live != nil && !allowed.none() {
		gqlConfig.Live.AllowOrigin = allowed.allowed // websockets: the same origins as CORS
	}
	if err := registerLiveMetrics(obs.registry, gqlConfig.Live); err != nil {
		ln.Close()
		return err
	}
	mux.Handle("/graphql", graphqlhttp.NewHandler(gqlConfig))
	playgroundHandler, err := playground.Handler(playground.Options{Endpoint: "/graphql", Assets: *playgroundAssets, DemoToken: boot.Token, OpenAPI: rest.OpenAPIPath})
	if err != nil {
		ln.Close()
		return err
	}
	mux.Handle("GET /{$}", playgroundHandler)
	mux.Handle("GET "+playground.ReferencePath, playgroundHandler)
	mux.Handle("GET "+playground.AssetsPath, playgroundHandler)
	srv := &http.Server{
		Handler:           obs.stack(withCORS(allowed, guard.guarded(ready.Ready, obs.mainMetrics(ops.metricsToken), adm, observe.Patterns(mux)))),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		// Above rest.MaxURLBytes + rest.MaxHeaderBytes, so that the REST
		// facade answers oversized requests with problem bodies; only a
		// request line and headers over this get Go's plain-text 431.
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	fmt.Fprintf(stdout, "okrgate listening on %s (%s)\n", base, be.where)
	if err := ops.startMetrics(ctx, obs, stdout); err != nil {
		ln.Close()
		return err
	}
	switch {
	case *demo && boot.Token != "":
		fmt.Fprintf(stdout, "demo account:     %s\ndemo admin token: %s  (shown once)\n", boot.AccountID, boot.Token)
		fmt.Fprintf(stdout, "try: curl -g -H 'Authorization: Bearer %s' -H 'service-accountId: %s' '%s/api/v2/integrations/goals?fields=name,attainment'\n",
			boot.Token, boot.AccountID, base)
	case *demo:
		fmt.Fprint(stdout, again)
	}
	errc := make(chan error, 1)
	// The server's own answers to requests it cannot parse become
	// problem bodies with a request id (rest.Listener).
	go func() {
		errc <- srv.Serve(rest.Listener(ln, rest.ListenerOptions{MaxHeaderBytes: srv.MaxHeaderBytes, Logger: log}))
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: draining in-flight requests", "grace", shutdownGrace)
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// withCORS lets browser pages of the allowed origins call the REST and
// GraphQL APIs: it answers their preflights and exposes the headers clients
// read. Credentials are bearer tokens the page sends itself, never cookies,
// so no origin gains access it could not get without CORS. An empty list
// leaves h as it is: same-origin use only.
func withCORS(allowed origins, h http.Handler) http.Handler {
	if allowed.none() {
		return h
	}
	return cors.Handler(cors.Options{
		AllowOriginFunc: func(_ *http.Request, origin string) bool { return allowed.allowed(origin) },
		AllowedMethods:  []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete},
		AllowedHeaders:  []string{"Authorization", "Content-Type", "Accept", "service-accountId", "gtmhub-accountId", "X-Request-Id", "If-Match", "If-None-Match", "Idempotency-Key"},
		ExposedHeaders:  []string{"X-Request-Id", "Deprecation", "Link", "X-Message", "WWW-Authenticate", "Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "ETag", "Idempotent-Replayed"},
		MaxAge:          600,
	})(h)
}

// demoName is the name of the account serve --demo creates.
const demoName = "Demo Company"

// demoAgain says, for serve --demo on a database that already holds data,
// that nothing was seeded and gives the command (prog's, for the database
// db) that mints a new admin token for the demo account; or, when the
// database holds other accounts, the command that lists them. A URL's
// password is masked (displayDB): it is not printed to a log.
func demoAgain(ctx context.Context, st *sqlstore.Store, prog, db string) (string, error) {
	db = displayDB(db)
	accounts, err := st.Accounts(ctx)
	if err != nil {
		return "", err
	}
	var demo []upstream.Account
	for _, a := range accounts {
		if a.Name == demoName {
			demo = append(demo, a)
		}
	}
	const head = "demo: the database already holds data; nothing seeded. The demo token was shown once, when it was created.\n"
	if len(demo) != 1 {
		return fmt.Sprintf("%sIts accounts: %s account list --db %s\nA new admin token for one: %s token create --db %s --account ACCOUNT_ID\n",
			head, prog, shellQuote(db), prog, shellQuote(db)), nil
	}
	return fmt.Sprintf("%sdemo account:     %s\nA new admin token for it: %s token create --db %s --account %s\n",
		head, demo[0].ID, prog, shellQuote(db), demo[0].ID), nil
}

// demoAccount seeds the demo account when the database holds no account and
// returns its id and a fresh admin token. On a database that already has
// data it returns the zero result and changes nothing: tokens are shown once.
func demoAccount(ctx context.Context, st *sqlstore.Store) (sqlstore.BootstrapResult, error) {
	var none sqlstore.BootstrapResult
	n, err := st.AccountCount(ctx)
	if err != nil || n > 0 {
		return none, err
	}
	res, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: demoName, Email: "admin@demo.test", FirstName: "Dana", LastName: "Admin"})
	if err != nil {
		return none, err
	}
	c, err := st.Authenticate(ctx, res.Token)
	if err != nil {
		return none, err
	}
	if _, err := seed.Demo(upstream.NewContext(ctx, c), st); err != nil {
		return none, err
	}
	return res, nil
}
