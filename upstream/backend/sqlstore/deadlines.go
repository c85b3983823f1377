package sqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/okrgate/okrgate/upstream"
)

// Deadlines bound every wait of the store for PostgreSQL, so that a
// database that went away, or a network that drops its packets, is an
// error (upstream.Classify: unavailable or timeout) within a known time
// instead of a request that hangs until the operating system gives up.
// Reads are bounded by their request's deadline (and statement_timeout);
// these bound the rest. A zero field takes its default.
type Deadlines struct {
	// Connect bounds opening a connection: TCP, TLS and authentication
	// (DefaultDeadlines.Connect; a connect_timeout in the URL wins).
	Connect time.Duration
	// Acquire bounds the wait for a free connection of the pool.
	Acquire time.Duration
	// Write bounds a write transaction from BEGIN to COMMIT, a group
	// commit's as one write's.
	Write time.Duration
	// TCP is how long data sent, or keepalive probes, may go
	// unacknowledged before the connection is declared dead
	// (TCP_USER_TIMEOUT on Linux); keepalive probes start after an idle
	// third of it.
	TCP time.Duration
}

// DefaultDeadlines are the deadlines of a store opened without
// WithDeadlines: a partition is answered within about ten seconds.
var DefaultDeadlines = Deadlines{Connect: 4 * time.Second, Acquire: 4 * time.Second, Write: 15 * time.Second, TCP: 5 * time.Second}

// WithDeadlines sets the deadlines of a PostgreSQL store; SQLite, a local
// file, has none of these waits.
func WithDeadlines(d Deadlines) Option {
	return func(s *Store) { s.deadlines = d.withDefaults() }
}

func (d Deadlines) withDefaults() Deadlines {
	def := DefaultDeadlines
	if d.Connect <= 0 {
		d.Connect = def.Connect
	}
	if d.Acquire <= 0 {
		d.Acquire = def.Acquire
	}
	if d.Write <= 0 {
		d.Write = def.Write
	}
	if d.TCP <= 0 {
		d.TCP = def.TCP
	}
	return d
}

// deadlinesOf returns the deadlines opts set (DefaultDeadlines when none
// does): the pool is configured with them before the Store exists.
func deadlinesOf(opts []Option) Deadlines {
	probe := &Store{core: &core{}}
	probe.deadlines = DefaultDeadlines
	for _, o := range opts {
		o(probe)
	}
	return probe.deadlines
}

// dialer returns the dial function of PostgreSQL connections (and of
// their cancel requests): bounded by d.Connect, with keepalive probes
// and a user timeout of d.TCP, so that a connection whose peer
// vanished fails instead of waiting on a socket.
func (d Deadlines) dialer() pgconn.DialFunc {
	nd := &net.Dialer{
		Timeout: d.Connect,
		KeepAliveConfig: net.KeepAliveConfig{
			Enable:   true,
			Idle:     max(d.TCP/3, time.Second),
			Interval: max(d.TCP/6, time.Second),
			Count:    3,
		},
		Control: userTimeout(d.TCP), // tcp_linux.go
	}
	return nd.DialContext
}

// acquireConnector bounds the wait of database/sql for a connection of
// the pgxpool (every statement's, reads' and writes') by timeout, and
// answers one that ran out as upstream.CodeDatabaseUnavailable: every
// connection is busy, most likely waiting for a slow database.
type acquireConnector struct {
	driver.Connector
	timeout  time.Duration
	timeouts *atomic.Int64
}

// errAcquireTimeout is the cause of an acquireConnector's failure.
var errAcquireTimeout = errors.New("no connection acquired")

func (c acquireConnector) Connect(ctx context.Context) (driver.Conn, error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	conn, err := c.Connector.Connect(actx)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		c.timeouts.Add(1)
		return nil, &upstream.Error{Code: upstream.CodeDatabaseUnavailable,
			Message: "no database connection became free in time; retry in a moment",
			Err:     fmt.Errorf("sqlstore: %w within %s: %w", errAcquireTimeout, c.timeout, err)}
	}
	return conn, err
}

// commitFailed is the error of a COMMIT that failed. The outcome is
// known only when the server answered with an error (the transaction
// rolled back). Otherwise — the connection broke, the deadline cut it, or
// the server ended the session (a FATAL error, pg_terminate_backend)
// while the COMMIT was on its way — the write may have been saved, and
// the error says so (upstream.CodeOutcomeUnknown). pgconn.SafeToRetry
// cannot tell here: the COMMIT goes in one batch with the write's last
// statements (pipeline.go), and a result read after the batch went out
// may fail with an error pgx marks safe ("conn closed").
func commitFailed(err error) error {
	err = fmt.Errorf("sqlstore: commit: %w", err)
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok && pe.Severity == "ERROR" {
		return err
	}
	return upstream.OutcomeUnknown(err)
}

// writeDeadline returns ctx bounded by the write deadline of a
// PostgreSQL store (ctx itself on SQLite).
func (s *Store) writeDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.pg == nil {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, s.deadlines.Write)
}
