package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/instrument"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// opsFlags are serve's settings for logs and metrics (docs/operations.md).
// Tracing is configured by the standard OTEL_* variables instead.
type opsFlags struct {
	logFormat, logLevel       string
	metricsAddr, metricsToken string
	pprof                     bool
	fs                        *flag.FlagSet
}

// addOpsFlags declares the flags on fs.
func addOpsFlags(fs *flag.FlagSet) *opsFlags {
	o := &opsFlags{fs: fs}
	fs.StringVar(&o.logFormat, "log-format", "text", "log `format`: json (one object a line) or text (key=value)")
	fs.StringVar(&o.logLevel, "log-level", "info", "least `level` logged: debug (adds probes and scrapes), info, warn or error")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "127.0.0.1:9090", "listen `address` of the Prometheus /metrics endpoint, apart from the API (off for none)")
	fs.StringVar(&o.metricsToken, "metrics-token", "", "also serve /metrics on the main address, to requests with \"Authorization: Bearer `token`\" (none by default: there it is 404)")
	fs.BoolVar(&o.pprof, "pprof", false, "also serve Go's runtime profiles (net/http/pprof: heap, CPU, goroutines) under /debug/pprof/ on the metrics listener, for diagnosing memory and CPU")
	return o
}

// startMetrics starts the metrics listener unless --metrics-addr is off,
// and says where it listens on stdout. An address the operator chose that
// cannot be bound is an error; the default one, taken by another process
// (a second server on one machine), only a warning: the API still serves,
// without metrics.
func (o *opsFlags) startMetrics(ctx context.Context, obs *observability, stdout io.Writer) error {
	if o.metricsAddr == "" || o.metricsAddr == "off" {
		return nil
	}
	addr, err := obs.serveMetrics(ctx, o.metricsAddr, o.pprof)
	if err != nil {
		chosen := false
		o.fs.Visit(func(f *flag.Flag) { chosen = chosen || f.Name == "metrics-addr" }) // flag or variable
		if chosen {
			return err
		}
		obs.log.Warn("metrics listener not started: its default address is in use; set --metrics-addr", "addr", o.metricsAddr, "err", err)
		return nil
	}
	fmt.Fprintf(stdout, "okrgate metrics on http://%s/metrics\n", addr)
	return nil
}

// logger returns the logger the flags ask for, writing to w.
func (o *opsFlags) logger(w io.Writer) (*slog.Logger, error) {
	return observe.NewLogger(w, o.logFormat, o.logLevel)
}

// observability is what serve measures the server with: one registry for
// every metric, the upstream call counter, the GraphQL metrics and the
// tracer provider.
type observability struct {
	registry *prometheus.Registry
	metrics  *observe.Metrics
	graphql  *graphqlhttp.Metrics
	calls    *instrument.Counter
	tracer   trace.TracerProvider
	log      *slog.Logger
}

// newObservability registers the metrics of the server and of st's pools.
func newObservability(be *backend, tracer trace.TracerProvider, log *slog.Logger) (*observability, error) {
	reg := prometheus.NewRegistry()
	m, err := observe.NewMetrics(reg)
	if err != nil {
		return nil, err
	}
	g, err := graphqlhttp.NewMetrics(reg)
	if err != nil {
		return nil, err
	}
	if be.store != nil {
		for name, db := range be.store.Pools() {
			if err := reg.Register(collectors.NewDBStatsCollector(db, name)); err != nil {
				return nil, err
			}
		}
		if c := be.store.PoolCollector(); c != nil { // PostgreSQL's pgxpool
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
		if err := reg.Register(be.store.GroupCollector()); err != nil {
			return nil, err
		}
	}
	if err := be.register(reg); err != nil {
		return nil, err
	}
	if err := reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "okrgate_store_queries_total",
		Help: "SQL statements run by the store (in gateway mode: HTTP requests sent to the upstream).",
	}, func() float64 { return float64(be.queryCount()) })); err != nil {
		return nil, err
	}
	calls := instrument.NewCounter()
	calls.OnCall = m.UpstreamCall
	return &observability{registry: reg, metrics: m, graphql: g, calls: calls, tracer: tracer, log: log}, nil
}

// instrument returns api decorated: every call counted and traced.
func (o *observability) instrument(api upstream.API) upstream.API {
	return instrument.New(api, o.calls)
}

// stack is the middleware stack in front of everything served.
func (o *observability) stack(h http.Handler) http.Handler {
	return observe.Stack(observe.Config{Logger: o.log, Metrics: o.metrics, Tracer: o.tracer, Quiet: quiet})(h)
}

// quiet reports the probes and scrapes, logged at debug level.
func quiet(r *http.Request) bool {
	switch r.URL.Path {
	case "/healthz", "/readyz", "/metrics":
		return true
	}
	return false
}

// handler serves the metrics in the Prometheus text format.
func (o *observability) handler() http.Handler {
	return promhttp.HandlerFor(o.registry, promhttp.HandlerOpts{Registry: o.registry, ErrorLog: slog.NewLogLogger(o.log.Handler(), slog.LevelWarn)})
}

// mainMetrics is /metrics on the main address: behind the bearer token when
// one is set, else not found, so that the public address shows no metrics
// unless asked to.
func (o *observability) mainMetrics(token string) http.Handler {
	if token == "" {
		return http.NotFoundHandler()
	}
	h := o.handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="okrgate metrics"`)
			http.Error(w, "metrics need the metrics token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// serveMetrics serves /metrics (and the probes' liveness) on addr until ctx
// ends; it returns the address it listens on. The listener is separate from
// the API's so that the default (loopback) keeps it off the public address.
// With profiles, it also serves net/http/pprof's /debug/pprof/ (opt-in:
// a CPU profile costs the server CPU while it runs).
func (o *observability) serveMetrics(ctx context.Context, addr string, profiles bool) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("metrics listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", o.handler())
	if profiles {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	srv := &http.Server{Handler: o.stack(mux), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(o.log.Handler(), slog.LevelWarn)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.log.Error("metrics server", "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	return ln.Addr().String(), nil
}

// flush stops the tracer provider, sending the spans it still holds.
func flush(stop func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = stop(ctx)
}

// moduleVersion is the module version the binary was built as.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
