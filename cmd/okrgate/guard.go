package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/infra/limit"
)

// readyTimeout bounds /readyz's query of the store.
const readyTimeout = time.Second

// guardFlags are serve's settings for token lifetimes, rate limits and load
// shedding (docs/rest.md, "Limits"; docs/decisions/admission.md).
type guardFlags struct {
	tokens    upstream.TokenPolicy
	rate      limit.RateConfig
	admission limit.Config
}

// addGuardFlags declares the flags on fs.
func addGuardFlags(fs *flag.FlagSet) *guardFlags {
	g := &guardFlags{tokens: upstream.DefaultTokenPolicy(), rate: limit.DefaultRateConfig(),
		admission: limit.Config{MaxReads: limit.Auto, MaxWrites: limit.Auto}}
	setTTL := func(dst *time.Duration) func(string) error {
		return func(s string) error { d, err := parseLifetime(s); *dst = d; return err }
	}
	setRate := func(s string) error { c, err := limit.ParseRateConfig(s); g.rate = c; return err }
	setLimit := func(dst *int) func(string) error {
		return func(s string) error {
			if s == "auto" {
				*dst = limit.Auto
				return nil
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return fmt.Errorf("%q is not auto or a count (0 = unbounded)", s)
			}
			*dst = n
			return nil
		}
	}
	setWait := func(dst *time.Duration) func(string) error {
		return func(s string) error {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a positive duration (250ms, 5s, ...)", s)
			}
			*dst = d
			return nil
		}
	}
	fs.Func("token-ttl", "lifetime of a new API token when the request names none: `90d`, 2160h, ... (default 90d)", setTTL(&g.tokens.DefaultTTL))
	fs.Func("token-max-ttl", "the longest lifetime a token may be given (default 366d)", setTTL(&g.tokens.MaxTTL))
	fs.Func("rate-limit", "request budgets, or off: `token=600/1m,address=1200/1m,auth-failures=20/1m` (the default)", setRate)
	fs.Func("max-inflight-reads", "reads (GET, HEAD, GraphQL queries) executing at once: `auto` (the default: an adaptive limit that follows the server's capacity), N to fix it, 0 = unbounded", setLimit(&g.admission.MaxReads))
	fs.Func("max-inflight-writes", "writes (other methods, GraphQL mutations) executing at once: `auto` (the default, adaptive), N to fix it, 0 = unbounded", setLimit(&g.admission.MaxWrites))
	fs.Func("queue-target", fmt.Sprintf("how long a request may `wait` for admission once the queue stands (every request of the last second waited longer); one expected to wait longer is answered 503 with Retry-After at once (default %s)", limit.DefaultTarget), setWait(&g.admission.Target))
	fs.Func("queue-burst", fmt.Sprintf("how long a request may `wait` for admission while the queue drains (a burst on a server that keeps up) (default %s)", limit.DefaultBurst), setWait(&g.admission.Burst))
	return g
}

// validate reports inconsistent lifetimes.
func (g *guardFlags) validate() error {
	if err := g.tokens.Validate(); err != nil {
		return fmt.Errorf("token lifetimes: %s", upstream.ErrorMessage(err))
	}
	return nil
}

// parseLifetime reads a Go duration or a number of days ("90d").
func parseLifetime(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days <= 0 {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration (90d, 2160h, ...)", s)
	}
	return d, nil
}

// unready names what failed a readiness check: a gateway's upstream (the
// client's errors carry upstream.CodeUnavailable), or the local database.
func unready(err error) string {
	if upstream.ErrorCode(err) == upstream.CodeUnavailable {
		return "upstream unavailable: " + upstream.ErrorMessage(err) + "\n"
	}
	return "database unavailable\n"
}

// newAdmission returns the admission control of the flags, its metrics
// registered on reg. The same one admits REST requests (guarded) and
// GraphQL operations (graphqlhttp.Config.Admission).
func (g *guardFlags) newAdmission(reg prometheus.Registerer) (*limit.Admission, error) {
	m := limit.NewMetrics()
	a := limit.NewAdmission(g.admission, nil, m)
	if err := m.Register(reg, a); err != nil {
		return nil, fmt.Errorf("admission metrics: %w", err)
	}
	return a, nil
}

// guarded serves the probes (/healthz, /readyz) and /metrics directly and
// app behind the rate limits and the admission control, so a probe never
// waits behind work and is never shed.
func (g *guardFlags) guarded(ready func(context.Context) error, metrics http.Handler, adm *limit.Admission, app http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		// Liveness: the process answers. Whether the store does is /readyz.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := ready(ctx); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, unready(err))
			return
		}
		io.WriteString(w, "ok\n")
	})
	mux.Handle("GET /metrics", metrics)
	mux.Handle("/", limit.NewRateLimiter(g.rate).Handler(adm.Handler(app)))
	return mux
}
