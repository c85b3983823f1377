package main

import (
	"context"
	"errors"
	"flag"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// faultFlags are the deadlines of the database path (sqlstore.Deadlines):
// how long okrgate waits for PostgreSQL before it answers 503 with the
// cause (docs/failures.md, "Failures"). The defaults answer every
// request of a partition within Acquire + TCP (docs/decisions/failures.md,
// "A partition is bounded by TCP, a slow query by its deadline").
type faultFlags struct {
	deadlines sqlstore.Deadlines
}

func addFaultFlags(fs *flag.FlagSet) *faultFlags {
	f := &faultFlags{}
	d := sqlstore.DefaultDeadlines
	fs.DurationVar(&f.deadlines.Connect, "db-connect-timeout", d.Connect, "PostgreSQL: bound of opening a connection (a connect_timeout in the URL wins)")
	fs.DurationVar(&f.deadlines.Acquire, "db-acquire-timeout", d.Acquire, "PostgreSQL: how long a request waits for a free connection of the pool before it is answered 503 unavailable")
	fs.DurationVar(&f.deadlines.Write, "db-write-timeout", d.Write, "PostgreSQL: bound of a write transaction, BEGIN to COMMIT; past it the write is answered 503 timeout (or outcome_unknown when it was committing)")
	fs.DurationVar(&f.deadlines.TCP, "db-tcp-timeout", d.TCP, "PostgreSQL: how long sent data or keepalive probes may go unacknowledged before a connection is declared dead (TCP_USER_TIMEOUT): bounds a partition, not a slow query")
	return f
}

// storeOptions are the store options of the flags.
func (f *faultFlags) storeOptions() []sqlstore.Option {
	return []sqlstore.Option{sqlstore.WithDeadlines(f.deadlines)}
}

// Readiness answers "can this replica serve now?" from a check of the
// backend that runs in the background at most once per readyFresh: a load
// balancer's probes never pile queries on a database that is already
// struggling, and a probe never waits for one that does not answer. Only
// the probes before the first check came back wait for it, up to
// readyWait; the others answer the last result at once while the next
// check runs (serve starts the first as it starts: Start). A database
// that answers slowly is still ready (it serves, slowly); one whose check
// has not come back for readyStalled, or that failed, is not.
const (
	readyWait    = 100 * time.Millisecond
	readyFresh   = time.Second
	readyStalled = 2 * time.Second
	readyCheck   = 5 * time.Second // bound of one check
)

// errReadyStalled is the readiness of a backend whose check has not come
// back for readyStalled, errReadyPending that before the first check
// came back.
var (
	errReadyStalled = errors.New("the database has not answered the readiness check for " + readyStalled.String())
	errReadyPending = errors.New("the first readiness check has not come back yet")
)

// readiness caches the result of check (see readyWait).
type readiness struct {
	check func(context.Context) error
	now   func() time.Time

	mu      sync.Mutex
	err     error     // the last result
	at      time.Time // when it came back; zero before the first
	running time.Time // when the check in flight started; zero when none is
	done    chan struct{}

	ready  prometheus.Gauge
	checks *prometheus.CounterVec
}

func newReadiness(check func(context.Context) error) *readiness {
	return &readiness{check: check, now: time.Now,
		ready: prometheus.NewGauge(prometheus.GaugeOpts{Name: "okrgate_ready",
			Help: "1 when the last readiness check of the database (or the gateway's upstream) passed, 0 when it failed or has not come back for 2s."}),
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "okrgate_readiness_checks_total",
			Help: "Readiness checks of the database (or the gateway's upstream) by result: ok, failed, stalled."}, []string{"result"}),
	}
}

// register adds the readiness metrics to reg.
func (r *readiness) register(reg prometheus.Registerer) error {
	for _, result := range []string{"ok", "failed", "stalled"} {
		r.checks.WithLabelValues(result) // every series from the start, at 0
	}
	for _, c := range []prometheus.Collector{r.ready, r.checks} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Ready reports whether the backend can serve now: at once from the last
// check, or within readyWait (sooner when ctx ends) for the first.
func (r *readiness) Ready(ctx context.Context) error {
	r.mu.Lock()
	now := r.now()
	if !r.running.IsZero() && now.Sub(r.running) >= readyStalled {
		r.mu.Unlock()
		r.ready.Set(0)
		r.checks.WithLabelValues("stalled").Inc()
		return errReadyStalled
	}
	if !r.at.IsZero() && now.Sub(r.at) < readyFresh {
		err := r.err
		r.mu.Unlock()
		return err
	}
	r.startLocked(now)
	if !r.at.IsZero() {
		// The last result, while the next check runs: a probe never
		// waits for a database that answers slowly.
		err := r.err
		r.mu.Unlock()
		return err
	}
	done := r.done
	r.mu.Unlock()

	t := time.NewTimer(readyWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.at.IsZero() {
		return errReadyPending
	}
	return r.err
}

// Start runs the first check in the background, so that the first probe
// finds its result rather than waiting up to readyWait for it (serve calls
// it as it starts; a probe that comes sooner still waits).
func (r *readiness) Start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.startLocked(r.now())
}

// startLocked starts a check unless one is running.
func (r *readiness) startLocked(now time.Time) {
	if r.running.IsZero() {
		r.running = now
		r.done = make(chan struct{})
		go r.run(r.done)
	}
}

// run checks the backend once and records the result.
func (r *readiness) run(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), readyCheck)
	defer cancel()
	err := r.check(ctx)
	r.mu.Lock()
	r.err, r.at, r.running = err, r.now(), time.Time{}
	r.mu.Unlock()
	close(done)
	if err != nil {
		r.ready.Set(0)
		r.checks.WithLabelValues("failed").Inc()
		return
	}
	r.ready.Set(1)
	r.checks.WithLabelValues("ok").Inc()
}
